"""``eqsat serve``: the same stdout, stderr and exit status with and without the warm server.

Starts a server (its socket in a temporary ``XDG_RUNTIME_DIR``), runs commands through the
thin client and again with ``EQSAT_NO_SERVER=1`` in their own process, and compares the
bytes; checks that the server served them, and that ``serve stop`` ends it and removes its
socket.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
EQSAT = [sys.executable, "-m", "eqsat.cli"]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the server forks per request")


def _run(args: list[str], env: dict[str, str], stdin: bytes = b"", cwd: Path = ROOT) -> tuple[int, bytes, bytes]:
    p = subprocess.run([*EQSAT, *args], input=stdin, capture_output=True, env=env, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


def _served(env: dict[str, str]) -> int:
    code, out, _ = _run(["serve", "status"], env)
    assert code == 0, out
    return int(out.decode().split(", ")[1].split()[0])


@pytest.fixture(scope="module")
def server_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    runtime = tmp_path_factory.mktemp("runtime")
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    env.pop("EQSAT_NO_SERVER", None)
    code, _, err = _run(["serve", "start", "--idle-timeout", "600"], env)
    assert code == 0, err
    yield env
    _run(["serve", "stop"], env)


CASES = [
    (["optimize", str(EXAMPLES / "sum_8.mlir")], b""),
    (["optimize", "-", "--quiet"], (EXAMPLES / "sum_8.mlir").read_bytes()),
    (["explain", str(EXAMPLES / "sum_8.mlir"), "--quiet"], b""),  # times differ: compared without them
    (["optimize", "-"], b"garbage\n"),  # a located error, exit 2
    (["optimize", str(EXAMPLES / "sum_8.mlir"), "--func", "nope"], b""),
    (["optimize", "no/such/file.mlir"], b""),
    (["optimize", "--no-such-flag"], b""),  # argparse: usage, exit 2
    # the code paths the server's warm-up ran before the fork (``eqsat.serve_warmup``)
    (["optimize", str(EXAMPLES / "noisy_squarings.mlir")], b""),
    (["optimize", str(EXAMPLES / "linalg_matvec_16x16.mlir")], b""),
    (["optimize", str(EXAMPLES / "secret_generic_sum.mlir")], b""),
    (["optimize", str(ROOT / "tests/heir_cases/heco_roberts_cross_4x4.mlir")], b""),
]


def _stable(out: bytes) -> bytes:
    """``explain`` prints seconds per stage: those lines differ from run to run."""
    return b"\n".join(line for line in out.split(b"\n") if b"seconds" not in line and b" s\n" not in line
                      and not line.startswith(b"e-graph:"))


@pytest.mark.parametrize(("args", "stdin"), CASES, ids=lambda c: " ".join(c) if isinstance(c, list) else "")
def test_the_server_gives_the_bytes_of_an_in_process_run(
    server_env: dict[str, str], args: list[str], stdin: bytes
) -> None:
    before = _served(server_env)
    warm = _run(args, server_env, stdin)
    assert _served(server_env) == before + 1  # the server ran it
    cold = _run(args, {**server_env, "EQSAT_NO_SERVER": "1"}, stdin)
    assert warm[0] == cold[0]
    assert _stable(warm[1]) == _stable(cold[1])
    assert warm[2] == cold[2]
    if "garbage" in stdin.decode():
        assert warm[0] == 2 and warm[2].startswith(b"<stdin>:1:1: error:")


def test_the_server_runs_on_mimalloc_when_it_is_installed(server_env: dict[str, str]) -> None:
    """``eqsat.allocator``: the server executed itself again with mimalloc preloaded (its
    requests, its forks, run on it too)."""
    from eqsat import allocator

    code, out, _ = _run(["serve", "status"], server_env)
    assert code == 0
    expect = "mimalloc" if allocator.library() is not None else "system"
    assert out.decode().rstrip().endswith(f"allocator {expect}")


def test_the_server_runs_in_the_callers_folder_and_writes_its_files(
    server_env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "in.mlir").write_bytes((EXAMPLES / "sum_8.mlir").read_bytes())
    code, out, err = _run(["optimize", "in.mlir", "-o", "out.mlir"], server_env, cwd=tmp_path)
    assert (code, out) == (0, b""), err
    reference = _run(["optimize", "in.mlir"], {**server_env, "EQSAT_NO_SERVER": "1"}, cwd=tmp_path)[1]
    assert (tmp_path / "out.mlir").read_bytes() == reference


def test_stop_ends_the_server_and_the_client_falls_back(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    env.pop("EQSAT_NO_SERVER", None)
    assert _run(["serve", "status"], env)[0] == 3
    assert _run(["serve", "start"], env)[0] == 0
    assert _run(["serve", "start"], env)[0] == 0  # already running: said so, not a second server
    sockets = list((tmp_path / "eqsat").glob("*.sock"))
    assert len(sockets) == 1
    # a served request's child and e-graph worker note the pages they wrote (``eqsat.pagewarm``),
    # for the next ones to write ahead; the server removes the notes when it stops
    assert _run(["optimize", str(EXAMPLES / "sum_8.mlir")], env)[0] == 0
    notes = [sockets[0].with_suffix(f".pages-{kind}") for kind in ("request", "worker")]
    for _ in range(600):
        if all(note.exists() for note in notes):
            break
        time.sleep(0.05)
    assert all(note.read_text().startswith("grow ") for note in notes)
    assert _run(["serve", "stop"], env)[0] == 0
    assert not sockets[0].exists()
    assert not any(note.exists() for note in notes)
    assert _run(["serve", "status"], env)[0] == 3
    code, out, _ = _run(["optimize", str(EXAMPLES / "sum_8.mlir")], env)  # no server: in process
    assert code == 0 and b"tensor_ext.rotate" in out


def test_a_server_started_from_a_folder_with_another_eqsat_runs_this_one(tmp_path: Path) -> None:
    """``serve start`` run from a folder holding another ``eqsat`` package (another checkout)
    starts this installation's server: ``python -m`` would have put that folder first."""
    decoy = tmp_path / "work" / "eqsat"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('the other checkout was imported')\n")
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    env.pop("EQSAT_NO_SERVER", None)
    cmd = [sys.executable, "-P", "-m", "eqsat.cli", "serve"]  # the client itself: this installation
    try:
        start = subprocess.run([*cmd, "start"], capture_output=True, env=env, cwd=decoy.parent, timeout=300)
        assert start.returncode == 0, start.stderr.decode()[-2000:]
    finally:
        subprocess.run([*cmd, "stop"], capture_output=True, env=env, cwd=decoy.parent, timeout=300)


def test_in_process_runs_are_not_sent_to_the_server(server_env: dict[str, str]) -> None:
    # EQSAT_IN_PROCESS=1 asks for the e-graph stage in the command's own process; in a fork of
    # the server egglog waits forever for its thread pool, so the client runs such a command itself
    before = _served(server_env)
    code, out, err = _run(["optimize", str(EXAMPLES / "sum_8.mlir")], {**server_env, "EQSAT_IN_PROCESS": "1"})
    assert code == 0, err
    assert b"tensor_ext.rotate" in out
    assert _served(server_env) == before


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_request_is_run_when_the_spare_child_is_gone(server_env: dict[str, str], sig: int) -> None:
    # the server keeps one request's child forked ahead; one that ended (killed, or told to
    # stop) is replaced, and the request is still run, in a child forked for it
    from eqsat import client

    runtime = Path(server_env["XDG_RUNTIME_DIR"]) / "eqsat"
    sock = next(runtime.glob("serve-*.sock"))
    answer = client.request(sock, {"op": "status"})
    assert answer is not None and isinstance(answer["spare"], int)
    os.kill(int(answer["spare"]), sig)
    code, out, err = _run(["optimize", str(EXAMPLES / "sum_8.mlir")], server_env)
    assert code == 0, err
    assert b"tensor_ext.rotate" in out
    assert sock.exists()  # a spare told to stop ends alone: the server's socket stays
    assert _new_spare(sock, answer["spare"])


def _new_spare(sock: Path, old: int, seconds: float = 60.0) -> bool:
    """Whether the server at ``sock`` has a spare other than ``old`` within ``seconds``: it forks
    the next one once the request's child ended (``serve._Children``)."""
    import time

    from eqsat import client

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = client.request(sock, {"op": "status"})
        assert answer is not None
        if answer["spare"] not in (None, old):
            return True
        time.sleep(0.05)
    return False


def test_every_warm_up_program_optimizes(tmp_path: Path) -> None:
    """A warm-up that failed would be skipped silently by the server (it still starts)."""
    from eqsat.serve_warmup import PROGRAMS

    env = {**os.environ, "EQSAT_NO_SERVER": "1"}
    for name, text in PROGRAMS.items():
        path = tmp_path / f"{name}.mlir"
        path.write_text(text.lstrip())
        code, out, err = _run(["optimize", str(path), "--json", "--quiet", "--extraction", "greedy"], env)
        assert code == 0, (name, err)
        assert b'"after"' in out


def test_a_spare_reads_every_warm_up_program_until_its_request_comes() -> None:
    """``serve_warmup.pretouch``: every program is read (a reader error would be ignored there,
    and the pages it leaves untouched copied in the request again), and it stops as soon as
    ``stop()`` says the request came."""
    from eqsat.frontend.mlir import parse_mlir, print_mlir
    from eqsat.serve_warmup import PROGRAMS, pretouch

    for name, text in PROGRAMS.items():
        progs = parse_mlir(text.encode(), name)
        assert progs and all(print_mlir(p) for p in progs), name
    assert pretouch(lambda: False) == len(PROGRAMS)
    calls: list[int] = []

    def third_call_stops() -> bool:
        calls.append(1)
        return len(calls) >= 3

    assert pretouch(third_call_stops) < len(PROGRAMS)
    assert len(calls) == 3  # nothing more after the request came
    assert pretouch(lambda: True) == 0


def test_a_prefork_worker_loads_every_warm_up_program_until_its_job_comes() -> None:
    """``serve_warmup.pretouch_load``: every warm-up program loads (an error would be ignored
    there, and the loader's pages it left untouched copied in the request's load again), it
    stops as soon as ``stop()`` says the job came, and the linear-map registry it leaves is the
    one it found (the worker's registry must be what it would be without it)."""
    from eqsat import serve_warmup
    from eqsat.algebra import linmap
    from eqsat.egraph.loader import Loader

    count = serve_warmup.prepare_load()
    assert count >= len(serve_warmup.PROGRAMS)
    for prog in serve_warmup._LOAD_PROGRAMS:
        assert Loader(prog).load() is not None, prog.name
    maps, vectors = dict(linmap._MAPS), dict(linmap._VECTORS)
    linmap._MAPS.clear()  # as in a worker that registered nothing yet: the warm-up's are taken out
    linmap._VECTORS.clear()
    try:
        assert serve_warmup.pretouch_load(lambda: False) == count
        assert not linmap._MAPS and not linmap._VECTORS
    finally:
        linmap._MAPS.update(maps)
        linmap._VECTORS.update(vectors)
    calls: list[int] = []

    def second_call_stops() -> bool:
        calls.append(1)
        return len(calls) >= 2

    assert serve_warmup.pretouch_load(second_call_stops) == 1
    assert len(calls) == 2  # nothing more after the job came
    assert serve_warmup.pretouch_load(lambda: True) == 0


@pytest.mark.parametrize("in_spare", [True, False])
def test_a_prefork_worker_pretouches_only_in_a_spare(tmp_path: Path, in_spare: bool) -> None:
    """``prefork._child`` runs ``serve_warmup.pretouch_load`` while it waits for its job when it
    is a server's spare's worker (``serve_warmup.IN_SPARE``), then reads its job; a command's own
    early worker (e.g. a batch's, where ``eqsat.serve_warmup`` is loaded too) does not."""
    import eqsat.serve_warmup
    from eqsat.egraph import prefork, session

    mark = tmp_path / "touched"
    job_r, job_w = os.pipe()
    msg_r, msg_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: a job that never comes (closed: discarded), so it exits
        try:
            os.close(job_w)
            session._PREPARED.append((None, frozenset()))  # as a server's fork (none dropped: see prefork)
            eqsat.serve_warmup.IN_SPARE = in_spare
            eqsat.serve_warmup.pretouch_load = lambda stop: mark.write_text(str(stop())) or 0
            prefork._child(job_r, msg_w, -1)
        finally:
            os._exit(3)
    os.close(job_r)
    os.close(msg_w)
    os.close(job_w)
    _, status = os.waitpid(pid, 0)
    os.close(msg_r)
    assert os.waitstatus_to_exitcode(status) == 0
    if in_spare:
        assert mark.read_text() == "True"  # asked whether the job came: the closed pipe reads at once
    else:
        assert not mark.exists()


def test_the_installed_command_goes_to_the_server(server_env: dict[str, str]) -> None:
    """The console script (``eqsat.entry``): served when a server runs, run in its own
    process when asked not to be, with the same output."""
    script = Path(sys.executable).parent / "eqsat"
    if not script.exists():
        pytest.skip("no eqsat console script beside this interpreter")
    args = [str(script), "optimize", str(EXAMPLES / "sum_8.mlir")]
    before = _served(server_env)
    warm = subprocess.run(args, capture_output=True, env=server_env, cwd=ROOT, timeout=300)
    # what the command saw when it was not served (once in CI runs: no clue why)
    folder = Path(server_env["XDG_RUNTIME_DIR"]) / "eqsat"
    seen = subprocess.run([sys.executable, "-c", "from eqsat import client; print(client.socket_path())"],
                          capture_output=True, text=True, env=server_env, cwd=ROOT, timeout=300)
    assert _served(server_env) == before + 1, (warm.returncode, warm.stderr[-2000:], sorted(os.listdir(folder)),
                                                seen.stdout, seen.stderr[-500:])
    cold = subprocess.run(args, capture_output=True, env={**server_env, "EQSAT_NO_SERVER": "1"}, cwd=ROOT,
                          timeout=300)
    assert _served(server_env) == before + 1
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert warm.returncode == 0 and b"tensor_ext.rotate" in warm.stdout


def test_the_installed_command_ends_with_the_exit_status_of_the_served_command(server_env: dict[str, str]) -> None:
    """The console script leaves without the interpreter's finalization once served
    (``eqsat.entry._exit_now``): the exit status and the bytes are still those of the command."""
    script = Path(sys.executable).parent / "eqsat"
    if not script.exists():
        pytest.skip("no eqsat console script beside this interpreter")
    for args, code in ([str(script), "optimize", "no/such/file.mlir"], 2), ([str(script), "optimize", "--bad"], 2):
        before = _served(server_env)
        warm = subprocess.run(args, capture_output=True, env=server_env, cwd=ROOT, timeout=300)
        assert _served(server_env) == before + 1
        cold = subprocess.run(args, capture_output=True, env={**server_env, "EQSAT_NO_SERVER": "1"}, cwd=ROOT,
                              timeout=300)
        assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
        assert warm.returncode == code and warm.stderr


def test_a_requests_child_lets_go_of_the_clients_output_before_it_ends() -> None:
    """``serve._release_stdio``: the client's pipes see their end while the request's child still
    runs (its teardown comes after the exit status), so a caller reading them is not held up."""
    from eqsat import serve

    out_r, out_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the request's child, with the client's output as its 1 and 2
        try:
            os.close(out_r)
            os.close(hold_w)
            os.dup2(out_w, 1)
            os.dup2(out_w, 2)
            os.close(out_w)
            os.write(1, b"result\n")
            serve._release_stdio()
            os.read(hold_r, 1)  # still running until the test lets it end
        finally:
            os._exit(0)
    os.close(out_w)
    os.close(hold_r)
    try:
        data = b""
        while True:
            import select

            ready, _, _ = select.select([out_r], [], [], 60.0)
            assert ready, "the output did not end while the child ran"
            chunk = os.read(out_r, 1024)
            if not chunk:
                break
            data += chunk
        assert data == b"result\n"
        assert os.waitpid(pid, os.WNOHANG)[0] == 0  # the output ended before the child did
    finally:
        os.close(hold_w)
        os.close(out_r)
        os.waitpid(pid, 0)


def _let_go(children: Any, pid: int, hold_w: int) -> None:
    """End a test's held request child (its pipe ``hold_w``, if still open) and check that the
    ``serve._Children`` under test reaped it."""
    if hold_w >= 0:
        os.close(hold_w)
    children.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, 0)  # reaped by ``reap``


def test_the_next_spare_waits_for_the_running_request() -> None:
    """``serve._Children``: no spare is due while a request's child runs (for at most
    ``SPARE_DEFER_S``), one is due once it ended, and the server's wait wakes on that end."""
    import select
    import time

    from eqsat import serve

    children = serve._Children()
    assert children.spare_due() and not children
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(hold_w)
        os.read(hold_r, 1)
        os._exit(0)
    os.close(hold_r)
    try:
        children.add(pid)
        if not children.fds():
            pytest.skip("no pidfd_open here: the spare is forked at once, as before")
        assert len(children) == 1
        assert not children.spare_due()
        assert 0.0 < children.wait_s(5.0) <= serve.SPARE_DEFER_S
        assert select.select(children.fds(), [], [], 0.0)[0] == []  # running: nothing to wake on
        os.close(hold_w)
        hold_w = -1
        assert select.select(children.fds(), [], [], 60.0)[0]  # its end wakes the server
        children.reap()
        assert not children and children.spare_due()
    finally:
        _let_go(children, pid, hold_w)
    # a request that ran SPARE_DEFER_S gets its spare anyway; without a descriptor to wake on, at once
    late = serve._Children()
    late.pids[12345] = (-1, time.monotonic() - serve.SPARE_DEFER_S)
    assert late.spare_due()
    late.pids = {12345: (None, time.monotonic())}
    assert late.spare_due()


def test_the_next_spare_is_due_once_the_running_request_says_it_is_done() -> None:
    """``serve._Children``: a spare's child that says on its socket that its request is done
    (``serve._run``, after its client has the exit status) makes the next spare due at once,
    before its own end (the teardown of a fork of the server); it is still reaped at its end."""
    import select
    import socket

    from eqsat import serve

    children = serve._Children()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the request's child: says it is done, then runs on until released
        os.close(hold_w)
        ours.close()
        theirs.send(b"d")
        theirs.close()
        os.read(hold_r, 1)
        os._exit(0)
    os.close(hold_r)
    theirs.close()
    try:
        children.add(pid, ours)
        if not children.fds() or len(children.fds()) < 2:
            pytest.skip("no pidfd_open here: the spare is forked at once, as before")
        ready = select.select(children.fds(), [], [], 60.0)[0]
        assert ready == [ours.fileno()]  # the note, not the child's end
        children.reap(ready)
        assert children.spare_due() and len(children) == 1  # due, though the child still runs
        assert children.fds() and ours.fileno() == -1  # the note's socket is closed
        os.close(hold_w)
        hold_w = -1
        assert select.select(children.fds(), [], [], 60.0)[0]  # its end wakes the server
        children.reap()
        assert not children and not children.done
    finally:
        _let_go(children, pid, hold_w)


def test_the_warm_up_runs_no_solver_or_thread_in_the_server() -> None:
    """A request is a fork of the server: a thread pool started in the server (HiGHS starts
    one on its first solve, egglog on its first run) has no threads in the fork, and a request
    that used it would wait forever. The warm-up runs no HiGHS solve (egglog runs only in the
    stage's forked worker) and leaves no Python thread running."""
    code = (
        "import os, threading, highspy, json\n"
        "runs = []\n"
        "class Spy(highspy.Highs):\n"
        "    def run(self, *a, **k):\n"
        "        runs.append(1)\n"
        "        return super().run(*a, **k)\n"
        "highspy.Highs = Spy\n"
        "from eqsat import serve\n"
        "before = len(os.listdir('/proc/self/task'))\n"
        "serve.warm()\n"
        "print(json.dumps([len(runs), before, len(os.listdir('/proc/self/task')), threading.active_count()]))\n"
    )
    if not Path("/proc/self/task").is_dir():
        pytest.skip("no /proc to count threads")
    env = {**os.environ}
    env.pop("EQSAT_IN_PROCESS", None)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    import json

    runs, before, after, python_threads = json.loads(p.stdout.strip().splitlines()[-1])
    # native threads may come and go with the libraries' own pools (OpenBLAS restarts its pool
    # in a fork by itself); what must not be there is a HiGHS solve or a Python thread
    assert runs == 0, (runs, before, after)
    assert python_threads == 1, (before, after, python_threads)


def _wait_for_server(env: dict[str, str], seconds: float = 240.0) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _run(["serve", "status"], env)[0] == 0:
            return True
        time.sleep(0.2)
    return False


def test_a_command_that_finds_no_server_starts_one_for_the_next(tmp_path: Path) -> None:
    """The first command runs in its own process and starts a server in the background; the
    next commands are served by it, with the same output; ``serve stop`` ends it."""
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    for name in ("EQSAT_NO_SERVER", "EQSAT_AUTOSTART"):
        env.pop(name, None)
    args = ["optimize", str(EXAMPLES / "sum_8.mlir")]
    try:
        first = _run(args, env)
        assert first[0] == 0 and b"tensor_ext.rotate" in first[1], first[2]
        assert list((tmp_path / "eqsat").glob("serve-*.log"))  # started (its log is open)
        assert _wait_for_server(env)
        before = _served(env)
        second = _run(args, env)
        assert _served(env) == before + 1
        assert second == first
        assert len(list((tmp_path / "eqsat").glob("serve-*.sock"))) == 1
    finally:
        _run(["serve", "stop"], env)
    assert not list((tmp_path / "eqsat").glob("serve-*.sock"))


@pytest.mark.parametrize(("args", "extra"), [
    (["optimize", str(EXAMPLES / "sum_8.mlir")], {"EQSAT_AUTOSTART": "0"}),
    (["optimize", str(EXAMPLES / "sum_8.mlir")], {"EQSAT_NO_SERVER": "1"}),
    (["optimize", "--help"], {}),
    (["serve", "status"], {}),
])
def test_no_server_is_started_when_asked_not_to_or_for_no_work(
        tmp_path: Path, args: list[str], extra: dict[str, str]) -> None:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path), **extra}
    if "EQSAT_AUTOSTART" not in extra:
        env.pop("EQSAT_AUTOSTART", None)
    code, _, err = _run(args, env)
    assert code in (0, 3), err
    # a server started by the command would have its log file open before the command ended
    assert not list(tmp_path.glob("eqsat/serve-*.log"))


def test_a_starting_server_replaces_older_versions_of_this_installation(tmp_path: Path) -> None:
    """``eqsat.serve._stop_older``: a server in the folder that runs this interpreter under
    another key (an older version of the sources) is stopped; one of another interpreter is not."""
    import socket
    import threading

    from eqsat import client, serve

    stops: list[str] = []

    def fake(name: str, python: str) -> socket.socket:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(tmp_path / f"serve-{name}.sock"))
        listener.listen(4)

        def answer() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                with conn:
                    msg = client.Messages(conn).next()
                    if msg is not None and msg["op"] == "stop":
                        stops.append(name)
                    client.send(conn, {"pid": 1, "python": python, "served": 0})

        threading.Thread(target=answer, daemon=True).start()
        return listener

    listeners = [fake("old", client.interpreter()), fake("other", "/elsewhere|/elsewhere/bin/python3")]
    try:
        serve._stop_older(tmp_path / "serve-new.sock")
    finally:
        for listener in listeners:
            listener.close()
    assert stops == ["old"]


def test_the_key_is_the_same_under_each_name_of_the_interpreter(tmp_path: Path) -> None:
    """A venv's ``python`` and ``python3`` are one interpreter: a server started by one serves
    the console script, whose first line names the other (pip writes ``python3`` when it runs
    under that name). Another environment's interpreter gets another key."""
    folder = Path(sys.executable).parent
    names = [p for p in (folder / "python", folder / "python3") if p.exists()]
    if len(names) < 2 or os.path.realpath(names[0]) != os.path.realpath(names[1]):
        pytest.skip("this environment has no second name for its interpreter")
    code = "from eqsat import client; print(client.server_key())"
    keys = {subprocess.run([str(p), "-c", code], capture_output=True, text=True, cwd=tmp_path,
                           check=True).stdout.strip() for p in names}
    assert len(keys) == 1, keys
    if sys.prefix != sys.base_prefix:  # the interpreter behind the venv, outside it: another key
        base = subprocess.run([os.path.realpath(sys.executable), "-c", code], capture_output=True, text=True,
                              cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert base.returncode == 0, base.stderr[-1000:]
        assert base.stdout.strip() not in keys


def test_messages_round_trip_whole_and_in_pieces() -> None:
    import socket

    from eqsat import client

    msgs = [{"op": "run", "argv": ["optimize", "caf\u00e9 \udcff.mlir"], "env": {"A": "1"}, "cwd": "/"},
            {"pid": 7}, {"exit": 2, "ok": True, "none": None, "x": 1.5}]
    ours, theirs = socket.socketpair()
    with ours, theirs:
        data = b"".join(client.pack(m) for m in msgs)
        for i in range(0, len(data), 3):  # three bytes at a time: messages split anywhere
            ours.sendall(data[i:i + 3])
        ours.shutdown(socket.SHUT_WR)
        got = client.Messages(theirs)
        assert [got.next() for _ in msgs] == msgs
        assert got.next() is None
    assert client.unpack(client.pack(msgs[0])[:-1]) is None
    with pytest.raises(ValueError):
        client.unpack(client.pack([1]))  # type: ignore[arg-type]


def test_no_server_is_started_again_soon_after_one_failed_to_start(tmp_path: Path) -> None:
    from eqsat import client

    folder = tmp_path / "eqsat"
    folder.mkdir()
    (folder / f"serve-{client.server_key()}.failed").write_text("SystemExit: no cache\n")
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    env.pop("EQSAT_AUTOSTART", None)
    code, out, err = _run(["optimize", str(EXAMPLES / "sum_8.mlir")], env)
    assert code == 0 and b"tensor_ext.rotate" in out, err
    assert not list(folder.glob("serve-*.log"))


def test_a_server_that_cannot_listen_leaves_a_failure_mark(tmp_path: Path) -> None:
    """A socket path longer than a Unix socket's name allows: the server warms up, cannot bind,
    exits non-zero and leaves ``serve-KEY.failed`` with the error beside the socket."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(deep)}
    p = subprocess.run([sys.executable, "-m", "eqsat.serve", "--idle-timeout", "5"], capture_output=True,
                       env=env, cwd=ROOT, timeout=300)
    assert p.returncode != 0
    marks = list((deep / "eqsat").glob("serve-*.failed"))
    assert len(marks) == 1 and "OSError" in marks[0].read_text()


def test_serve_start_waits_for_a_server_a_command_is_starting(tmp_path: Path) -> None:
    """Right after a command started a server in the background: ``serve status`` says it is
    starting, and ``serve start`` waits for that one instead of failing on its lock."""
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    for name in ("EQSAT_NO_SERVER", "EQSAT_AUTOSTART"):
        env.pop(name, None)
    try:
        assert _run(["optimize", str(EXAMPLES / "sum_8.mlir")], env)[0] == 0
        code, out, _ = _run(["serve", "status"], env)  # its warm-up takes seconds: still starting
        assert code == 0 or (code == 3 and b"is starting" in out), out
        code, _, err = _run(["serve", "start"], env)
        assert code == 0, err
        assert b"ready" in err or b"already running" in err
        assert len(list((tmp_path / "eqsat").glob("serve-*.sock"))) == 1
        assert _run(["serve", "status"], env)[0] == 0
    finally:
        _run(["serve", "stop"], env)


def test_the_key_lists_every_source_file_with_its_size_and_time(tmp_path: Path) -> None:
    """``_py_files``: one line per ``.py`` file (sub-folders too, in name order), none for
    ``__pycache__``, other files or a link to a folder; an edit of a file changes its line, and
    ``_checksum`` tells the two lists apart."""
    from eqsat import client

    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__pycache__").mkdir()
    (tmp_path / "pkg" / "b.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "a.py").write_text("y = 2\n")
    (tmp_path / "pkg" / "notes.txt").write_text("-")
    (tmp_path / "pkg" / "__pycache__" / "a.py").write_text("")
    (tmp_path / "pkg" / "sub" / "c.py").write_text("")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "d.py").write_text("")
    (tmp_path / "pkg" / "link").symlink_to(tmp_path / "elsewhere")
    lines: list[str] = []
    client._py_files(str(tmp_path / "pkg"), lines)
    assert [line.split("|")[0] for line in lines] == [str(tmp_path / "pkg" / n) for n in ("a.py", "b.py", "sub/c.py")]
    st = os.stat(tmp_path / "pkg" / "b.py")
    assert lines[1] == f"{tmp_path / 'pkg' / 'b.py'}|{st.st_size}|{st.st_mtime_ns}"
    os.utime(tmp_path / "pkg" / "b.py", ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    again: list[str] = []
    client._py_files(str(tmp_path / "pkg"), again)
    assert again != lines
    assert client._checksum("\n".join(again).encode()) != client._checksum("\n".join(lines).encode())


@given(data=st.binary(min_size=7, max_size=300), at=st.integers(min_value=0), new=st.binary(min_size=1, max_size=7))
def test_the_checksum_sees_every_short_edit(data: bytes, at: int, new: bytes) -> None:
    """Replacing up to 7 bytes anywhere changes ``_checksum`` (a prime modulus above 256**7)."""
    from eqsat import client

    at %= len(data) - len(new) + 1
    edited = data[:at] + new + data[at + len(new):]
    assume(edited != data)
    assert client._checksum(edited) != client._checksum(data)
