"""The warm start: a server that imports eqsat once and runs each ``eqsat`` command in a fork.

In: ``python -m eqsat.serve [--idle-timeout S]`` (started by ``eqsat serve start``).  Out: a
process listening on the Unix socket ``eqsat.client.socket_path()`` until ``eqsat serve
stop``, SIGTERM, or ``S`` seconds without a request.

Why: a cold ``eqsat optimize`` of an 8-slot sum spends most of its time importing Python
modules (xDSL's dialect definitions, egglog, HiGHS, NumPy) and declaring the rules, not
optimizing.  The server pays that once.  Every request is run by a fresh ``fork`` of the
server -- so no state of one request reaches another, and the e-graph stage's own forks
(``eqsat.egraph.guard``) work as in any other process -- with the client's working
directory, environment and argv, its stdin/stdout/stderr put in place of the child's own
(the descriptors come over the socket), and ``eqsat.cli.main`` called as in the client's
own process: the output is the same bytes, the exit status is sent back.

Only the owner can reach the socket (its folder is private); the socket's name is a hash
of the installation (``eqsat.client.server_key``), so after an edit or a reinstall the
client finds no server and runs the command itself until a new server is started.  A lock
file beside the socket makes sure one server runs per key.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import gc
import importlib
import os
import select
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from eqsat import allocator, client, pagewarm

#: modules a command may need, imported before the first request (a missing optional one is skipped)
WARM_MODULES = (
    "eqsat.cli", "eqsat.pipeline", "eqsat.frontend.mlir", "eqsat.rules", "eqsat.egraph.guard",
    "eqsat.extract.ilp", "eqsat.extract.levels", "eqsat.mgmt", "eqsat.mgmt.reduce_noise", "eqsat.layout_search",
    "eqsat.interp", "eqsat.api", "highspy", "rich.console", "eqsat.backend.executor",
    # oracles' lazy imports: a request's fork would import them again every time (sympy 1-3 s)
    "sympy", "eqsat.algebra.rotfactor", "eqsat.algebra.chains",
    # the MLIR dialects the reader loads on first use (``LAZY_DIALECTS``): in a request's fork
    # every kernel with a loop or a linalg op imported them again (0.02-0.05 s each)
    "xdsl.dialects.affine", "xdsl.dialects.scf", "eqsat.frontend.mlir.dialects.linalg",
)
IDLE_TIMEOUT_S = 7200.0


def warm() -> list[str]:
    """Import what commands use and read the compiled rule text; the modules that failed."""
    failed = []
    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            failed.append(name)
    from eqsat.egraph import compiled

    # The server must never run egglog itself: egglog's thread pool does not survive a fork
    # (a request's child then waits forever on threads that do not exist in it).  So the rule
    # text is built, when it is not cached yet, by another process, and only read here.
    cached = compiled.cache_dir() / f"rules-{compiled.cache_key()}.json"
    if not cached.exists():
        import subprocess

        subprocess.run([sys.executable, "-c", "from eqsat.egraph import compiled; compiled.section('term')"],
                       check=False)
    if not cached.exists():
        raise SystemExit(f"eqsat serve: the compiled rules cannot be cached in {cached.parent}, which the "
                         "server needs (set EQSAT_CACHE_DIR to a writable folder)")
    compiled.section(compiled.TERM)  # reads the cache
    # the default rules and the noise analysis declared once: each request's e-graph starts
    # from a copy (egglog declares without its thread pool; the server never runs a rule)
    from eqsat.egraph import session

    session.prepare_default()
    from eqsat import cli

    cli.prebuild_parser()
    with contextlib.suppress(ImportError):  # the chain search's compiled kernel (numba), loaded once
        from eqsat.algebra import chains

        chains.load_compiled()
    # last, a few small requests run here: what a code path builds on first use is then inherited
    # by every request's fork instead of built again in each (``eqsat.serve_warmup``)
    from eqsat import serve_warmup

    serve_warmup.run()
    serve_warmup.prepare_load()  # what each request's e-graph worker loads while it waits
    return failed


def _start(path: Path) -> socket.socket:
    """Warm up, then listen on ``path``."""
    warm()
    gc.collect()  # the warm-up's garbage, not frozen with the rest
    # everything imported so far lives as long as the server: out of the garbage collector's
    # reach, a full collection in a request (which walked the millions of objects of xDSL,
    # egglog, sympy...: 0.1-0.3 s each) visits only what the request allocated
    gc.freeze()
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a socket left by a server that was killed
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        listener.bind(str(path))
    finally:
        os.umask(old_umask)
    listener.listen(64)
    return listener


def _stop_older(path: Path) -> None:
    """Stop the servers in ``path``'s folder that run this interpreter under another key: older
    versions of this installation (its sources were edited, or it was reinstalled), which no
    command of it can reach any more."""
    for other in sorted(path.parent.glob("serve-*.sock")):
        if other == path:
            continue
        info = client.status(other)
        if info is not None and info.get("python") == client.interpreter() and client.stop(other) is not None:
            print(f"eqsat serve: stopped pid {info.get('pid')} on {other}, an older version of this "
                  "installation", file=sys.stderr, flush=True)


class _Stop(Exception):
    pass


def _on_term(signum: int, frame: Any) -> None:
    raise _Stop()


def serve(path: Path, idle_timeout: float = IDLE_TIMEOUT_S) -> int:
    """Listen on ``path`` until stopped; 0, or 3 when a server of this key already runs."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    global _LOCK_FD
    lock = open(path.with_suffix(".lock"), "w")  # noqa: SIM115 -- held for the server's life
    _LOCK_FD = lock.fileno()  # closed in every child: the lock is the server's alone
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(f"eqsat serve: a server already runs on {path}", file=sys.stderr)
        return 3
    _stop_older(path)
    failed = path.with_suffix(".failed")
    try:
        listener = _start(path)
    except (Exception, SystemExit) as e:  # noted beside the socket: commands then stop starting servers
        with contextlib.suppress(OSError):
            failed.write_text(f"{type(e).__name__}: {e}\n")
        raise
    with contextlib.suppress(FileNotFoundError):
        failed.unlink()
    # the pages the requests' processes write (``eqsat.pagewarm``): learned anew by this server, whose
    # addresses are its own
    pagewarm.STEM = str(path.with_suffix(""))
    for kind in pagewarm.KINDS:
        with contextlib.suppress(OSError):
            os.unlink(pagewarm.path(kind) or "")
    signal.signal(signal.SIGTERM, _on_term)
    started, served, last = time.time(), 0, time.monotonic()
    malloc = allocator.active()
    children = _Children()
    print(f"eqsat serve: pid {os.getpid()} listening on {path}", file=sys.stderr, flush=True)
    spare: _Spare | None = None
    try:
        while True:
            if (spare is None or not spare.ready()) and children.spare_due():
                spare = _Spare.fork(listener)
            ready, _, _ = select.select([listener.fileno(), *children.fds()], [], [],
                                        1.0 if spare is not None else children.wait_s(1.0))
            children.reap(ready)
            if listener.fileno() not in ready:
                if idle_timeout > 0 and not children and time.monotonic() - last > idle_timeout:
                    break
                continue
            conn, _ = listener.accept()
            last = time.monotonic()
            try:
                msg, fds = _receive(conn)
            except (OSError, ValueError):
                conn.close()
                continue
            op = msg.get("op")
            if op == "run" and len(fds) == 3:
                pid = spare.take(conn, msg, fds) if spare is not None else 0
                # the taking spare says on its socket when its request is done (``_Children``)
                note = spare.sock if pid and spare is not None else None
                spare = None  # used up: the next one once no request runs (``_Children``)
                if not pid:  # no spare ready (it died): fork for this request
                    sys.stdout.flush()
                    sys.stderr.flush()
                    pid = os.fork()
                    if pid == 0:
                        listener.close()
                        _run(conn, msg, fds)  # never returns
                children.add(pid, note)
                served += 1
            else:
                with contextlib.suppress(OSError):
                    client.send(conn, {"pid": os.getpid(), "key": path.stem.removeprefix("serve-"),
                                       "started": started, "served": served, "running": len(children),
                                       "spare": spare.pid if spare is not None else None,
                                       "python": client.interpreter(), "allocator": malloc,
                                       "stopping": op == "stop"})
            for fd in fds:
                os.close(fd)
            conn.close()
            if op == "stop":
                break
    except (_Stop, KeyboardInterrupt):
        pass
    finally:
        if spare is not None:
            spare.end()
        children.close()
        listener.close()
        for kind in pagewarm.KINDS:
            with contextlib.suppress(OSError):
                os.unlink(pagewarm.path(kind) or "")
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        lock.close()
    print(f"eqsat serve: pid {os.getpid()} stopped after {served} requests", file=sys.stderr, flush=True)
    return 0


class _Spare:
    """A request's child forked ahead of the request, while the server is idle: the fork (10-40
    ms for a process holding every import) is then off the request's path.  It waits on its end
    of a socket pair for one request -- the message and the connection's and the client's
    descriptors, passed on by the server -- and runs it as a child forked for it would."""

    def __init__(self, pid: int, sock: socket.socket) -> None:
        self.pid, self.sock = pid, sock

    @classmethod
    def fork(cls, listener: socket.socket) -> _Spare:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # never returns, never runs the server's loop
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                listener.close()
                ours.close()
                # its e-graph worker too, forked ahead with the prepared rules: an ``optimize``
                # hands it the program (``eqsat.egraph.prefork``); another command ends it.  Until
                # the request comes, the copies of the pages a request's reading (here) and
                # loading (in the worker) write to are made (``serve_warmup.pretouch``, ``pretouch_load``)
                from eqsat import serve_warmup
                from eqsat.egraph import prefork

                serve_warmup.IN_SPARE = True  # for this worker alone: not for those the request forks
                prefork.start(prepared=True)
                serve_warmup.IN_SPARE = False
                came = lambda: bool(select.select([theirs], [], [], 0.0)[0])  # noqa: E731
                serve_warmup.pretouch(came)
                # and its copies of the pages the last request's child wrote (``eqsat.pagewarm``)
                pagewarm.prewrite("request", came)
                msg, fds = _receive(theirs, timeout=None, max_fds=4)
            except BaseException:  # the server ended (or sent nothing): nothing to run
                os._exit(0)
            if len(fds) != 4:
                os._exit(0)
            _run(socket.socket(fileno=fds[0]), msg, fds[1:], theirs)
        theirs.close()
        return cls(pid, ours)

    def ready(self) -> bool:
        """Still waiting for its request (False: it ended, e.g. killed)."""
        try:
            return os.waitpid(self.pid, os.WNOHANG)[0] == 0
        except ChildProcessError:
            return False

    def take(self, conn: socket.socket, msg: dict[str, Any], fds: list[int]) -> int:
        """Hand the request over; the spare's pid, or 0 when it cannot take it (the caller
        forks instead).  Either way this spare is used up.  When it took the request, ``sock``
        stays open: the spare writes a byte on it when the request is done (``_run``)."""
        pid = 0
        if self.ready():
            data = client.pack(msg)
            try:
                sent = socket.send_fds(self.sock, [data], [conn.fileno(), *fds])
            except OSError:
                sent = 0
            if sent:  # the spare has the descriptors: the request is its own now
                pid = self.pid
                with contextlib.suppress(OSError):
                    if sent < len(data):
                        self.sock.sendall(data[sent:])
        if not pid:
            self.sock.close()
            self.end()
        return pid

    def end(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        with contextlib.suppress(OSError, ChildProcessError):
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)


#: the longest a spare is put off while requests run (``_Children.spare_due``): a request that
#: runs this long has spent far more than a fork costs, and a request that comes meanwhile
#: would find no spare
SPARE_DEFER_S = 1.0


class _Children:
    """The requests' children that run, each with a descriptor that becomes readable when it
    ends (``os.pidfd_open``) and, for a spare's, one on which it says that its request is done
    (``_run``), and when the next spare is due.

    Why: forking the next spare (a fork of a process holding every import, 10-40 ms in the
    kernel, then the spare's own fork of its e-graph worker) right after handing a request
    over ran beside that request, on a machine of two cores, while it read its input and
    optimized: measured on ``sum_8``, it took half of the request's parse time.  So the spare
    is forked when no request runs: once the request's child said it is done -- its client
    has the exit status -- or ended, whichever the server sees first.  Waiting for the end
    alone (the teardown of a fork of the server, then the wake-up on its descriptor) put the
    next spare's fork 20-30 ms after the exit status: into the start of the next command of a
    script that runs commands back to back, whose request then waited ~9 ms for the spare and
    its e-graph worker to be forked (rr_rotation_duplicated, back to back: 118 -> 108 ms a
    command with the note, alternating with a server without it).  A request that comes
    while another runs is forked for (as when a spare died); after ``SPARE_DEFER_S`` of
    running requests a spare is forked anyway.  Without ``pidfd_open`` (not Linux, or older
    than 5.3) the spare is forked at once, as before."""

    def __init__(self) -> None:
        #: pid -> its pidfd (None: none could be opened) and when it took its request
        self.pids: dict[int, tuple[int | None, float]] = {}
        #: pid -> the server's end of the socket on which the child says it is done
        self.notes: dict[int, socket.socket] = {}
        #: the children that said so (they run until their teardown is over)
        self.done: set[int] = set()

    def __len__(self) -> int:
        return len(self.pids)

    def add(self, pid: int, note: socket.socket | None = None) -> None:
        fd = None
        with contextlib.suppress(OSError, AttributeError):
            fd = os.pidfd_open(pid)
        self.pids[pid] = (fd, time.monotonic())
        if note is not None:
            self.notes[pid] = note

    def fds(self) -> list[int]:
        return [fd for fd, _ in self.pids.values() if fd is not None] + [s.fileno() for s in self.notes.values()]

    def _due_at(self) -> float:
        """When the next spare is due (``time.monotonic``; 0: now)."""
        busy = [v for pid, v in self.pids.items() if pid not in self.done]
        if not busy or any(fd is None for fd, _ in busy):
            return 0.0
        return min(t for _, t in busy) + SPARE_DEFER_S

    def spare_due(self) -> bool:
        return time.monotonic() >= self._due_at()

    def wait_s(self, idle: float) -> float:
        """How long a server that has no spare may wait for a request or a child's end before
        the spare is due (``idle`` when it is due now: it is forked before the wait)."""
        left = self._due_at() - time.monotonic()
        return min(idle, left) if left > 0 else idle

    def reap(self, ready: list[int] | tuple[int, ...] = ()) -> None:
        """Note the children that said they are done (their descriptors among ``ready``: a
        byte, or the end of the socket), and forget (and reap) the children that ended."""
        for pid, note in list(self.notes.items()):
            if note.fileno() in ready:
                self.done.add(pid)
                del self.notes[pid]
                note.close()
        for pid, (fd, _) in list(self.pids.items()):
            try:
                ended = os.waitpid(pid, os.WNOHANG)[0] != 0
            except ChildProcessError:
                ended = True
            if ended:
                del self.pids[pid]
                self.done.discard(pid)
                if fd is not None:
                    os.close(fd)
                if pid in self.notes:
                    self.notes.pop(pid).close()

    def close(self) -> None:
        for fd, _ in self.pids.values():
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        for note in self.notes.values():
            note.close()


def _receive(conn: socket.socket, timeout: float | None = 10.0, max_fds: int = 3) -> tuple[dict[str, Any], list[int]]:
    """The request (``eqsat.client.pack``'s format) and the descriptors sent with it."""
    conn.settimeout(timeout)
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, max_fds)
    fds = list(fds)
    try:
        if not data:
            raise ValueError("no request")
        while (msg := client.unpack(data)) is None:
            chunk = conn.recv(1 << 16)
            if not chunk:
                raise ValueError("incomplete request")
            data += chunk
    except (ValueError, EOFError, TypeError, OSError):
        for fd in fds:
            os.close(fd)
        raise ValueError("not a request") from None
    conn.settimeout(None)
    return msg, fds


def _stdio() -> None:
    """New ``sys.stdin/stdout/stderr`` over descriptors 0, 1, 2 (now the client's), buffered
    as Python buffers them at start-up (line-buffered on a terminal, stderr always)."""
    enc, err = sys.stdout.encoding, sys.stdout.errors
    sys.stdin = open(0, encoding=sys.stdin.encoding, errors=sys.stdin.errors, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", 1 if os.isatty(1) else -1, enc, err, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", 1, enc, "backslashreplace", closefd=False)  # noqa: SIM115


def _release_stdio() -> None:
    """Point descriptors 0, 1 and 2 (the client's) at ``/dev/null``, once the output is flushed.

    Why: a pipe's reader (a shell's ``$(...)``, ``subprocess.run(capture_output=True)``) sees
    the end of the output when every process holding its write end closed it.  Held until this
    child's exit, that was after the teardown of a fork of the server (5-10 ms, in the kernel),
    which came after the client had its exit status; released before the exit status is sent,
    the output ends with the client."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)


#: the server's lock file (``serve``): a child that kept it open would hold the lock after the
#: server ended, and a new server could not start until that child ended
_LOCK_FD = -1


def _run(conn: socket.socket, msg: dict[str, Any], fds: list[int], note: socket.socket | None = None) -> NoReturn:
    """The request's child: the client's cwd, environment and stdio, then ``eqsat.cli.main``;
    a spare's child then says on ``note`` that it is done (``_Children``)."""
    if _LOCK_FD >= 0:
        with contextlib.suppress(OSError):
            os.close(_LOCK_FD)
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _stdio()
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in dict(msg.get("env", {})).items()})
        client.send(conn, {"pid": os.getpid()})
        from eqsat.cli import main

        argv = [str(a) for a in msg.get("argv", [])]
        code = 1
        try:
            os.chdir(str(msg.get("cwd", ".")))
            code = main(argv)
        except SystemExit as e:  # argparse: --help, --version, a bad option
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if e.code is not None and not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
        except OSError as e:  # the client's folder is gone
            print(f"eqsat: cannot run in {msg.get('cwd')}: {e.strerror}", file=sys.stderr)
            code = 2
        except KeyboardInterrupt:
            print("eqsat: interrupted", file=sys.stderr)
            code = 130
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        _release_stdio()
        client.send(conn, {"exit": code})
        conn.close()
        if note is not None:  # the next spare may be forked now, before this process's teardown
            with contextlib.suppress(OSError):
                note.send(b"d")
            note.close()
        # the pages this request wrote, for the spares forked once the note is written (the next
        # one may be forked already: it takes the last request's note before this one)
        pagewarm.record()
    except BaseException:  # never let a request's child run the server loop (the client reports it)
        pass
    finally:
        os._exit(0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eqsat.serve", description="The eqsat server (see eqsat serve).")
    ap.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT_S,
                    help="stop after this many seconds without a request (0: never)")
    args = ap.parse_args(argv)
    try:
        allocator.wanted()
    except ValueError as e:
        # marked as a failed start, as ``serve`` marks one: commands then stop starting servers
        # that would fail the same way (``client.start_in_background``)
        path = client.socket_path()
        with contextlib.suppress(OSError):
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            path.with_suffix(".failed").write_text(f"ValueError: {e}\n")
        print(f"eqsat serve: {e}", file=sys.stderr)
        return 2
    if argv is None and sys.argv[0] == __file__:  # this process is the server (``python -m eqsat.serve``)
        allocator.reexec()  # mimalloc preloaded (``eqsat.allocator``): returns when nothing is to be done
        allocator.restore_environment()
    return serve(client.socket_path(), args.idle_timeout)


if __name__ == "__main__":
    raise SystemExit(main())
