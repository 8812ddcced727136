"""``eqsat.allocator``: the server runs on mimalloc when it is installed, on request only.

The server's own test (``test_serve.py``) starts it through ``eqsat serve start``; here the
re-execution itself: once, with the caller's ``LD_PRELOAD`` given back, never on the system
choice, never from a process that already runs on mimalloc.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eqsat import allocator

ROOT = Path(__file__).resolve().parent.parent

needs_lib = pytest.mark.skipif(allocator.library() is None, reason="cmeel-mimalloc is not installed")

#: a process that does what ``python -m eqsat.serve`` does first, then says what it runs on
PROBE = (
    "import os, sys; from eqsat import allocator; print('start', flush=True); allocator.reexec(); "
    "allocator.restore_environment(); "
    "print(allocator.active(), repr(os.environ.get('LD_PRELOAD')), allocator._ORIG_ENV in os.environ)"
)


def _probe(**env: str) -> list[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", allocator.ALLOCATOR_ENV)}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=full, cwd=ROOT,
                         check=True, timeout=60).stdout
    return out.splitlines()


@needs_lib
def test_the_library_is_a_file_of_the_installed_wheel() -> None:
    lib = allocator.library()
    assert lib is not None and os.path.isfile(lib) and "libmimalloc.so" in os.path.basename(lib)


@needs_lib
def test_a_process_is_executed_again_once_on_mimalloc_and_gets_its_environment_back() -> None:
    # "start" printed once: the second run of the program found the marker and did not execute again
    assert _probe() == ["start", "start", "mimalloc None False"]


@needs_lib
def test_the_callers_own_preload_is_kept_and_given_back() -> None:
    other = "libdoesnotexist-eqsat.so"  # the loader warns about it and goes on
    lines = _probe(LD_PRELOAD=other)
    assert lines[-1] == f"mimalloc {other!r} False"


def test_the_system_choice_runs_on_glibc_without_executing_again() -> None:
    assert _probe(EQSAT_ALLOCATOR="system") == ["start", "system None False"]


def test_the_choice_is_checked() -> None:
    os.environ[allocator.ALLOCATOR_ENV] = "tcmalloc"
    try:
        with pytest.raises(ValueError, match="mimalloc, system"):
            allocator.wanted()
    finally:
        del os.environ[allocator.ALLOCATOR_ENV]
    assert allocator.wanted() in allocator.CHOICES


def test_a_bad_choice_stops_the_server_with_a_message_and_a_failure_mark(tmp_path: Path) -> None:
    env = {**os.environ, allocator.ALLOCATOR_ENV: "tcmalloc", "XDG_RUNTIME_DIR": str(tmp_path)}
    p = subprocess.run([sys.executable, "-P", "-m", "eqsat.serve"], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=60)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [f"eqsat serve: {allocator.ALLOCATOR_ENV}='tcmalloc': expected one of "
                                             "mimalloc, system"]
    # the mark beside the socket: commands do not start such a server again at every command
    marks = list((tmp_path / "eqsat").glob("serve-*.failed"))
    assert len(marks) == 1 and "tcmalloc" in marks[0].read_text()
