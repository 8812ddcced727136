"""``eqsat.pagewarm``: the pages one forked process wrote are recorded, the next fork of the same
parent makes its own copies of them before its work (and stops when told to), the contents stay
as they were, and the heap grown ahead serves the next allocations.

Each case forks: the process that learns and the one that writes ahead must be forks of one
parent holding the memory, as a server's request children are.  Page faults are counted
(``ru_minflt``), not timed.
"""

from __future__ import annotations

import json
import mmap
import os
import resource
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eqsat import pagewarm

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not hasattr(os, "fork"),
                                reason="Linux's pagemap and madvise, and fork")

PAGES = 256  # 1 MiB of the parent's memory


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _in_fork(fn: Callable[[], object]) -> object:
    """``fn()`` in a fork of this process; its JSON-able value."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            os.write(w, json.dumps(fn()).encode())
        except BaseException as e:  # reported to the test
            os.write(w, json.dumps({"error": repr(e)}).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        out = json.loads(f.read() or b"null")
    os.waitpid(pid, 0)
    assert not (isinstance(out, dict) and "error" in out), out
    return out


@pytest.fixture
def memory(tmp_path: Path) -> mmap.mmap:
    """A private writable mapping written in this process (so forks share it copy-on-write), and
    the pages files in ``tmp_path``."""
    old = pagewarm.STEM
    pagewarm.STEM = str(tmp_path / "serve-test")
    buf = mmap.mmap(-1, PAGES * mmap.PAGESIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    for i in range(PAGES):
        buf[i * mmap.PAGESIZE] = i % 251
    yield buf
    pagewarm.STEM = old
    buf.close()


def _write_even_pages(buf: mmap.mmap) -> int:
    """Write every second page of ``buf`` (a byte changed and put back); the faults it took."""
    f0 = _faults()
    for i in range(0, PAGES, 2):
        at = i * mmap.PAGESIZE + 7
        buf[at] = (buf[at] + 1) % 256
        buf[at] = (buf[at] - 1) % 256
    return _faults() - f0


def _request(buf: mmap.mmap, stop: Callable[[], bool] = lambda: False) -> dict[str, int]:
    """What a request's process does: write ahead while it waits, work, record."""
    ahead = pagewarm.prewrite("worker", stop)
    faults = _write_even_pages(buf)
    return {"ahead": ahead, "faults": faults, "recorded": pagewarm.record()}


def test_the_next_fork_writes_ahead_the_pages_the_last_one_wrote(memory: mmap.mmap) -> None:
    first = _in_fork(lambda: _request(memory))
    assert isinstance(first, dict)
    assert first["ahead"] == 0  # nothing learned yet
    assert first["faults"] >= PAGES // 2  # a copy of each page it wrote
    assert first["recorded"] >= PAGES // 2
    assert Path(pagewarm.path("worker") or "").exists()
    second = _in_fork(lambda: _request(memory))
    assert isinstance(second, dict)
    assert second["ahead"] >= PAGES // 2
    assert second["faults"] < PAGES // 8  # its copies were made before its work


def test_writing_ahead_changes_no_byte(memory: mmap.mmap) -> None:
    before = bytes(memory)
    _in_fork(lambda: _request(memory))

    def ahead_then_read() -> list[object]:
        n = pagewarm.prewrite("worker", lambda: False)
        return [n, bytes(memory) == before]

    n, same = _in_fork(ahead_then_read)  # type: ignore[misc]
    assert n >= PAGES // 2 and same
    assert bytes(memory) == before  # and the parent's own pages are untouched


def test_writing_ahead_stops_when_the_work_comes(memory: mmap.mmap) -> None:
    _in_fork(lambda: _request(memory))
    assert _in_fork(lambda: pagewarm.prewrite("worker", lambda: True)) == 0
    calls: list[int] = []

    def second_look_stops() -> bool:
        calls.append(1)
        return len(calls) >= 2

    def partly() -> list[int]:
        n = pagewarm.prewrite("worker", second_look_stops)
        return [n, len(calls)]

    n, looks = _in_fork(partly)  # type: ignore[misc]
    assert looks == 2  # nothing more after the work came
    assert n <= pagewarm.CHUNK_PAGES


def test_nothing_is_learned_outside_a_server_or_in_a_fork_of_the_learner(memory: mmap.mmap) -> None:
    assert _in_fork(lambda: pagewarm.record()) == 0  # never wrote ahead: records nothing

    def in_a_fork_of_the_learner() -> object:
        pagewarm.prewrite("worker", lambda: False)
        return _in_fork(lambda: pagewarm.record())  # e.g. an e-graph worker's checkpoint

    assert _in_fork(in_a_fork_of_the_learner) == 0
    pagewarm.STEM = None
    out = _in_fork(lambda: _request(memory))
    assert isinstance(out, dict) and (out["ahead"], out["recorded"]) == (0, 0)


#: a fresh interpreter (its heap small and in one piece, as a server's fork has it): grow the heap
#: ahead by ``sys.argv[1]`` bytes, then allocate 2 MiB in blocks below glibc's threshold for a
#: mapping of their own and write them; the faults that took
_ALLOCATE = """
import ctypes, resource, sys
from eqsat import pagewarm
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
grow = int(sys.argv[1])
assert pagewarm.pregrow(grow, lambda: False) == grow
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(32):
    ctypes.memset(libc.malloc(60 << 10), 1, 60 << 10)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
"""


def test_the_heap_grown_ahead_serves_the_next_allocations() -> None:
    import subprocess

    def faults(grow: int) -> int:
        out = subprocess.run([sys.executable, "-c", _ALLOCATE, str(grow)], capture_output=True, text=True,
                             check=True, timeout=60)
        return int(out.stdout)

    cold, grown = faults(0), faults(4 << 20)
    assert cold >= 256  # a fault per page written: 512
    assert grown < cold // 4
    assert _in_fork(lambda: pagewarm.pregrow(4 << 20, lambda: True)) == 0  # stopped at once
