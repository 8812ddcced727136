"""eqsat/egraph/tables.py: the analyses' facts written with the rows (``Tables.write``) and only
the filled tables' load rules (``schedule``) give the same e-graph after load as the plain load
(``LOAD_FACTS``/``LOAD_FILLED_ONLY`` off): the same terms and classes in the same order, the
same analysis rows; the analyses at load then take fewer iterations. With the unions applied
late too (``LOAD_LATE_UNIONS``), the same e-graph up to the numbering of its classes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from eqsat.egraph import session, tables
from eqsat.egraph.limits import Limits
from eqsat.egraph.session import Session
from eqsat.egraph.view import EGraphView
from eqsat.frontend.mlir import parse_mlir
from eqsat.ir import Program
from eqsat.testing.egraph_shape import shape as egraph_shape
from eqsat.testing.programs import Shape, random_program

ROOT = Path(__file__).resolve().parents[2]
KERNELS = sorted(p for d in ("examples", "tests/heir_cases") for p in (ROOT / d).glob("*.mlir")
                 if p.name != "box_blur_64x64.mlir")  # 82k nodes: the same code paths as 16x16
#: the analyses' tables: their rows' order follows the order their facts were set in
ANALYSES = {"slots", "varies", "num_val", "numf_val", "leaf_key", "in_name", "src_rot"}


def _load(prog: Program, new: bool, monkeypatch: pytest.MonkeyPatch, late: bool = False) -> tuple[Session, int]:
    """A session of ``prog`` loaded with or without the mechanisms (``late``: the late unions
    too); its analyses' iterations."""
    monkeypatch.setattr(session, "LOAD_FACTS", new)
    monkeypatch.setattr(session, "LOAD_FILLED_ONLY", new)
    monkeypatch.setattr(session, "LOAD_LATE_UNIONS", late)
    its: list[int] = []
    run_schedule = Session.run_schedule

    def counted(self: Session, schedule: str) -> Any:
        report = run_schedule(self, schedule)
        its.append(len(report.iterations))
        return report

    monkeypatch.setattr(Session, "run_schedule", counted)
    s = Session(prog)
    monkeypatch.setattr(Session, "run_schedule", run_schedule)
    return s, sum(its)


def _split(js: dict[str, Any]) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any], Counter[Any]]:
    """The serialized e-graph's term nodes (names, ops, children, classes: in order), its
    primitive values (serialized where first used: among the analysis rows too) and its
    analysis rows as a multiset of (function, argument classes, value class)."""
    nodes: dict[str, dict[str, Any]] = js["nodes"]
    terms = [(k, n) for k, n in nodes.items() if n["op"] not in ANALYSES and not k.startswith("primitive-")]
    values = {k: n for k, n in nodes.items() if k.startswith("primitive-")}
    facts = Counter((n["op"], tuple(nodes[c]["eclass"] for c in n["children"]), n["eclass"])
                    for n in nodes.values() if n["op"] in ANALYSES)
    return terms, values, facts


def _same_after_load(prog: Program, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    old, old_its = _load(prog, False, monkeypatch)
    new, new_its = _load(prog, True, monkeypatch)
    a, b = old.serialize(), new.serialize()
    assert _split(a) == _split(b)
    assert {k: v for k, v in a.items() if k != "nodes"} == {k: v for k, v in b.items() if k != "nodes"}
    return old_its, new_its




@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_kernels_load_to_the_same_egraph(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        prog = parse_mlir(path.read_text(), str(path))[0]
    except Exception:  # a kernel eqsat declines (tests/heir_cases/rr_not_supported_...)
        pytest.skip("not loaded")
    old_its, new_its = _same_after_load(prog, monkeypatch)
    assert new_its <= old_its
    late, _ = _load(prog, True, monkeypatch, late=True)
    plain, _ = _load(prog, False, monkeypatch)
    assert egraph_shape(late.serialize()) == egraph_shape(plain.serialize())


def test_late_unions_leave_no_union_row_and_join_the_classes(monkeypatch: pytest.MonkeyPatch) -> None:
    path = ROOT / "tests/heir_cases/rr_reduce_add_and_mul_32.mlir"
    prog = parse_mlir(path.read_text(), str(path))[0]
    late, _ = _load(prog, True, monkeypatch, late=True)
    plain, _ = _load(prog, False, monkeypatch)
    a, b = late.serialize(), plain.serialize()
    assert "ld_union" not in {n["op"] for n in a["nodes"].values()}  # type: ignore[attr-defined]
    assert EGraphView(a).num_classes == EGraphView(b).num_classes


@pytest.mark.parametrize("seed", range(12))
def test_random_programs_load_to_the_same_egraph(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    shape = Shape(slots=[1, 4, 8][seed % 3])
    _same_after_load(random_program(seed, 10 + 4 * seed, shape), monkeypatch)


def test_a_deep_kernel_analyses_in_few_iterations(monkeypatch: pytest.MonkeyPatch) -> None:
    path = ROOT / "tests/heir_cases/rr_reduce_add_and_mul_32.mlir"
    old_its, new_its = _same_after_load(parse_mlir(path.read_text(), str(path))[0], monkeypatch)
    assert old_its > 30 and new_its < old_its / 3  # one per term level before


@pytest.mark.parametrize("kernel", ["tests/heir_cases/rr_reduce_add_and_mul_32.mlir",
                                    "tests/heir_cases/heco_gx_kernel_4x4.mlir", "examples/horner.mlir"])
def test_kernels_saturate_to_the_same_egraph(kernel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same serialized text as a worker hands it back (facts and filled tables only); with
    the late unions the same e-graph up to class numbering."""
    from eqsat.rules import SCHEDULES

    path = ROOT / kernel
    prog = parse_mlir(path.read_text(), str(path))[0]
    texts = []
    for new, late in ((False, False), (True, False), (True, True)):
        s, _ = _load(prog, new, monkeypatch, late=late)
        s.saturate(list(SCHEDULES["default"]), Limits())
        s.drop_slot_facts()  # as a worker hands it back
        texts.append(s.serialize_text())
    assert texts[0] == texts[1]
    assert egraph_shape(session.parse_serialized(texts[0])) == egraph_shape(session.parse_serialized(texts[2]))


def test_facts_of_rows() -> None:
    t = tables.Tables(0)
    x = t.node("In", "x", 8)
    c = t.node("Num", 3, 8)
    s = t.node("Add", x, c)
    m = t.node("Mul", c, c)
    lin = t.node("LinRot", x, "1*1", 8)
    above = t.node("Add", lin, x)
    e = t.node("Ext", s, 2)
    ins = t.node("Ins", e, m, 1)
    pl = t.node("Place", e, 3, 4)
    assert t.facts[x] == (8, 1) and t.facts[c] == (8, 0)
    assert t.facts[s] == (8, 1) and t.facts[m] == (8, 0)
    assert t.facts[lin] == (8, -1)  # summaries get no ``varies``
    assert t.facts[above] == (8, -1)  # nor terms above them (their classes may, by a union)
    assert t.facts[e] == (1, 1) and t.facts[ins] == (8, 1) and t.facts[pl] == (4, 1)


def test_rows_carry_their_facts_only_when_asked(tmp_path: Path) -> None:
    t = tables.Tables(0)
    x = t.node("In", "x", 8)
    t.node("Rot", x, 1)
    t.write(tmp_path)
    assert (tmp_path / "ld_Rot.tsv").read_text() == "1\t0\t1\t8\t1\n"
    assert t.filled == ["In", "Rot"]
    t.write_facts = False
    t.write(tmp_path)
    assert (tmp_path / "ld_Rot.tsv").read_text() == "1\t0\t1\t-1\t-1\n"


def test_schedule_runs_only_the_filled_tables() -> None:
    text = tables.schedule(["In", "Rot", "alias"])
    assert "ldr-In" in text and "ldr-Rot" in text and "ldr-alias" in text and "ldr-Add" not in text
    assert "ldf-Rot" in text and "ldf-alias" not in text and "ldc-ref" in text and "ldc-Add" not in text
    assert "ldf-" not in tables.schedule(["In", "Rot", "alias"], facts=False)
    assert "(run ld)" in tables.schedule(None)
    build, after = tables.schedule(["In", "Rot", "union"]).split("(run-schedule")
    assert "ldr-union" not in build and "ldr-union ldf-In" in after
    build, after = tables.schedule(["In", "Rot", "union"], late_unions=False).split("(run-schedule")
    assert "ldr-union" in build and "ldr-union" not in after
