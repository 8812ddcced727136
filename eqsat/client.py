"""The thin side of the warm start: find a running ``eqsat serve`` and hand it one command.

In: the command line (``sys.argv[1:]``) of an ``eqsat`` process.  Out: ``forward(argv)``,
the command's exit status after a server ran it -- its output written straight to this
process's stdout and stderr -- or None when no server for this installation runs (the
caller then runs the command itself).  Also ``server_key``, ``socket_path`` and the
requests ``stop``/``status`` that ``eqsat serve`` uses.

How: the server (``eqsat.serve``) listens on a Unix socket named by ``server_key()``, a
hash of the Python interpreter and of every source file of the installed package (its
path, size and modification time; this covers the rule definitions whose compiled egglog
text ``eqsat.egraph.compiled`` caches) and of the egglog, xDSL and HiGHS installations.  Any
edit or reinstall gives a new key, so a stale server is never asked.  The client sends
argv, the working directory and the environment, and passes its own stdin, stdout and
stderr as file descriptors (``SCM_RIGHTS``): the server's child for this request writes
to them directly, so the output is the bytes an in-process run writes, a terminal stays a
terminal (progress), and ``-`` reads this process's stdin.  Ctrl-C here is passed on to
the child.  This module imports nothing heavy: it runs before every command.
"""

from __future__ import annotations

import _signal
import _socket  # the C layer of ``socket``, whose Python layer imports enum, selectors... (4 ms a command)
import marshal
import os
import sys

TYPE_CHECKING = False  # not ``typing``'s: importing typing costs every command a few ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

#: the package folders whose sources define a server's behaviour
_PACKAGES = ("eqsat", "eqsat.rules", "eqsat.backend")
#: the dependencies whose installation is part of the key (by their top-level file)
_DEPENDENCIES = ("egglog", "xdsl", "highspy")
PROTOCOL = 2
#: the environment variable that keeps every command in its own process
NO_SERVER_ENV = "EQSAT_NO_SERVER"
#: ``0`` here: a command that finds no server does not start one (it still uses one that runs)
AUTOSTART_ENV = "EQSAT_AUTOSTART"
#: a server started by a command (not by ``eqsat serve start``) stops after this long unused
AUTOSTART_IDLE_S = 900.0
#: after a server of this key failed to start (``serve-KEY.failed`` beside the socket, its error),
#: commands start none for this long; ``eqsat serve start`` still tries, and removes the mark
AUTOSTART_RETRY_S = 3600.0
#: the commands that start a server when none runs: the ones that optimize or run a program
#: (``serve`` manages servers itself; ``fuzz`` runs its own long-lived workers)
AUTOSTART_COMMANDS = ("optimize", "explain", "run")
_KEY: list[str] = []  # this process's server key, computed once


def _find(name: str, path: Any = None) -> Any:
    """The module spec of ``name`` from the import system's finders (the editable install's
    among them), without importing it or ``importlib.util`` (a few ms of every command)."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(name, path) if find is not None else None
        if spec is not None:
            return spec
    return None


def _py_files(folder: str, out: list[str]) -> None:
    """Append a line ``path|size|mtime_ns`` per ``.py`` file under ``folder`` to ``out`` (sorted
    names, ``__pycache__`` skipped, links to folders not followed): one ``scandir`` per folder and
    one ``stat`` per file -- ``os.walk`` and then ``os.stat`` took twice as long (1.4 against 0.7 ms
    for the package's 142 files, a cost of every command)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        if e.name.endswith(".py"):
            try:
                st = e.stat()
            except OSError:
                continue
            out.append(f"{e.path}|{st.st_size}|{st.st_mtime_ns}")
        elif e.name != "__pycache__" and e.is_dir(follow_symlinks=False):
            _py_files(e.path, out)


def _package_files() -> list[str]:
    """A line per source file of the package folders (``_py_files``)."""
    import eqsat

    lines: list[str] = []
    for name in _PACKAGES:
        spec = eqsat.__spec__ if name == "eqsat" else _find(name, eqsat.__path__)
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            _py_files(folder, lines)
    return lines


#: the modulus of ``_checksum``: the Mersenne prime 2**61 - 1
_MODULUS = (1 << 61) - 1


def _checksum(data: bytes) -> int:
    """``data`` read as one little-endian integer, modulo ``_MODULUS``: a 61-bit checksum without
    importing ``zlib`` (0.7 ms of every command; this takes 0.05 ms for the key's 15 KB). Replacing
    bytes at offset ``k`` changes the integer by ``d * 256**k`` with ``0 < |d| < 256**len``; the
    prime modulus divides that only when it divides ``d``, so an edit of one field of under 7
    bytes' value (a size, a modification time's last digits) always changes the checksum, and
    any other edit with chance 2**-61 at most."""
    return int.from_bytes(data, "little") % _MODULUS


def interpreter() -> str:
    """This interpreter, named the same whichever of its names started it: the environment
    (``sys.prefix``: a virtual environment's folder) and the real file behind
    ``sys.executable`` (a venv's ``python`` and ``python3`` are links to one interpreter; the
    console script runs the one pip wrote in its first line)."""
    return f"{sys.prefix}|{os.path.realpath(sys.executable)}"


def server_key() -> str:
    """A hash of the interpreter, the package's source files and its main dependencies (61 bits:
    ``_checksum`` of their paths, sizes and modification times)."""
    text = [f"{PROTOCOL}|{interpreter()}|{sys.version}", *_package_files()]
    for dep in _DEPENDENCIES:
        spec = _find(dep)
        origin = spec.origin if spec is not None else None
        if origin and os.path.exists(origin):
            st = os.stat(origin)
            text.append(f"{dep}|{origin}|{st.st_size}|{st.st_mtime_ns}")
    return f"{_checksum(chr(10).join(text).encode()):016x}"


def _socket_dir() -> str:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "eqsat")
    env = os.environ.get("EQSAT_CACHE_DIR")
    if env:
        return os.path.join(env, "run")
    xdg = os.environ.get("XDG_CACHE_HOME")
    return os.path.join(xdg or os.path.join(os.path.expanduser("~"), ".cache"), "eqsat", "run")


def socket_dir() -> Path:
    """``$XDG_RUNTIME_DIR/eqsat`` (per user, private), else ``run`` in eqsat's cache folder
    (``$EQSAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/eqsat``, else ``~/.cache/eqsat``)."""
    from pathlib import Path

    return Path(_socket_dir())


def _socket_file(key: str | None = None) -> str:
    if key is None:
        if not _KEY:
            _KEY.append(server_key())
        key = _KEY[0]
    return os.path.join(_socket_dir(), f"serve-{key}.sock")


def socket_path(key: str | None = None) -> Path:
    from pathlib import Path

    return Path(_socket_file(key))


# -- messages: a 4-byte length, then the message (a dict of str, int, float, bool, None, lists and
#    dicts of those) in ``marshal``'s format: no ``json`` (``re``, ``enum``: 2-3 ms of every command).
#    Only the user reaches the socket (its folder is private), so the server reads only what the
#    user's own ``eqsat`` commands wrote.
def pack(msg: dict[str, Any]) -> bytes:
    body = marshal.dumps(msg)
    return len(body).to_bytes(4, "little") + body


def unpack(data: bytes) -> dict[str, Any] | None:
    """The message that ``data`` holds whole, else None (the rest has not arrived yet)."""
    if len(data) < 4 or len(data) < 4 + int.from_bytes(data[:4], "little"):
        return None
    msg = marshal.loads(data[4:4 + int.from_bytes(data[:4], "little")])
    if not isinstance(msg, dict):
        raise ValueError("not a message")
    return msg


def send(conn: _socket.socket, msg: dict[str, Any], fds: list[int] | None = None) -> None:
    data = pack(msg)
    if fds:  # the descriptors go with the first bytes (``socket.send_fds`` without ``socket``)
        rights = b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds)
        sent = conn.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, rights)])
        data = data[sent:]
    if data:
        conn.sendall(data)


class Messages:
    """The messages a socket receives, one at a time (None at the end of the stream)."""

    def __init__(self, conn: _socket.socket) -> None:
        self.conn, self.buf = conn, b""

    def next(self) -> dict[str, Any] | None:
        while (msg := unpack(self.buf)) is None:
            chunk = self.conn.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        self.buf = self.buf[4 + int.from_bytes(self.buf[:4], "little"):]
        return msg


def connect(path: Path | str, timeout: float | None = None) -> _socket.socket | None:
    """A connection to the server at ``path``, or None when none listens there."""
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    conn.settimeout(timeout)
    try:
        conn.connect(str(path))
    except OSError:  # no file, refused (a server that died), path too long
        conn.close()
        return None
    return conn


def request(path: Path, msg: dict[str, Any], timeout: float = 5.0) -> dict[str, Any] | None:
    """One request and its one answer (``status``, ``stop``); None when no server answers."""
    conn = connect(path, timeout)
    if conn is None:
        return None
    try:
        send(conn, msg)
        return Messages(conn).next()
    except (OSError, ValueError, EOFError):
        return None
    finally:
        conn.close()


def status(path: Path | None = None) -> dict[str, Any] | None:
    return request(path or socket_path(), {"op": "status"})


def stop(path: Path | None = None) -> dict[str, Any] | None:
    return request(path or socket_path(), {"op": "stop"})


def forward(argv: list[str]) -> int | None:
    """Run ``argv`` on the server of this installation; its exit status, or None when no
    server runs (or ``EQSAT_NO_SERVER=1``, or the command is ``serve`` itself, or
    ``EQSAT_IN_PROCESS=1`` asks for the e-graph stage in the command's own process: a request
    is a fork of the server, where egglog waits forever for the thread pool the fork lacks)."""
    if "1" in (os.environ.get(NO_SERVER_ENV), os.environ.get("EQSAT_IN_PROCESS")) or (argv and argv[0] == "serve"):
        return None
    path = _socket_file()
    if not os.path.exists(path):
        return None
    conn = connect(path)
    if conn is None:
        return None
    try:
        messages = Messages(conn)
        try:
            send(conn, {"op": "run", "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)},
                 fds=[0, 1, 2])
            started = messages.next()
        except (OSError, ValueError, EOFError):
            started = None
        if started is None or "pid" not in started:
            return None  # the server did not take the command: run it here
        pid = int(started["pid"])
        while True:
            try:
                done = messages.next()
                break
            except KeyboardInterrupt:  # Ctrl-C reaches this process's group only: pass it on
                try:  # noqa: SIM105 -- contextlib is not imported here (start-up)
                    os.kill(pid, _signal.SIGINT)
                except OSError:
                    pass
            except (OSError, ValueError, EOFError):
                done = None
                break
    finally:
        conn.close()
    if done is None or "exit" not in done:
        print("eqsat: internal error: the server's worker ended without an exit status (see `eqsat serve status`)",
              file=sys.stderr)
        return 1
    return int(done["exit"])


def locked(path: str) -> bool | None:
    """Whether the lock file beside the socket ``path`` is held: a server of that key runs or
    is starting (it takes the lock before its warm-up). None when the folder cannot be used."""
    import fcntl

    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path[: -len(".sock")] + ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def start_in_background(argv: list[str]) -> int | None:
    """After ``forward`` found no server: start one in the background for the commands that
    follow (this one runs in its own process meanwhile), as a build tool starts its daemon.
    Its pid, or None when none was started: ``EQSAT_NO_SERVER=1``, ``EQSAT_IN_PROCESS=1`` or
    ``EQSAT_AUTOSTART=0`` in the environment, a command other than ``AUTOSTART_COMMANDS``
    (or asking for ``--help``), a server of this installation that runs or is starting (it
    holds the lock file beside the socket), or one that failed to start within the last
    ``AUTOSTART_RETRY_S`` seconds.  The server stops after ``AUTOSTART_IDLE_S``
    seconds without a request, writes its log beside its socket, and replaces the servers of
    older versions of this installation (``eqsat.serve``).  On a terminal one line on stderr
    says so."""
    env = os.environ
    if "1" in (env.get(NO_SERVER_ENV), env.get("EQSAT_IN_PROCESS")) or env.get(AUTOSTART_ENV) == "0":
        return None
    if not argv or argv[0] not in AUTOSTART_COMMANDS or "-h" in argv or "--help" in argv:
        return None
    import time

    path = _socket_file()
    stem = path[: -len(".sock")]
    try:  # a server of this key that failed to start lately: not again at every command
        if time.time() - os.stat(stem + ".failed").st_mtime < AUTOSTART_RETRY_S:
            return None
    except OSError:
        pass
    if locked(path) is not False:  # a server runs or starts (or the folder is unusable)
        return None
    # ``-P``: not the caller's folder first on the module path (it may hold another ``eqsat``)
    cmd = [sys.executable, "-P", "-m", "eqsat.serve", "--idle-timeout", str(AUTOSTART_IDLE_S)]
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, stem + ".log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
               (os.POSIX_SPAWN_DUP2, 1, 2)]
    try:
        pid = os.posix_spawn(sys.executable, cmd, dict(env), file_actions=actions, setsid=True)
    except OSError:
        return None
    if os.isatty(2):
        print(f"eqsat: a server starts in the background (pid {pid}) to run the next commands without "
              f"the start-up cost; `eqsat serve stop` ends it, {AUTOSTART_ENV}=0 turns this off",
              file=sys.stderr)
    return pid
