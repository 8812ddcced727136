"""The memory allocator of the long-lived server: mimalloc in place of glibc's malloc.

In: the installed ``cmeel-mimalloc`` wheel (Linux; installed with ``--no-deps``: its one
dependency, the build tool ``cmeel``, adds a ``.pth`` start-up hook that imports ``pathlib``
and ``re`` in every interpreter of the environment, 7-9 ms of each served command), the environment variable
``EQSAT_ALLOCATOR`` (``mimalloc``, the default, or ``system``).  Out: ``library()``, the
path of ``libmimalloc.so`` (None without it); ``active()``, the allocator this process runs
on; ``reexec()``, which runs the calling command again with mimalloc preloaded when it is
wanted, installed and not yet in use (``eqsat.serve`` calls it first thing).

Why: egglog's rule runs allocate and free small vectors by the hundred thousand per
saturation (it rebuilds each rule's join plan from its cache on every run that has new rows),
and glibc's ``malloc``/``free`` were about a third of the CPU time of saturating a 4-slot
rotation cycle (``perf`` on ``rr_rotation_duplicated``: ``_int_malloc`` 13%, with
``malloc_consolidate``, ``unlink_chunk`` and ``_int_free``). The same saturation with mimalloc
preloaded took 38-42 ms against 46-52 ms (three interleaved rounds of 15), and served
requests 17-28% less wall time. glibc's own tunables (a larger tcache, no fastbins) gained
nothing measurable.

How: a preloaded library must be named before the process starts (``LD_PRELOAD``), so the
server executes itself again (``os.execve``, once: the marker variable ``EQSAT_ALLOCATOR_ORIG``
keeps the caller's own ``LD_PRELOAD`` and stops a second try) before it imports anything
heavy; ``restore_environment()`` then puts the caller's ``LD_PRELOAD`` back, so that nothing
the server starts inherits the allocator. Every request and e-graph worker is a fork of the
server and runs on the same allocator. A single ``eqsat optimize`` keeps glibc's malloc: one
more start of the interpreter would cost it about what it gains on small programs.
"""

from __future__ import annotations

import os
import sys
from functools import cache

#: the environment variable that chooses the server's allocator: mimalloc (default) or system
ALLOCATOR_ENV = "EQSAT_ALLOCATOR"
#: set for the executed-again process: the caller's LD_PRELOAD (possibly empty)
_ORIG_ENV = "EQSAT_ALLOCATOR_ORIG"
CHOICES = ("mimalloc", "system")


@cache
def library() -> str | None:
    """The path of the installed ``libmimalloc.so`` (the ``cmeel-mimalloc`` wheel), or None."""
    if not sys.platform.startswith("linux"):
        return None
    from importlib import metadata

    try:
        dist = metadata.distribution("cmeel-mimalloc")
    except metadata.PackageNotFoundError:
        return None
    for f in dist.files or ():
        name = f.name
        if name.startswith("libmimalloc.so") and "/lib/" in f"/{f.as_posix()}":
            path = str(dist.locate_file(f))
            if os.path.isfile(path):
                return os.path.realpath(path)
    return None


def wanted() -> str:
    """The allocator asked for by ``EQSAT_ALLOCATOR`` (``mimalloc`` when unset)."""
    choice = os.environ.get(ALLOCATOR_ENV, "mimalloc").strip().lower() or "mimalloc"
    if choice not in CHOICES:
        raise ValueError(f"{ALLOCATOR_ENV}={choice!r}: expected one of {', '.join(CHOICES)}")
    return choice


def active() -> str:
    """``mimalloc`` when this process has libmimalloc mapped, else ``system``."""
    try:
        with open("/proc/self/maps") as fh:
            return "mimalloc" if any("libmimalloc" in line for line in fh) else "system"
    except OSError:
        return "system"


def reexec() -> None:
    """Execute this command again with mimalloc preloaded, when it is wanted and installed and
    this process does not run on it yet (never twice); returns when nothing is to be done."""
    if _ORIG_ENV in os.environ:  # executed again already (the preload may have failed: no loop)
        return
    try:
        if wanted() != "mimalloc":
            return
    except ValueError:
        return  # the caller reports the bad value; nothing to do here
    lib = library()
    if lib is None or active() == "mimalloc":
        return
    env = dict(os.environ)
    orig = env.get("LD_PRELOAD", "")
    env[_ORIG_ENV] = orig
    env["LD_PRELOAD"] = f"{lib} {orig}".strip()
    sys.stdout.flush()
    sys.stderr.flush()
    argv = list(getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv])
    try:
        os.execve(sys.executable, argv, env)
    except OSError:
        return  # cannot execute again: run on glibc's malloc


def restore_environment() -> None:
    """After ``reexec``: the caller's own ``LD_PRELOAD`` back in ``os.environ`` (what this
    process starts does not inherit the allocator)."""
    orig = os.environ.pop(_ORIG_ENV, None)
    if orig is None:
        return
    if orig:
        os.environ["LD_PRELOAD"] = orig
    else:
        os.environ.pop("LD_PRELOAD", None)
