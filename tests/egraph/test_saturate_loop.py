"""The saturation loop (``Session.saturate``): one egglog call an iteration -- the rules, the
analyses to their fixpoint, the eager rules -- whose report tells whether the iteration changed
anything; the same e-graph and iterations as the rules and the analyses run as two calls; one
size reading an iteration; the worker's iteration reports (``guard``) only as often as its
caller can use them."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from pathlib import Path

import pytest

from eqsat.egraph import guard
from eqsat.egraph.session import Limits, RunReport, Session, StopReason, rules_changed
from eqsat.frontend.mlir import parse_mlir
from eqsat.rules import SCHEDULES

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ["tests/heir_cases/rr_rotation_missing.mlir", "tests/heir_cases/ir_splat.mlir", "examples/mul_by_9.mlir"]


def _session(kernel: str) -> Session:
    path = ROOT / kernel
    return Session(parse_mlir(path.read_text(), str(path))[0])


def _shape(s: Session, rounds: int = 6) -> Counter[str]:
    """The e-graph up to the numbering of its classes: each class's label refined ``rounds``
    times from its e-nodes' ops and their children's labels (Weisfeiler-Lehman), counted. Two
    schedules that reach one fixpoint in another order number its classes differently."""
    js = json.loads(s.serialize_text())
    nodes = js["nodes"]
    label = {n["eclass"]: "" for n in nodes.values()}
    for _ in range(rounds):
        per: dict[str, list[str]] = {c: [] for c in label}
        for n in nodes.values():
            kids = ",".join(label[nodes[k]["eclass"]] for k in n["children"])
            per[n["eclass"]].append(f"{n['op']}({kids})")
        label = {c: hashlib.sha1("|".join(sorted(v)).encode()).hexdigest()[:16] for c, v in per.items()}
    return Counter(label.values())


def _two_calls(s: Session, names: list[str], limit: int) -> int:
    """The loop as it was: the analyses (and the eager rules) to their fixpoint, then the rules
    in a call of their own, until the rules' run changes nothing; its iterations."""
    analysis = s.analysis(names)
    rules = f"(run {s.ruleset_name(names)})"
    it = 0
    while it < limit:
        it += 1
        s.run_schedule(analysis)
        if not s.run_schedule(rules).updated:
            break
    s.analyse()
    return it


@pytest.mark.parametrize("kernel", KERNELS)
def test_the_loop_saturates_to_the_egraph_of_two_calls_an_iteration(kernel: str) -> None:
    names = list(SCHEDULES["default"])
    new = _session(kernel)
    rep = new.saturate(names, Limits())
    old = _session(kernel)
    its = _two_calls(old, names, Limits().iterations)
    assert rep.stop_reason == StopReason.SATURATED
    # the eager rules' new terms are analysed in the next iteration (``Session.iteration``): on
    # these kernels the same number of iterations, counting the quiet last one
    assert rep.iterations == its
    # the same e-graph, its classes numbered in another order
    assert new.size() == old.size()
    assert _shape(new) == _shape(old)


def test_an_iteration_that_only_the_analyses_change_is_quiet() -> None:
    names = list(SCHEDULES["default"])
    s = _session("examples/mul_by_9.mlir")
    s.saturate(names, Limits())
    # a new input no rule matches: the analyses give it its slots, the rules add nothing
    s._run_text('(In "an-input-no-rule-matches" 8)')
    rep = s.run_schedule(s.iteration(names))
    assert rep.updated  # the analyses' run changed the e-graph ...
    assert not rules_changed(rep)  # ... the rules' run did not: the e-graph is saturated


def test_the_size_is_read_once_an_iteration(monkeypatch: pytest.MonkeyPatch) -> None:
    names = list(SCHEDULES["default"])
    s = _session("tests/heir_cases/ir_splat.mlir")
    calls = []
    size = Session.size
    monkeypatch.setattr(Session, "size", lambda self: calls.append(1) or size(self))
    seen: list[RunReport] = []
    rep = s.saturate(names, Limits(), seen.append)
    # every iteration but the quiet last one, and the report's
    assert len(calls) == rep.iterations
    assert [r.iterations for r in seen] == list(range(1, rep.iterations))
    assert seen[-1].nodes == rep.nodes


def _worker(tmp_path: Path) -> tuple[guard._Worker, int]:
    r, w = os.pipe()
    os.set_blocking(r, False)
    worker = guard._Worker(None, [], Limits(), 0.0, w, -1, tmp_path)  # type: ignore[arg-type]
    worker.checkpoint_at = time.perf_counter()  # no checkpoint forked in this test
    worker.loaded_nodes = 100
    return worker, r


def _reports(fd: int) -> list[dict[str, object]]:
    try:
        data = os.read(fd, 1 << 16)
    except BlockingIOError:
        return []
    return [json.loads(line) for line in data.decode().splitlines()]


def test_the_worker_reports_iterations_only_as_often_as_the_caller_reads_them(tmp_path: Path) -> None:
    worker, fd = _worker(tmp_path)
    for i in range(1, 6):  # quick iterations: the first one reported
        worker.after_iteration(None, RunReport(StopReason.TIME_LIMIT, i, 150, 0.0))  # type: ignore[arg-type]
    reports = _reports(fd)
    assert [m["i"] for m in reports] == [1]
    assert reports[0]["rss"] == 0  # no memory estimate from 50 new e-nodes: not read
    assert worker.reported_at is not None
    worker.reported_at -= guard.ITER_REPORT_EVERY_S  # its last report is old enough
    worker.after_iteration(None, RunReport(StopReason.TIME_LIMIT, 6, 100 + 2 * guard.MEMORY_ESTIMATE_MIN_GROWTH,
                                           0.0))  # type: ignore[arg-type]
    reports = _reports(fd)
    assert [m["i"] for m in reports] == [6]
    assert int(reports[0]["rss"]) > 0  # type: ignore[call-overload]  # grown enough: read


def test_a_new_checkpoint_is_always_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    worker, fd = _worker(tmp_path)
    forks = []

    def fork(session: object, rep: RunReport) -> None:
        forks.append(rep.iterations)
        worker.checkpoint, worker.checkpoint_at = 1000 + rep.iterations, time.perf_counter()

    monkeypatch.setattr(worker, "fork_checkpoint", fork)
    worker.after_iteration(None, RunReport(StopReason.TIME_LIMIT, 1, 150, 0.0))  # type: ignore[arg-type]
    worker.checkpoint_at -= guard.CHECKPOINT_EVERY_S  # the next iteration forks one
    worker.after_iteration(None, RunReport(StopReason.TIME_LIMIT, 2, 150, 0.0))  # type: ignore[arg-type]
    worker.after_iteration(None, RunReport(StopReason.TIME_LIMIT, 3, 150, 0.0))  # type: ignore[arg-type]
    assert forks == [2]
    assert [(m["i"], m["ckpt"]) for m in _reports(fd)] == [(1, 0), (2, 1002)]
