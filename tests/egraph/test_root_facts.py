"""The e-graph stage's hand-back: the serialization taken before the noise analysis and the
result classes' facts looked up in the e-graph read as the old serialization after the analysis did."""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import time
from pathlib import Path

import pytest

from eqsat.egraph import guard, noise_facts
from eqsat.egraph.session import Limits, RunReport, Session, StopReason, parse_serialized
from eqsat.egraph.view import EGraphView
from eqsat.errors import InternalError
from eqsat.ir import Builder, Program, Type
from eqsat.rules import resolve
from eqsat.term_ops import SUMMARY_OPS
from eqsat.testing.programs import Shape, random_program

CT = Type((8,), "i16", True)
PT = Type((8,), "i16", False)


def old_way(prog: Program, rules: str | None) -> tuple[EGraphView, dict[str, list[int | None]]]:
    """The analysis run, then the whole e-graph serialized and its facts read from the JSON --
    without its summary e-nodes, read as ``[...]`` (``EGraphView`` skips them): the worker
    deletes them before it serializes (``Session.drop_summaries``)."""
    s = saturated(prog, rules)
    noise_facts.run(s)
    js = s.serialize()
    nodes: dict[str, dict[str, object]] = js["nodes"]  # type: ignore[assignment]
    js["nodes"] = {k: (dict(n, op="[...]") if n["op"] in SUMMARY_OPS else n) for k, n in nodes.items()}
    view = EGraphView(js, plain(prog))
    return view, noise_facts.facts(js, view).roots([view.root(k) for k in s.roots])


def saturated(prog: Program, rules: str | None) -> Session:
    s = Session(prog)
    if rules is not None:
        s.saturate([f.ruleset for f in resolve(rules)], Limits(iterations=4, nodes=20_000, time_s=10.0))
    return s


def plain(prog: Program) -> frozenset[str]:
    return frozenset(name for name, ty in prog.args if not ty.secret)


def new_way(prog: Program, rules: str | None) -> tuple[EGraphView, dict[str, list[int | None]] | None, Session]:
    s = saturated(prog, rules)
    built = guard._finish(s, RunReport(StopReason.SATURATED, 0, s.size(), 0.0), float("inf"))
    assert built.js is not None and built.analysed
    return EGraphView(parse_serialized(built.js), plain(prog)), built.floors, s


def same_view(a: EGraphView, b: EGraphView) -> bool:
    return a.nodes == b.nodes and a.roots == b.roots and a.class_nodes == b.class_nodes


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("rules", [None, "default"])
def test_same_view_and_facts_as_serializing_after_the_analysis(seed: int, rules: str | None) -> None:
    shape = Shape(slots=8, inputs=3, ops={"add": 1.0, "sub": 1.0, "mul": 1.0, "mul_const": 1.0, "rotate": 1.0},
                  results=2)
    prog = random_program(seed, 25, shape)
    old_view, old_facts = old_way(prog, rules)
    view, floors, s = new_way(prog, rules)
    assert noise_facts.seeds_present(s)
    assert same_view(view, old_view)
    assert floors == old_facts
    assert all(d is not None for d in floors["depth_floor"])  # secret results: facts, not plaintext


def test_unused_argument_takes_the_old_order() -> None:
    """An argument no live value reads has no ``In`` term until the analysis seeds it: the
    serialization then waits for the analysis (the view holds that term, as before)."""
    b = Builder("f")
    x, _, w = b.arg("x", CT), b.arg("unused", CT), b.arg("w", PT)
    prog = b.finish([b.mul(b.mul(x, x), w), b.add(w, w)])
    s = saturated(prog, None)
    assert not noise_facts.seeds_present(s)
    old_view, old_facts = old_way(prog, None)
    view, floors, _ = new_way(prog, None)
    assert same_view(view, old_view)
    assert floors == old_facts
    assert floors is not None and floors["depth_floor"] == [1, None]  # the plaintext result has no fact


def test_the_worker_sends_the_facts_after_the_e_graph() -> None:
    """A forked worker hands back the e-graph first and runs the analysis while the caller
    goes on; ``Built.facts`` waits for them, and they are the facts the caller computed itself
    before (``guard._finish`` in this process, the analysis first)."""
    b = Builder("f")
    x, y, w = b.arg("x", CT), b.arg("y", CT), b.arg("w", PT)
    xy = b.mul(x, y)
    prog = b.finish([b.add(b.mul(xy, xy), b.rotate(b.mul(x, w), 1)), b.add(x, b.rotate(y, 2))])
    built = guard.build(prog, [f.ruleset for f in resolve("default")], Limits(iterations=4, time_s=20.0),
                        float("inf"), time.perf_counter() + 60)
    assert built.analysed and built.facts_later and built.floors is None
    facts = built.facts()
    assert facts == old_way(prog, "default")[1]
    assert facts is not None and facts["depth_floor"] == [2, 0]  # (xy)^2: two levels; x + rot(y): none
    assert built.facts() is facts  # read once, kept
    assert built.timings["noise_analysis"] > 0


def test_a_worker_that_ends_without_its_facts_is_an_internal_error() -> None:
    r, w = os.pipe()
    os.write(w, b'{"ev": "iter"}\n')
    os.close(w)
    waiter = guard._FactsWaiter(r, [], b"", os.getpid(), time.perf_counter() + 5)
    with pytest.raises(InternalError, match="noise facts"):
        waiter.wait()


def test_the_error_says_how_the_worker_ended_and_what_it_left(tmp_path: Path) -> None:
    """A worker that dies without its facts: the error names its exit status and the note it
    left in the stage's folder when it could not hand back its own error."""
    (tmp_path / "failure-1.txt").write_text("worker 1: ValueError: x\nTraceback...\nValueError: x\n")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os._exit(3)
    os.close(w)
    waiter = guard._FactsWaiter(r, [], b"", pid, time.perf_counter() + 5, tmp_path)
    with pytest.raises(InternalError, match=r"exit status 3; .*ValueError: x"):
        waiter.wait()
    assert not tmp_path.exists()  # the waiter removed the stage's folder


def test_facts_sent_by_a_worker_that_exited_between_two_polls_are_kept(tmp_path: Path) -> None:
    """A quick worker sends its result and its noise facts and exits while the caller still
    reads its earlier messages: the caller finds it ended, and the facts written after the
    result are kept for ``Built.facts`` (they were dropped, and the caller then raised "ended
    before sending its noise facts": twice in CI under load)."""
    built = guard.Built(RunReport(StopReason.SATURATED, 1, 1, 0.0), "{}", [], 1, True)
    (tmp_path / "done.pickle").write_bytes(pickle.dumps(built))
    floors = {"noise_floor": [12], "depth_floor": [0], "ckks_depth_floor": [0]}
    iters = b"".join(json.dumps({"ev": "iter", "i": i, "nodes": 1, "rss": 0, "ckpt": 0, "wall": 0.0, "cpu": 0.0,
                                 "pad": "x" * 200}).encode() + b"\n" for i in range(400))
    assert len(iters) > 65536  # more than one read of the caller: the result is not in the first
    tail = (json.dumps({"ev": "done", "path": str(tmp_path / "done.pickle")}) + "\n"
            + json.dumps({"ev": "facts", "floors": floors, "s": 0.25}) + "\n").encode()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: everything at once, then gone
        os.close(r)
        data = memoryview(iters + tail)
        while data:
            data = data[os.write(w, data):]
        os._exit(0)
    os.close(w)
    time.sleep(0.2)  # it has written everything (the pipe holds it) and exited; not reaped yet
    sup = guard._Supervisor(Program("f", [], [], []), [], Limits(time_s=30.0), float("inf"), time.perf_counter() + 30)
    try:
        got = sup._follow(pid, r, -1, time.perf_counter())
        assert got.analysed
        waiter = guard._FactsWaiter(r, sup.rest, sup.buf, pid, time.perf_counter() + 5)
        assert waiter.wait() == (floors, 0.25)
    finally:
        with contextlib.suppress(OSError):
            os.close(r)
        shutil.rmtree(sup.tmp, ignore_errors=True)


def test_facts_already_read_with_the_e_graph_are_not_lost() -> None:
    r, w = os.pipe()
    os.close(w)
    floors = {"noise_floor": [12], "depth_floor": [0], "ckks_depth_floor": [0]}
    waiter = guard._FactsWaiter(r, [{"ev": "facts", "floors": floors, "s": 0.5}], b"", os.getpid(),
                                time.perf_counter() + 5)
    assert waiter.wait() == (floors, 0.5)


def test_a_failed_analysis_raises_the_workers_own_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker hands back the e-graph, then its analysis fails: ``Built.facts`` raises that
    error (handed back in the stage's folder, which the waiter keeps until it is done), not a
    bare "ended" (the folder was removed before, so the error was lost)."""
    def broken(session: object) -> None:
        raise ValueError("analysis broke")

    monkeypatch.setattr(noise_facts, "run", broken)  # the worker is a fork: it inherits this
    b = Builder("f")
    x, y = b.arg("x", CT), b.arg("y", CT)
    prog = b.finish([b.mul(b.add(x, y), y)])
    built = guard.build(prog, [f.ruleset for f in resolve("default")], Limits(iterations=2, time_s=20.0),
                        float("inf"), time.perf_counter() + 60)
    assert built.facts_later
    with pytest.raises(ValueError, match="analysis broke"):
        built.facts()
