"""The e-graph stage under a hard deadline: load, saturate, analyse and serialize in a forked worker.

In: an IR ``Program``, the rulesets, ``Limits`` (``time_s`` is the saturation budget here),
how many e-nodes the noise analysis runs up to, and the moment (``time.perf_counter()``)
by which the stage must hand back its e-graph.  Out: ``Built`` -- the run report, the
serialized e-graph (``Session.serialize_text``), the result markers and their noise facts,
per-stage seconds, and the stage a limit stopped (``stopped_in``); ``Built.js`` is None when
the deadline passed before the program was even loaded (the caller then keeps the source
program).

Why a process: egglog 13.2 runs one iteration as one call into Rust that Python cannot
interrupt (no timeout, no interrupt flag; its back-off scheduler still performs the whole
search: measured on the slot-uniform program of seed 218 before its fix, iteration 12 took 15
s and 13 did not return), and one iteration can explode. So the limits between iterations
(``Session.saturate``) are not enough. The worker is a fork of the caller; after a complete
iteration, at most every ``CHECKPOINT_EVERY_S``, it forks an idle *checkpoint* of itself (copy
on write, 10-40 ms for a fork of a process holding eqsat's imports, and as much for its
teardown) and ends the previous one; right after loading too when the load took that long. A
stopped worker with no checkpoint yet loaded quickly: the caller then loads the program again
in a new worker and hands that e-graph back (``_Supervisor._reload``), so a small run that
saturates within ``CHECKPOINT_EVERY_S`` forks nothing but its worker. The caller waits on the
worker's messages; when the saturation budget is spent (which shrinks as the e-graph grows:
the stages after saturation need time in proportion to its size, ``post_reserve``), or the
worker's memory outgrows what the node limit allows (bytes per e-node measured between
iterations), it kills the worker and tells the newest checkpoint to finish: the e-graph of the
last complete iteration is analysed and serialized, with stop reason ``time_limit`` or
``node_limit``. Where ``os.fork`` is missing (or ``EQSAT_IN_PROCESS=1``) the stage runs in the
caller, limits checked between iterations.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import pickle
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from eqsat.algebra import linmap
from eqsat.egraph import noise_facts, prefork, scratch
from eqsat.egraph.session import Limits, RunReport, Session, StopReason
from eqsat.errors import InternalError
from eqsat.ir import Program

#: the memory an e-node may take before the node limit counts as reached inside an iteration:
#: the larger of this floor and the growth measured between iterations, times ``MEMORY_SLACK``
MIN_BYTES_PER_NODE = 2048
MEMORY_SLACK = 2.0
#: below this much growth the memory check never stops a worker (allocator noise, tiny limits)
MIN_GROWTH_BYTES = 256 << 20
POLL_S = 0.05
#: a new checkpoint after an iteration only when the newest is this old (each costs a fork):
#: a stop from outside loses at most this much saturation
CHECKPOINT_EVERY_S = 0.25
#: the worker reports an iteration (size, memory, clocks: the caller's reserve and memory
#: estimate) after the first one, after a new checkpoint, and otherwise only when its last
#: report is this old: a report per iteration (a pipe write that wakes the caller, and a
#: read of ``/proc``) cost 0.1 ms of iterations that take 1-2 ms (``ir_splat``: 19 of them)
#: -- far below the caller's poll (``POLL_S``), which reads the reports
ITER_REPORT_EVERY_S = 0.02
#: the e-graph growth (e-nodes since loading) below which the caller does not estimate the
#: memory an e-node takes (``_Supervisor._follow``): the worker then sends no memory reading
MEMORY_ESTIMATE_MIN_GROWTH = 1000
#: how long after the saturation's stop a told checkpoint may always take to hand back (else:
#: no e-graph); it may take longer while the caller's deadline, less its reserve, allows
HAND_BACK_MIN_S = 1.0
#: seconds per e-node the stages after saturation take (analysis, serialization, extraction,
#: placement, the random-input check), the larger of two measurements on a quiet machine: a
#: 2,000-op random arithmetic program, 10,776 e-nodes, 4.2 s after saturation (0.39 ms per
#: node), and the 2x2 box blur of a 64x64 image from loops, 28,683 e-nodes, 3.4 s (0.12 ms)
POST_S_PER_NODE = 0.4e-3
#: the same for an e-graph above the noise analysis' bound (``analysis_nodes``): neither the
#: analysis nor an automatic ILP extraction (``eqsat.pipeline.ILP_AUTO_NODES``, below that
#: bound) runs on it, only the slot analyses, serialization, greedy extraction and the checks:
#: twice the larger of two measurements (at load average 2.7 on 2 cores), the slot-uniform
#: programs of 49 and 64 slots whose slot rules grew 44,043 and 57,632 e-nodes, 1.1 s and 1.8 s
#: after saturation (25 and 31 us per node). At 0.4 ms per node, 16-23 s were reserved for
#: them: saturation was stopped at a third of a 30 s budget and the e-graph it handed back
#: was dropped for the source program, which has no vector form
POST_S_PER_PLAIN_NODE = 60e-6
#: the reserve never takes more than this share of the time left after loading: a big inert
#: source under load (28,683 e-nodes at 3x slowdown reserves more than a 30 s budget) must
#: still get iterations, or the result is the unoptimized source
MAX_RESERVE_SHARE = 0.5
#: the largest program (IR nodes) given to an early worker (``eqsat.egraph.prefork``) as a
#: pickled job; a bigger one's worker is forked here, as before.  Pickling and unpickling a
#: program cost 50-100 us per node each way at load average 8 on 2 cores (its nodes are
#: frozen dataclasses): 0.27 s each way for a 5,123-node program, 3.5 + 4.6 s for a
#: 45,058-node one, more than the early start saves (0.1-0.2 s); at 500 nodes at most 0.1 s
EARLY_MAX_NODES = 500


def post_reserve(nodes: int, slowdown: float = 1.0, analysed: bool = True) -> float:
    """The time to keep, before the call's deadline, for the stages after saturation of an
    e-graph of ``nodes`` e-nodes: ``POST_S_PER_NODE`` per node (``POST_S_PER_PLAIN_NODE`` when
    the noise analysis will not run on it: not ``analysed``), times ``slowdown`` -- the
    worker's wall time over its CPU time so far (at least 1): a machine that gave the
    saturation half a core will stretch the later stages as much."""
    return (POST_S_PER_NODE if analysed else POST_S_PER_PLAIN_NODE) * nodes * max(1.0, slowdown)


@dataclass
class Built:
    run: RunReport
    #: the e-graph as egglog's JSON text (``Session.serialize_text``; ``session.parse_serialized``
    #: reads it): a text crosses from the worker to the caller at the cost of a copy, where the
    #: parsed dicts cost pickling and unpickling each (0.03 s for 2,000 e-nodes)
    js: str | None
    roots: list[int]
    size: int
    analysed: bool
    timings: dict[str, float] = field(default_factory=dict)
    stopped_in: str | None = None  # "load" or "saturate" when a limit cut that stage short
    #: the linear-map and plaintext-vector handles the e-graph refers to (``eqsat.algebra.linmap``)
    handles: tuple[dict[str, object], dict[str, object]] = field(default_factory=lambda: ({}, {}))
    #: the noise analysis' facts of the result classes (``noise_facts.root_facts``) when ``analysed``
    floors: dict[str, list[int | None]] | None = None
    #: the worker runs the analysis after handing back the e-graph (``_Worker.main``): the
    #: caller extracts meanwhile and reads the facts when it needs them (``facts``)
    facts_later: bool = False
    #: the summary e-nodes deleted before serializing (``Session.drop_summaries``): the e-graph's
    #: e-nodes are the view's ``nodes`` and these (``pipeline``'s count, as before they went)
    summary_nodes: int = 0
    _waiter: _FactsWaiter | None = field(default=None, repr=False)

    def facts(self) -> dict[str, list[int | None]] | None:
        """The results' noise facts (None when not ``analysed``, or when the worker did not
        send them by the stage's deadline), waited for when they come later."""
        if self._waiter is not None:
            self.floors, seconds = self._waiter.wait()
            self.timings["noise_analysis"] = seconds
            self._waiter = None
        return self.floors

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_waiter"] = None  # the caller's end of a pipe: never pickled
        return state


#: workers that handed back their result and are ending (reaped by the next ``build``)
_UNREAPED: list[int] = []


def reap(wait: bool = False) -> None:
    """Reap the workers that handed back their result and have ended, and the ended early
    workers (all of them: ``wait``)."""
    prefork.reap(wait)
    for pid in list(_UNREAPED):
        with contextlib.suppress(ChildProcessError):
            if not os.waitpid(pid, 0 if wait else os.WNOHANG)[0]:
                continue
        _UNREAPED.remove(pid)


class Beside(Protocol):
    """Work of the caller's that does not need the e-graph (``eqsat.source_ahead``): started in
    a thread of the caller once the worker runs, so the two overlap on a second core."""

    def start(self) -> None: ...

    def join(self) -> None: ...


def build(prog: Program, rulesets: Sequence[Any], limits: Limits, analysis_nodes: float,
          deadline: float, reserve: float = 0.0, beside: Beside | None = None) -> Built:
    """The saturated e-graph of ``prog`` by ``deadline`` (see the module docstring).
    ``reserve``: the seconds the caller needs after this stage if it gets no e-graph (the
    source program's own management and report): a checkpoint told to hand back is waited
    for until ``deadline - reserve`` (at least ``HAND_BACK_MIN_S``), not past the deadline.
    ``beside``: started once the worker runs (never before a fork of this process: a fork
    while another thread runs could copy a lock it holds; joined before any later fork)."""
    reap()
    budget = min(limits.time_s, max(0.0, deadline - time.perf_counter()))
    limits = replace(limits, time_s=budget)
    if not hasattr(os, "fork") or os.environ.get("EQSAT_IN_PROCESS") == "1":
        return _in_process(prog, rulesets, limits, analysis_nodes, beside)
    return _Supervisor(prog, rulesets, limits, analysis_nodes, deadline, reserve, beside).run(prefork.take())


def _in_process(prog: Program, rulesets: Sequence[Any], limits: Limits, analysis_nodes: float,
                beside: Beside | None = None) -> Built:
    # with a thread beside (in process only: a forked worker's e-graphs never meet the parent's
    # threads), the garbage collector stays off until that thread has ended. It runs in
    # whichever thread allocates when it triggers, and cyclic garbage holding an egglog
    # e-graph (a caller's: a test's, an earlier in-process run's) collected in ``beside``'s
    # thread is an object pyo3 may not drop off the thread that made it ("unsendable ...
    # dropped on another thread": leaked, with a warning). A collection first would cost a
    # walk of the whole heap (40 ms in a test process)
    collecting = beside is not None and gc.isenabled()
    if collecting:
        gc.disable()
    try:
        if beside is not None:
            beside.start()
        t0 = time.perf_counter()
        session = Session(prog)
        t1 = time.perf_counter()
        run = session.saturate(rulesets, limits)
        built = _finish(session, run, analysis_nodes)
        built.timings = {"load": t1 - t0, "saturate": run.time_s, **built.timings}
    finally:
        if beside is not None:
            beside.join()
        if collecting:
            gc.enable()
    return built


def _finish(session: Session, run: RunReport, analysis_nodes: float, later: bool = False,
            size: int | None = None) -> Built:
    """Analysis (when the e-graph is small enough) and serialization of a saturated session.
    ``later``: when the serialization does not wait for the analysis, leave the analysis to
    the caller (``_analyse``; ``Built.facts_later``). ``size``: ``session.size()`` when the
    caller has it (``Session.saturate``'s report counts the e-graph as it returns it)."""
    t0 = time.perf_counter()
    if size is None:
        size = session.size()
    analysed = size <= analysis_nodes
    session.drop_slot_facts()  # saturation is over: rows no one reads, not serialized
    # nor the summary e-nodes, never extracted (nor matched by the noise analysis): a third of
    # the e-nodes to serialize, hand back, parse and view (``Session.drop_summaries``)
    summaries = session.drop_summaries()
    floors = None
    js = None
    analysis_s = 0.0
    pending = False
    if analysed:
        # serialized before the analysis when that changes no term (the usual case): its
        # tables (three rows per e-class) are then not serialized, parsed and handed back,
        # and the result classes' facts are looked up in the e-graph instead
        if noise_facts.seeds_present(session):
            js = session.serialize_text()
        if later and js is not None:
            pending = True
        else:
            floors, analysis_s = _analyse(session)
    if js is None:
        js = session.serialize_text()
    stopped = "saturate" if run.stop_reason in (StopReason.TIME_LIMIT, StopReason.NODE_LIMIT) else None
    built = Built(run, js, list(session.roots), size, analysed,
                  {"serialize": time.perf_counter() - t0, "noise_analysis": analysis_s}, stopped,
                  _new_handles(), floors)  # type: ignore[arg-type]
    built.facts_later = pending
    built.summary_nodes = summaries
    return built


def _analyse(session: Session) -> tuple[dict[str, list[int | None]], float]:
    """The noise analysis run on the session; the facts of its results and its seconds."""
    t0 = time.perf_counter()
    noise_facts.run(session)
    return noise_facts.root_facts(session), time.perf_counter() - t0


#: the handle keys the caller already had when the worker was forked (None: in the caller)
_KNOWN: tuple[set[str], set[str]] | None = None


def _new_handles() -> tuple[dict[str, object], dict[str, object]]:
    """The linear-map and vector handles registered in this worker (the caller lacks them)."""
    if _KNOWN is None:
        return {}, {}
    maps, vectors = linmap.registry()
    return ({k: v for k, v in maps.items() if k not in _KNOWN[0]},
            {k: v for k, v in vectors.items() if k not in _KNOWN[1]})


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class _Supervisor:
    """The caller's side: fork the worker, follow its messages, stop it, collect the result."""

    def __init__(self, prog: Program, rulesets: Sequence[Any], limits: Limits, analysis_nodes: float,
                 deadline: float, reserve: float = 0.0, beside: Beside | None = None) -> None:
        self.prog, self.rulesets, self.limits = prog, rulesets, limits
        self.beside = beside
        self.analysis_nodes = analysis_nodes
        self.deadline = deadline
        self.reserve = reserve
        self.budget_at = time.perf_counter() + limits.time_s  # the saturation budget
        self.stop_at = self.budget_at
        self.tmp = Path(tempfile.mkdtemp(prefix="eqsat-stage-", dir=scratch.root()))
        self.buf = b""
        self.rest: list[dict[str, object]] = []

    def run(self, early: prefork.Handle | None = None) -> Built:
        """Fork the worker, or give the job to ``early``, a worker forked before the caller
        read its input (``eqsat.egraph.prefork``), and follow it to its result."""
        start = time.perf_counter()
        if early is not None and len(self.prog.nodes) <= EARLY_MAX_NODES and self._send_job(early, start):
            pid, msg_r, go_w = early.pid, early.msg_r, early.go_w
        else:
            prefork.end(early)
            msg_r, msg_w = os.pipe()
            go_r, go_w = os.pipe()
            start = time.perf_counter()
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                global _KNOWN
                maps, vectors = linmap.registry()
                _KNOWN = (set(maps), set(vectors))
                os.close(msg_r)
                os.close(go_w)
                _Worker(self.prog, self.rulesets, self.limits, self.analysis_nodes, msg_w, go_r, self.tmp).main()
            os.close(msg_w)
            os.close(go_r)
        if self.beside is not None:  # the worker runs: no fork of this process before ``_reload``
            self.beside.start()
        keep = False
        try:
            built = self._follow(pid, msg_r, go_w, start)
            if built.facts_later:  # the worker's pipe now carries its noise facts alone
                # the waiter owns the stage's folder from here: a failed analysis hands back its
                # error there (removed before it, the error was lost and the worker just ended)
                built._waiter = _FactsWaiter(msg_r, self.rest, self.buf, pid,
                                             max(self.deadline, time.perf_counter()) + HAND_BACK_MIN_S, self.tmp)
                keep = True
            return built
        except BaseException:  # Ctrl-C, a worker error: the worker must not outlive the call
            with contextlib.suppress(OSError, ChildProcessError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            raise
        finally:
            for fd in (go_w,) if keep else (msg_r, go_w):
                with contextlib.suppress(OSError):
                    os.close(fd)
            if not keep:
                shutil.rmtree(self.tmp, ignore_errors=True)

    def _send_job(self, early: prefork.Handle, start: float) -> bool:
        """Send the job to the early worker (False: it cannot be pickled, or the worker is gone)."""
        try:
            job = pickle.dumps(Job(self.prog, list(self.rulesets), self.limits, self.analysis_nodes, str(self.tmp),
                                   start, linmap.registry()))
        except Exception:  # e.g. an egglog ruleset object: this worker forks from here instead
            return False
        try:
            view = memoryview(job)
            while view:  # blocks while the worker still declares its rules: it is the one waited for
                view = view[os.write(early.job_w, view):]
            os.close(early.job_w)
        except OSError:
            return False
        return True

    def _messages(self, fd: int, timeout: float) -> list[dict[str, object]]:
        ready, _, _ = select.select([fd], [], [], max(0.0, timeout))
        if ready:
            chunk = os.read(fd, 65536)
            self.buf += chunk
        lines = self.buf.split(b"\n")
        self.buf = lines.pop()
        return [json.loads(x) for x in lines if x]

    def _drain(self, fd: int) -> list[dict[str, object]]:
        """Every message already in the pipe (its writer has exited: nothing more is waited for)."""
        while select.select([fd], [], [], 0.0)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:  # closed: all of it read
                break
            self.buf += chunk
        lines = self.buf.split(b"\n")
        self.buf = lines.pop()
        return [json.loads(x) for x in lines if x]

    def _follow(self, pid: int, msg_r: int, go_w: int, start: float) -> Built:
        loaded_at: float | None = None
        rss0 = nodes0 = 0
        bytes_per_node = float(MIN_BYTES_PER_NODE)
        checkpoint = False
        checkpoint_pid = 0
        checkpoint_nodes = 0  # the size of the e-graph the newest checkpoint would hand back
        reason = ""
        while True:
            msgs = self._messages(msg_r, POLL_S)
            for k, m in enumerate(msgs):
                if m["ev"] == "load":
                    loaded_at = start + float(m["s"])  # type: ignore[arg-type]
                    rss0, nodes0, checkpoint = int(m["rss"]), int(m["nodes"]), True  # type: ignore[call-overload]
                    checkpoint_pid, checkpoint_nodes = int(m["ckpt"]), nodes0  # type: ignore[call-overload]
                elif m["ev"] == "iter":
                    nodes = int(m["nodes"])  # type: ignore[call-overload]
                    if int(m["ckpt"]) != checkpoint_pid:  # type: ignore[call-overload]
                        checkpoint_pid, checkpoint_nodes = int(m["ckpt"]), nodes  # type: ignore[call-overload]
                    # the whole call has one deadline: keep what the later stages need for the
                    # e-graph handed back (this iteration's or the newest checkpoint's, the larger
                    # need); recomputed, not only lowered: past the analysis' bound it shrinks
                    slowdown = float(m["wall"]) / max(1e-3, float(m["cpu"]))  # type: ignore[arg-type]
                    reserve = max(post_reserve(k, slowdown, k <= self.analysis_nodes)
                                  for k in (nodes, checkpoint_nodes))
                    if loaded_at is not None:  # never all of it: saturation keeps half the time after loading
                        reserve = min(reserve, MAX_RESERVE_SHARE * max(0.0, self.deadline - loaded_at))
                    self.stop_at = min(self.budget_at, self.deadline - reserve)
                    grown = int(m["nodes"]) - nodes0  # type: ignore[call-overload]
                    if grown > MEMORY_ESTIMATE_MIN_GROWTH:
                        bytes_per_node = max(bytes_per_node, (int(m["rss"]) - rss0) / grown)  # type: ignore[call-overload]
                elif m["ev"] == "done":  # reaped later: its teardown need not hold up the caller
                    _UNREAPED.append(pid)
                    self.rest = msgs[k + 1:]  # read already: its noise facts, when they come later
                    return self._result(m, loaded_at, start)
                elif m["ev"] == "error":
                    os.waitpid(pid, 0)
                    return self._result(m, loaded_at, start)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:  # its last messages were written before it exited: all of them are read
                # (a quick worker sends its result and its noise facts, and exits, between two
                # polls: the facts after the result were dropped here, and ``Built.facts`` then
                # found the pipe closed -- under load, twice in CI)
                msgs = self._drain(msg_r)
                for k, m in enumerate(msgs):
                    if m["ev"] in ("done", "error"):
                        self.rest = msgs[k + 1:]
                        return self._result(m, loaded_at, start)
                raise InternalError(f"the e-graph worker died ({_describe(status)})")
            now = time.perf_counter()
            if now >= self.stop_at:
                reason = "T"
            elif checkpoint and _rss(pid) > rss0 + MEMORY_SLACK * max(self.limits.nodes * bytes_per_node,
                                                                        MIN_GROWTH_BYTES):
                reason = "N"
            if reason:
                break
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        if not checkpoint:  # still loading: no e-graph to hand back
            return self._nothing(reason, start, "load")
        if not checkpoint_pid:  # it loaded quickly and forked no checkpoint yet: load again, hand back
            return self._reload(reason, loaded_at, start)
        try:
            os.write(go_w, reason.encode())
        except BrokenPipeError:  # no checkpoint left to hand back an e-graph
            return self._nothing(reason, start, "saturate")
        # the checkpoint analyses and serializes its e-graph; past ``deadline - reserve`` the
        # caller would overrun its deadline with the source's own fallback, so it stops waiting
        # (a big e-graph under load could take 10 s and more: a 20,000-op program)
        while time.perf_counter() < max(self.deadline - self.reserve, self.stop_at + HAND_BACK_MIN_S):
            for m in self._messages(msg_r, POLL_S):
                if m["ev"] in ("done", "error"):
                    return self._result(m, loaded_at, start)
        if checkpoint_pid:
            with contextlib.suppress(OSError):
                os.kill(checkpoint_pid, signal.SIGKILL)
        return self._nothing(reason, start, "saturate")

    def _reload(self, reason: str, loaded_at: float | None, start: float) -> Built:
        """The loaded, unsaturated e-graph from a new worker, when the stopped one had forked no
        checkpoint (its load took less than ``CHECKPOINT_EVERY_S``: repeating it is cheaper than
        forking a checkpoint on every run); waited for as a checkpoint's hand-back is."""
        stop = StopReason.TIME_LIMIT if reason == "T" else StopReason.NODE_LIMIT
        if self.beside is not None:  # one thread when forking
            self.beside.join()
        msg_r, msg_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # never returns
            global _KNOWN
            maps, vectors = linmap.registry()
            _KNOWN = (set(maps), set(vectors))
            os.close(msg_r)
            _Worker(self.prog, self.rulesets, self.limits, self.analysis_nodes, msg_w, -1, self.tmp,
                    reload_only=stop).main()
        os.close(msg_w)
        self.buf = b""
        try:
            while time.perf_counter() < max(self.deadline - self.reserve, self.stop_at + HAND_BACK_MIN_S):
                for m in self._messages(msg_r, POLL_S):
                    if m["ev"] in ("done", "error"):
                        os.waitpid(pid, 0)
                        return self._result(m, loaded_at, start)
                if os.waitpid(pid, os.WNOHANG)[0]:  # ended: its result may be in the pipe still
                    pid = 0
                    for m in self._drain(msg_r):
                        if m["ev"] in ("done", "error"):
                            return self._result(m, loaded_at, start)
                    break
        finally:
            os.close(msg_r)
            if pid:
                with contextlib.suppress(OSError, ChildProcessError):
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
        return self._nothing(reason, start, "saturate")

    def _nothing(self, reason: str, start: float, stage: str) -> Built:
        stop = StopReason.TIME_LIMIT if reason == "T" else StopReason.NODE_LIMIT
        return Built(RunReport(stop, 0, 0, 0.0, interrupted=True), None, [], 0, False,
                     {"load": time.perf_counter() - start}, stage)

    def _result(self, m: dict[str, object], loaded_at: float | None, start: float) -> Built:
        with open(str(m["path"]), "rb") as f:
            payload = pickle.load(f)
        if m["ev"] == "error":
            raise payload
        built: Built = payload
        linmap.merge_registry(*built.handles)  # type: ignore[arg-type]
        load_s = (loaded_at - start) if loaded_at is not None else 0.0
        built.timings = {"load": load_s, "saturate": built.run.time_s, **built.timings}
        return built


class _FactsWaiter:
    """The caller's end of a worker that handed back its e-graph and runs the noise analysis
    (``Built.facts_later``): ``wait`` reads its ``facts`` message, by ``until`` (a
    ``time.perf_counter()`` value; past it the worker is ended and there are no facts)."""

    def __init__(self, fd: int, read: list[dict[str, object]], buf: bytes, pid: int, until: float,
                 folder: Path | None = None) -> None:
        self.fd, self.read, self.buf, self.pid, self.until = fd, read, buf, pid, until
        self.folder = folder  # the stage's scratch folder, removed on ``close``

    def wait(self) -> tuple[dict[str, list[int | None]] | None, float]:
        try:
            while True:
                lines = self.buf.split(b"\n")
                self.buf = lines.pop()
                for m in [*self.read, *(json.loads(x) for x in lines if x)]:
                    if m.get("ev") == "facts":
                        return m["floors"], float(m["s"])  # type: ignore[return-value, arg-type]
                    if m.get("ev") == "error":  # the analysis failed: its own error, as before deferral
                        with open(str(m["path"]), "rb") as f:
                            raise pickle.load(f)
                self.read = []
                left = self.until - time.perf_counter()
                if left <= 0:
                    break
                ready, _, _ = select.select([self.fd], [], [], left)
                if ready:
                    chunk = os.read(self.fd, 65536)
                    if not chunk:  # the worker ended without them: how it ended, and what it left
                        raise InternalError(f"the e-graph worker ended before sending its noise facts "
                                            f"({self._ending()})")
                    self.buf += chunk
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            return None, 0.0
        finally:
            self.close()

    def _ending(self) -> str:
        """How the worker ended (its exit status, waited for briefly) and the note it left in
        the stage's folder when it could not hand back its error (``_Worker.note_failure``)."""
        how = "its exit status unknown"
        for _ in range(200):  # its pipe closes as it exits: the status follows within moments
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere, or not this process's child
                break
            if done:
                how = _describe(status)
                break
            time.sleep(0.005)
        notes = sorted(self.folder.glob("failure-*.txt")) if self.folder is not None else []
        for note in notes:
            with contextlib.suppress(OSError):
                how += "; " + " | ".join(note.read_text().strip().splitlines()[-3:])
        return how

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __del__(self) -> None:
        self.close()


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return f"signal {sig}" + (" (out of memory?)" if sig == signal.SIGKILL else "")
    return f"exit status {os.WEXITSTATUS(status)}"


@dataclass
class Job:
    """What an early worker (``eqsat.egraph.prefork``) gets: ``_Worker``'s arguments, the
    caller's clock at the job's start (``time.perf_counter`` is the system's monotonic clock,
    the same in both processes), and the linear maps the caller registered."""

    prog: Program
    rulesets: list[Any]
    limits: Limits
    analysis_nodes: float
    tmp: str
    start: float
    registry: tuple[dict[str, Any], dict[str, Any]]

    def run(self, msg_w: int, go_r: int) -> None:
        """The early worker's side: run this job as a forked worker would (never returns)."""
        global _KNOWN
        linmap.merge_registry(*self.registry)
        maps, vectors = linmap.registry()
        _KNOWN = (set(maps), set(vectors))
        _Worker(self.prog, self.rulesets, self.limits, self.analysis_nodes, msg_w, go_r, Path(self.tmp),
                self.start).main()


class _Worker:
    """The forked side: load, saturate with a checkpoint after every iteration, hand back."""

    def __init__(self, prog: Program, rulesets: Sequence[Any], limits: Limits, analysis_nodes: float,
                 msg_w: int, go_r: int, tmp: Path, origin: float | None = None,
                 reload_only: StopReason | None = None) -> None:
        self.prog, self.rulesets, self.limits = prog, rulesets, limits
        #: load and hand back at once, stopped for this reason (no saturation)
        self.reload_only = reload_only
        self.analysis_nodes = analysis_nodes
        self.msg_w, self.go_r, self.tmp = msg_w, go_r, tmp
        self.checkpoint = 0
        self.checkpoint_at = 0.0
        self.loaded_nodes = 0
        self.reported_at: float | None = None  # the last iteration report (``after_iteration``)
        self.ended: list[int] = []
        self.start = time.perf_counter()
        #: the caller's ``start`` (``_Supervisor.run``): the loading time is reported from it
        self.origin = self.start if origin is None else origin
        self.cpu0 = time.process_time()

    def send(self, **msg: object) -> None:
        os.write(self.msg_w, (json.dumps(msg) + "\n").encode())

    def hand_back(self, obj: object, ev: str) -> None:
        path = self.tmp / f"{ev}-{os.getpid()}.pickle"
        try:
            data = pickle.dumps(obj)
        except Exception:  # an exception that does not pickle (e.g. from Rust): its text
            data = pickle.dumps(InternalError(f"{type(obj).__name__}: {obj}"))
        path.write_bytes(data)
        self.send(ev=ev, path=str(path))

    def main(self) -> None:
        code = 0
        gc.freeze()  # what the caller had is never garbage here: collections skip it (see eqsat.serve)
        try:
            session = Session(self.prog)
            loaded = time.perf_counter() - self.origin
            if self.reload_only:  # the caller stopped a worker that had no checkpoint yet
                run = RunReport(self.reload_only, 0, session.size(), 0.0, interrupted=True)
                session.analyse()
                self.hand_back(_finish(session, run, self.analysis_nodes), "done")
                return
            if time.perf_counter() - self.start >= CHECKPOINT_EVERY_S:
                self.fork_checkpoint(session, RunReport(StopReason.TIME_LIMIT, 0, session.size(), 0.0))
            else:  # a quick load is cheaper to repeat than to fork for (``_Supervisor._reload``)
                self.checkpoint_at = time.perf_counter()
            self.loaded_nodes = session.size()
            self.send(ev="load", s=loaded, rss=_rss(os.getpid()), nodes=self.loaded_nodes, ckpt=self.checkpoint)
            run = session.saturate(self.rulesets, self.limits, lambda rep: self.after_iteration(session, rep))
            # the result first: ending the checkpoint (a process as big as this one) waits for its
            # teardown. The report's count is the e-graph's as saturate returned it, this one: not
            # counted again (egglog's print-size, 0.1-0.2 ms of every request)
            built = _finish(session, run, self.analysis_nodes, later=True, size=run.nodes)
            self.hand_back(built, "done")
            if built.facts_later:  # the caller extracts meanwhile (``Built.facts``)
                floors, seconds = _analyse(session)
                self.send(ev="facts", floors=floors, s=seconds)
            self.end_checkpoint()
            pagewarm = sys.modules.get("eqsat.pagewarm")  # a served request's worker: what it wrote
            if pagewarm is not None:
                pagewarm.record()
        except BaseException as e:
            try:
                self.end_checkpoint()
                self.hand_back(e, "error")
            except BaseException as e2:
                code = 1
                self.note_failure(e, e2)
            # ended here, before the handler clears ``e``: its traceback holds the frames of
            # the failed call and with them an egglog e-graph, whose drop in a fork waits
            # forever for egglog's thread pool (the caller then waited forever for this
            # process: a loader error on slot-uniform seed 76379 hung the slow run)
            os._exit(code)
        finally:
            os._exit(code)

    def note_failure(self, error: BaseException, handing_back: BaseException) -> None:
        """The worker's last word when handing back ``error`` failed too: both, on its standard
        error and in the stage's folder (the caller's ``_FactsWaiter`` reports it)."""
        text = (f"worker {os.getpid()}: {type(error).__name__}: {error}; handing it back: "
                f"{type(handing_back).__name__}: {handing_back}\n"
                + "".join(traceback.format_exception(error)))
        with contextlib.suppress(BaseException):
            os.write(2, text.encode())
        with contextlib.suppress(BaseException):
            (self.tmp / f"failure-{os.getpid()}.txt").write_text(text)

    def after_iteration(self, session: Session, rep: RunReport) -> None:
        now = time.perf_counter()
        forked = now - self.checkpoint_at >= CHECKPOINT_EVERY_S
        if forked:
            self.fork_checkpoint(session, rep)
            now = time.perf_counter()
        if not forked and self.reported_at is not None and now - self.reported_at < ITER_REPORT_EVERY_S:
            return  # reported recently (``ITER_REPORT_EVERY_S``)
        self.reported_at = now
        # the memory only where the caller reads it (an e-graph grown enough to estimate from)
        grown = rep.nodes - self.loaded_nodes > MEMORY_ESTIMATE_MIN_GROWTH
        self.send(ev="iter", i=rep.iterations, nodes=rep.nodes, rss=_rss(os.getpid()) if grown else 0,
                  ckpt=self.checkpoint, wall=now - self.start, cpu=time.process_time() - self.cpu0)

    def fork_checkpoint(self, session: Session, rep: RunReport) -> None:
        previous = self.checkpoint
        pid = os.fork()
        if pid == 0:
            self.wait_and_finish(session, rep)  # never returns
        self.checkpoint, self.checkpoint_at = pid, time.perf_counter()
        if previous:
            os.kill(previous, signal.SIGKILL)
            self.ended.append(previous)
        self.ended = [p for p in self.ended if not os.waitpid(p, os.WNOHANG)[0]]  # reap without waiting

    def end_checkpoint(self) -> None:
        if self.checkpoint:
            os.kill(self.checkpoint, signal.SIGKILL)
            self.ended.append(self.checkpoint)
            self.checkpoint = 0
        for p in self.ended:
            os.waitpid(p, 0)
        self.ended = []

    def wait_and_finish(self, session: Session, rep: RunReport) -> None:
        """A checkpoint: idle until told to finish (or until the caller closes the pipe)."""
        code = 0
        # nothing the worker holds is collected here: a collected egglog e-graph (e.g. a rule
        # set's temporary one, garbage in the worker) waits in its drop for egglog's thread
        # pool, which a fork has no threads of -- forever (found with a checkpoint per iteration)
        gc.freeze()
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            how = os.read(self.go_r, 1)
            if how:
                rep.stop_reason = StopReason.NODE_LIMIT if how == b"N" else StopReason.TIME_LIMIT
                rep.interrupted = True
                session.analyse()
                rep.nodes = session.size()
                self.hand_back(_finish(session, rep, self.analysis_nodes), "done")
        except BaseException as e:
            try:
                self.hand_back(e, "error")
            except BaseException:
                code = 1
        finally:
            os._exit(code)
