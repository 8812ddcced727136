"""eqsat/egraph/rule_cse.py: a rule's shared oracle expressions are bound once in its query,
constant conversions become literals, and the rewritten rules derive exactly what the
written ones do."""

from __future__ import annotations

import base64
import pickle
import re

import cloudpickle

from eqsat.egraph import compiled, rule_cse
from eqsat.egraph.egglog_import import bindings
from eqsat.rulespec import slot_oracles

_ADD = base64.b64encode(cloudpickle.dumps(slot_oracles.poly_add)).decode()
_SHIFT = base64.b64encode(cloudpickle.dumps(slot_oracles.poly_shift)).decode()

#: a guard on an oracle's answer and a right side built from the same answer, two oracles
#: reading one converted argument, and a constant argument
PROGRAM = f"""(datatype T (P String i64) (Q String String i64))
(function out (String String) String :merge new)
(ruleset r)
(rule ((= x (Q a b n))
       (!= (py-to-string (py-call (py-object "{_ADD}") (py-from-string a)
             (py-from-string (py-to-string (py-call (py-object "{_SHIFT}") (py-from-string b) (py-from-int 1)
               (py-from-int n))))
             (py-from-int n))) "zero"))
      ((set (out a b) (py-to-string (py-call (py-object "{_ADD}") (py-from-string a)
             (py-from-string (py-to-string (py-call (py-object "{_SHIFT}") (py-from-string b) (py-from-int 1)
               (py-from-int n))))
             (py-from-int n)))))
        :ruleset r :name "shared")
"""
ROWS = '(Q "1*1" "1*1" 4)\n(Q "0*1" "-1*-1" 4)\n(Q "2*1,3*2" "0*5" 8)\n(Q "1*1" "0*-1" 4)\n'


def _outputs(program: str) -> str:
    eg = bindings().EGraph()
    eg.run_program(*eg.parse_program(program + ROWS + "(run r 1)\n"))
    out = eg.run_program(*eg.parse_program("(extract (out \"1*1\" \"1*1\"))\n"))
    rows = eg.run_program(*eg.parse_program("(print-function out 100)\n"))
    # without the objects' addresses in their reprs (``<... at 0x7f...>``), which differ per run
    return re.sub(r" at 0x[0-9a-f]+", "", repr(out) + repr([str(r) for r in rows]))


def test_the_shared_call_is_bound_once_and_used_by_the_action() -> None:
    text = rule_cse.rewrite(PROGRAM)
    assert text.count(_ADD) == 1 and text.count(_SHIFT) == 1
    assert "(= __cse0 (py-to-string (py-call" in text
    assert "(set (out a b) __cse0)" in text
    assert "(py-from-int 1)" not in text  # a literal now
    assert base64.b64encode(pickle.dumps(1, cloudpickle.DEFAULT_PROTOCOL)).decode() in text


def test_the_rewritten_rule_derives_the_same_rows() -> None:
    assert _outputs(rule_cse.rewrite(PROGRAM)) == _outputs(PROGRAM)


def test_text_without_oracles_is_left_as_it_is() -> None:
    plain = "(datatype T (A i64))\n(rule ((= x (A i)) (> i 0)) ((A (- i 1))))\n"
    assert rule_cse.rewrite(plain) == plain


def test_rewriting_is_idempotent_on_the_compiled_sections() -> None:
    for name in ("slots", "linmap", "mul-to-add"):
        text = compiled.section(name).text
        assert "__cse" in text
        assert rule_cse.rewrite(text) == text


def test_a_rule_computing_nothing_twice_is_unchanged() -> None:
    once = f"""(rule ((= x (Q a b n)) (!= (py-to-string (py-call (py-object "{_ADD}") (py-from-string a)
      (py-from-string b) (py-from-int n))) "zero")) ((P a n)) :ruleset r)"""
    form = rule_cse._parse(once)[0][2]
    assert isinstance(form, list)
    assert rule_cse.rewrite_rule(form) is None
