"""eqsat/egraph/oracle_tables.py: a rule's oracles answered from a relation filled once per key;
the rules derive exactly what the written ones do, and the kernels' e-graphs are the same."""

from __future__ import annotations

import base64
import re
from collections import Counter
from pathlib import Path

import cloudpickle
import pytest

from eqsat.egraph import compiled, oracle_tables, rule_cse
from eqsat.egraph.egglog_import import bindings
from eqsat.egraph.limits import Limits
from eqsat.egraph.session import Session
from eqsat.frontend.mlir import parse_mlir
from eqsat.rulespec import slot_oracles
from eqsat.testing.egraph_shape import shape as egraph_shape

ROOT = Path(__file__).resolve().parents[2]


def _obj(fn: object) -> str:
    return '(py-object "' + base64.b64encode(cloudpickle.dumps(fn)).decode() + '")'


_CANON, _SCALE, _ADD = _obj(slot_oracles.canonical), _obj(slot_oracles.poly_scale), _obj(slot_oracles.poly_add)

DECLS = """(datatype T (P T String i64) (Q String i64) (Leaf String) (Add T T))
(function size (T) i64 :merge old)
(ruleset analysis)
(rule ((= x (P v p n))) ((set (size x) n)) :ruleset analysis)
"""
#: a guard on one atom's key, an action on it, and a right side reading two atoms (left a call)
RULES = f"""(ruleset r)
(rule ((= x (P v p n))
       (!= (py-to-string (py-call {_CANON} (py-from-string p) (py-from-int n))) ""))
      ((union x (Q (py-to-string (py-call {_SCALE} (py-from-string p) (py-from-int 2) (py-from-int n))) n)))
        :ruleset r :name "guarded")
(rule ((= x (Add (P v p n) (P v q n))))
      ((union x (Q (py-to-string (py-call {_ADD} (py-from-string p) (py-from-string q) (py-from-int n))) n)))
        :ruleset r :name "two-atoms")
"""
#: one key, "1*1" at 4 slots, under three distinct atoms; and one more key
ROWS = """(P (Leaf "a") "1*1" 4)
(P (Leaf "b") "1*1" 4)
(P (Leaf "c") "1*1" 4)
(P (Leaf "a") "0*1,1*1" 4)
(Add (P (Leaf "a") "1*1" 4) (P (Leaf "a") "0*1,1*1" 4))
"""


def _tabled() -> oracle_tables.Tabled:
    return oracle_tables.rewrite(RULES, "r", "analysis", DECLS)


def _rows(program: str, schedule: str) -> str:
    eg = bindings().EGraph()
    eg.run_program(*eg.parse_program(DECLS + program + ROWS + f"(run-schedule {schedule})\n"))
    out = eg.run_program(*eg.parse_program("(print-function P 100)\n(print-function Q 100)\n"))
    return re.sub(r" at 0x[0-9a-f]+", "", repr([str(r) for r in out]))


def test_one_atom_oracles_are_read_from_a_relation_and_two_atom_ones_stay_calls() -> None:
    t = _tabled()
    assert t.count == 1 and t.drop == "r-tables-drop"
    guarded, two = (form for _, _, form in rule_cse._parse(t.text)
                    if isinstance(form, list) and form[0] == "rule" and form[-1] in ('"guarded"', '"two-atoms"'))
    assert "py-" not in rule_cse._show(guarded) and "oracle-answers-" in rule_cse._show(guarded)
    assert "py-call" in rule_cse._show(two)
    # the answers and keys are filled by rules of the fill ruleset and dropped by the drop ruleset
    assert ":ruleset analysis" in t.text and "(ruleset r-tables-drop)" in t.text


def test_the_tabled_rules_derive_the_same_rows() -> None:
    plain = _rows(RULES, "(saturate (seq (saturate (run analysis)) (run r)))")
    tabled = _rows(rule_cse.rewrite(_tabled().text), "(saturate (seq (saturate (run analysis)) (run r)))")
    assert tabled == plain
    # one step: the fill runs with the analyses before the rules, so the step matches the same
    once_plain = _rows(RULES, "(seq (saturate (run analysis)) (run r))")
    once_tabled = _rows(rule_cse.rewrite(_tabled().text), "(seq (saturate (run analysis)) (run r))")
    assert once_tabled == once_plain


def test_each_key_calls_the_oracle_once() -> None:
    slot_oracles.canonical.cache_clear()
    eg = bindings().EGraph()
    eg.run_program(*eg.parse_program(DECLS + rule_cse.rewrite(_tabled().text) + ROWS))
    eg.run_program(*eg.parse_program("(run-schedule (saturate (run analysis)))\n"))
    info = slot_oracles.canonical.cache_info()
    # two keys ("1*1", 4) and ("0*1,1*1", 4), four P rows: one call each key
    assert info.hits + info.misses == 2


#: a second rule on the same atom, converting the same key columns: its key is converted once
RULES_TWICE = RULES + f"""(rule ((= x (P v p n))
       (!= (py-to-string (py-call {_SCALE} (py-from-string p) (py-from-int 3) (py-from-int n))) ""))
      ((union x (Q (py-to-string (py-call {_SCALE} (py-from-string p) (py-from-int 5) (py-from-int n))) n)))
        :ruleset r :name "guarded-twice")
"""


def test_a_key_read_by_several_fill_rules_is_converted_once() -> None:
    """Two fill rules on one key relation convert its columns: a ``pykeys`` relation holds each
    key with its ``PyObject`` columns, the fill rules read those instead of converting, and the
    rules derive what the written ones do; with one fill rule nothing is added."""
    assert "oracle-pykeys-" not in _tabled().text
    t = oracle_tables.rewrite(RULES_TWICE, "r", "analysis", DECLS)
    assert t.count == 2
    fills = [rule_cse._show(form) for _, _, form in rule_cse._parse(t.text)
             if isinstance(form, list) and form[0] == "rule" and "oracle-answers-" in rule_cse._show(form[2])
             and "delete" not in rule_cse._show(form[2])]
    assert len(fills) == 2
    for fill in fills:
        assert fill.startswith("(rule ((oracle-pykeys-") and "(py-from-string x0)" not in fill
        assert "(py-from-int x1)" not in fill and ("(py-from-int 3)" in fill or "(py-from-int 2)" in fill)
    filled = [rule_cse._show(form) for _, _, form in rule_cse._parse(t.text)
              if isinstance(form, list) and form[0] == "rule" and "oracle-pykeys-" in rule_cse._show(form[2])
              and "delete" not in rule_cse._show(form[2])]
    assert len(filled) == 1 and "(py-from-string x0) (py-from-int x1)" in filled[0]
    assert sum("oracle-pykeys-" in d and "delete" in d for d in t.text.split("(rule ")) == 1
    schedule = "(saturate (seq (saturate (run analysis)) (run r)))"
    assert _rows(rule_cse.rewrite(t.text), schedule) == _rows(RULES_TWICE, schedule)


def test_a_section_without_oracles_is_unchanged() -> None:
    plain = "(datatype T (A i64))\n(rule ((= x (A i)) (> i 0)) ((A (- i 1))))\n"
    assert oracle_tables.rewrite(plain, "r", "analysis").text == plain


def test_the_compiled_sections_read_their_one_atom_oracles_from_relations() -> None:
    text = compiled.section("slots").text
    assert compiled.section("slots").drop
    for rule in ("lin-factor-0", "lin-split", "lin-mono", "lin-lift", "gather-full"):
        body = text[:text.index(f':name "{rule}"')]
        body = body[body.rindex("(rule"):]
        assert "py-call" not in body and "oracle-answers-" in body, rule




KERNELS = ["tests/heir_cases/rr_rotation_missing.mlir", "tests/heir_cases/rr_product_loop_8.mlir",
           "examples/linalg_matvec_16x16.mlir", "tests/heir_cases/cic_not_supported_reversal_8.mlir",
           "examples/mul_by_9.mlir", "examples/horner.mlir", "tests/heir_cases/heco_hamming_distance_4.mlir"]


@pytest.mark.parametrize("kernel", KERNELS)
def test_kernels_saturate_to_the_same_egraph_as_without_tables(kernel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from eqsat.rules import REGISTRY, SCHEDULES  # here: its import block sorts alike in every layout

    path = ROOT / kernel
    prog = parse_mlir(path.read_text(), str(path))[0]
    names = list(SCHEDULES["default"])

    def saturated() -> tuple[tuple[Counter[str], list[str]], int]:
        s = Session(prog)
        rep = s.saturate(names, Limits())
        s.drop_slot_facts()
        text = s.serialize_text()
        assert "oracle-" not in text  # the tables' rows are not serialized
        return egraph_shape(s.serialize()), rep.iterations

    tabled, its = saturated()
    plain_memo = dict(compiled._MEMO)
    monkeypatch.setattr(oracle_tables, "rewrite", lambda text, *_a, **_k: oracle_tables.Tabled(text))
    for name in names:
        plain_memo[name] = compiled._record(REGISTRY[name].ruleset, REGISTRY[name].eager_ruleset)
        assert not plain_memo[name].drop and "oracle-answers-" not in plain_memo[name].text
    monkeypatch.setattr(compiled, "_MEMO", plain_memo)
    plain, plain_its = saturated()
    assert tabled == plain
    assert its <= plain_its
