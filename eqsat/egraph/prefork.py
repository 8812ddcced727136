"""The e-graph worker started early: it declares the rules while the caller reads the input.

In: ``start()``, called by a command before it reads its one input (``eqsat optimize IN``).
Out: a forked process that imports the e-graph stage and declares the term language, the
default rules and the noise analysis in a blank e-graph (``session.prepare``), then waits
for its one job; ``take()`` hands the waiting process to ``eqsat.egraph.guard``, which sends
it the program and then follows it exactly as a worker it forked itself (checkpoints,
limits, hand-back).  ``discard()`` ends an unused one (the command failed before the
e-graph stage, or ran without it); it also ends when the caller exits.

Why: a cold command spent, one after the other, 0.2-0.3 s importing xDSL and NumPy and
parsing, then (in the worker) 0.1-0.2 s importing the e-graph stage and declaring about 100
rules in egglog.  The two do not depend on each other, so on a machine with a second core
they overlap.  The early worker is a fork of the command before it imported anything heavy,
so nothing the caller does afterwards is in it: the job carries the program and the linear
maps the frontend registered (``eqsat.algebra.linmap``), which is all the worker reads of
the caller's state (the same worker forked late, at the stage, would have them by the fork).
A program of more than ``guard.EARLY_MAX_NODES`` nodes is not sent (pickling it would cost
more than the early start saves): its worker is forked at the stage, as before, and the
early one ended.  Not used with one core (nothing to overlap), without ``os.fork``, with
``EQSAT_IN_PROCESS=1``, or in a process that loaded egglog already (``eqsat serve``'s
requests: their rules are declared before the request comes).  This module imports nothing
heavy: the command imports it first.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from dataclasses import dataclass


@dataclass
class Handle:
    """The caller's side of an early worker: its pid and the caller's ends of its pipes."""

    pid: int
    job_w: int  # the job, pickled; closing it without a job ends the worker
    msg_r: int  # the worker's messages (``guard._Worker.send``)
    go_w: int  # the hand-back order to its newest checkpoint


_HANDLE: Handle | None = None


def start(prepared: bool = False) -> None:
    """Fork the early worker (see the module docstring) unless one is waiting already.
    ``prepared``: this process holds a prepared e-graph (``session.prepare``; ``eqsat serve``'s
    spare request child) that the worker takes as it is."""
    global _HANDLE
    if _HANDLE is not None or not hasattr(os, "fork") or os.environ.get("EQSAT_IN_PROCESS") == "1":
        return
    if (os.cpu_count() or 1) < 2:
        return
    if "egglog.bindings" in sys.modules and not (prepared and _has_prepared()):
        # egglog is loaded here already (a test process): a fork that drops an egglog e-graph
        # (declaring the rules again replaces the prepared one) waits forever for the thread
        # pool the fork lacks (measured: a request of the server, forked again, never loaded)
        return
    job_r, job_w = os.pipe()
    msg_r, msg_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        for fd in (job_w, msg_r, go_w):
            os.close(fd)
        _child(job_r, msg_w, go_r)  # never returns
    for fd in (job_r, msg_w, go_r):
        os.close(fd)
    _HANDLE = Handle(pid, job_w, msg_r, go_w)


def _has_prepared() -> bool:
    session = sys.modules.get("eqsat.egraph.session")
    return bool(getattr(session, "_PREPARED", None))


def take() -> Handle | None:
    """The waiting early worker, now the caller's to use (None: there is none)."""
    global _HANDLE
    handle, _HANDLE = _HANDLE, None
    return handle


def discard() -> None:
    """End an early worker that got no job (the command failed before the e-graph stage, or
    ran without it)."""
    end(take())


def end(handle: Handle | None) -> None:
    """Kill and reap an early worker that got no job, and close the caller's pipes to it."""
    if handle is None:
        return
    import signal

    with contextlib.suppress(OSError):
        os.kill(handle.pid, signal.SIGKILL)
    for fd in (handle.job_w, handle.msg_r, handle.go_w):
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(OSError, ChildProcessError):
        if not os.waitpid(handle.pid, os.WNOHANG)[0]:  # its teardown: reaped later (``reap``)
            UNREAPED.append(handle.pid)


#: early workers ended and not reaped yet (``eqsat.egraph.guard.reap`` reaps them too)
UNREAPED: list[int] = []


def reap(wait: bool = False) -> None:
    """Reap the ended early workers (all of them, waiting: ``wait``)."""
    for pid in list(UNREAPED):
        with contextlib.suppress(ChildProcessError):
            if not os.waitpid(pid, 0 if wait else os.WNOHANG)[0]:
                continue
        UNREAPED.remove(pid)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def _child(job_r: int, msg_w: int, go_r: int) -> None:
    """The early worker: prepare, wait for the job, run it as ``guard``'s worker; never returns."""
    code = 0
    try:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller decides; it kills us on Ctrl-C
        from eqsat.egraph import compiled, session

        # else the caller builds the text (building it twice is seconds); a prepared e-graph
        # inherited from the caller is taken as it is (see ``start``)
        if compiled.is_cached() and not session._PREPARED:
            session.prepare_default()
        warmup = sys.modules.get("eqsat.serve_warmup")
        if warmup is not None and warmup.IN_SPARE:  # an ``eqsat serve`` spare's worker: the loader's
            # pages copied while it waits for the request (``pretouch_load``)
            import select

            came = lambda: bool(select.select([job_r], [], [], 0.0)[0])  # noqa: E731
            warmup.pretouch_load(came)
            # and its copies of the pages the last request's worker wrote (``eqsat.pagewarm``)
            from eqsat import pagewarm

            pagewarm.prewrite("worker", came)
        data = _read_all(job_r)
        os.close(job_r)
        if not data:  # discarded
            os._exit(0)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        # a ``guard.Job`` (unpickling it imports ``guard``; this module does not: guard uses it)
        pickle.loads(data).run(msg_w, go_r)  # never returns
    except BaseException:
        code = 1
    finally:
        os._exit(code)
