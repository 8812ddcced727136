"""``Session.drop_summaries``: the rows extraction never reads (summary e-nodes, ``src_rot``,
``ld_name``) deleted before a worker serializes its e-graph (``guard._finish``). The other
e-nodes are serialized in the same order with the same classes, so the view is the old one
without its summaries (classes numbered at first sight among the rest); a class left without
e-nodes is serialized as a childless ``[...]`` node; the noise facts are the same; the
pipeline still counts the deleted summaries as e-graph nodes (``Built.summary_nodes``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from eqsat.egraph import guard, noise_facts
from eqsat.egraph.session import Limits, RunReport, Session, StopReason, parse_nodes, parse_serialized
from eqsat.egraph.view import EGraphView
from eqsat.frontend.mlir import parse_mlir
from eqsat.rules import SCHEDULES
from eqsat.term_ops import CONCRETE_OPS, INERT_OPS, SUMMARY_OPS

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ["tests/heir_cases/rr_sum_of_linear_rotates_32.mlir", "tests/heir_cases/rr_product_loop_8.mlir",
           "tests/heir_cases/cic_not_supported_reversal_8.mlir", "tests/heir_cases/ir_splat.mlir",
           "tests/heir_cases/rr_two_sums_two_results.mlir"]
DROPPED = SUMMARY_OPS | {"src_rot", "ld_name"}


def _saturated(kernel: str) -> Session:
    path = ROOT / kernel
    s = Session(parse_mlir(path.read_text(), str(path))[0])
    s.saturate(list(SCHEDULES["default"]), Limits(time_s=60.0))
    s.drop_slot_facts()
    return s


def without_summaries(js: dict[str, Any]) -> dict[str, Any]:
    """``js`` with its summary e-nodes read as ``[...]`` (what ``EGraphView`` skips): the view
    of the old serialization without its summaries."""
    nodes = {k: (dict(n, op="[...]") if n["op"] in SUMMARY_OPS else n) for k, n in js["nodes"].items()}
    return {**js, "nodes": nodes}


def terms(js: dict[str, Any]) -> list[tuple[str, str, tuple[str, ...]]]:
    """The term e-nodes in order: op, class, and each child's class (a literal's value)."""
    nodes = js["nodes"]
    keep = CONCRETE_OPS | INERT_OPS | {"Root"}
    return [(n["op"], n["eclass"], tuple(nodes[c]["op"] if c.startswith("primitive-") else nodes[c]["eclass"]
                                         for c in n["children"]))
            for n in nodes.values() if n["op"] in keep]


@pytest.mark.parametrize("kernel", KERNELS)
def test_only_the_unextracted_rows_go(kernel: str) -> None:
    s = _saturated(kernel)
    before = parse_serialized(s.serialize_text())
    deleted = s.drop_summaries()
    after = parse_serialized(s.serialize_text())
    ops = Counter(n["op"] for n in before["nodes"].values())
    assert deleted == sum(ops[op] for op in SUMMARY_OPS)
    assert not any(n["op"] in DROPPED for n in after["nodes"].values())
    assert terms(after) == terms(before)
    # every child resolves; a class left without e-nodes is one childless ``[...]`` node
    for n in after["nodes"].values():
        assert all(c in after["nodes"] for c in n["children"])
    for n in after["nodes"].values():
        if n["op"] == "[...]":
            assert not n["children"]
            assert not any(m["op"] in CONCRETE_OPS | INERT_OPS for m in before["nodes"].values()
                           if m["eclass"] == n["eclass"])
    old, new = EGraphView(before), EGraphView(after)
    cut = EGraphView(without_summaries(before))
    assert (new.nodes, new.roots, new.class_nodes, new.num_classes) == \
        (cut.nodes, cut.roots, cut.class_nodes, cut.num_classes)
    assert len(new.nodes) + deleted == len(old.nodes)
    assert not any(n.op in SUMMARY_OPS for n in new.nodes)


def test_the_kernels_hold_summaries() -> None:
    """The kernels above exercise the mechanism: between them, summaries of every kind."""
    seen: set[str] = set()
    for kernel in KERNELS[:4]:
        js = parse_serialized(_saturated(kernel).serialize_text())
        seen |= {n["op"] for n in js["nodes"].values()} & SUMMARY_OPS
    assert seen == SUMMARY_OPS


@pytest.mark.parametrize("kernel", KERNELS)
def test_the_noise_facts_are_the_same(kernel: str) -> None:
    """The noise analysis matches no summary: run after the deletion, the same facts."""
    facts = []
    for drop in (False, True):
        s = _saturated(kernel)
        if drop:
            s.drop_summaries()
        noise_facts.run(s)
        facts.append(noise_facts.root_facts(s))
    assert facts[0] == facts[1]


def test_the_hand_back_counts_the_deleted_summaries() -> None:
    s = _saturated(KERNELS[0])
    full = EGraphView(parse_serialized(s.serialize_text()))
    built = guard._finish(s, RunReport(StopReason.SATURATED, 0, s.size(), 0.0), float("inf"))
    assert built.js is not None and built.summary_nodes > 0
    view = EGraphView(parse_nodes(built.js))
    assert len(view.nodes) + built.summary_nodes == len(full.nodes)
    assert '"LinRot"' not in built.js


def test_the_report_counts_the_e_graph_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """``egraph.nodes``, and the ILP's automatic choice by it, count the deleted summaries."""
    from eqsat import pipeline

    monkeypatch.setenv("EQSAT_IN_PROCESS", "1")
    path = ROOT / KERNELS[0]
    prog = parse_mlir(path.read_text(), str(path))[0]
    nodes = len(EGraphView(parse_serialized(_saturated(KERNELS[0]).serialize_text())).nodes)
    for limit, ilp in ((nodes, True), (nodes - 1, False)):
        monkeypatch.setattr(pipeline, "ILP_AUTO_NODES", limit)
        report = pipeline.optimize(prog).report
        assert report["egraph"]["nodes"] == nodes  # type: ignore[index]
        assert (report["extraction"] == "ilp") == ilp
