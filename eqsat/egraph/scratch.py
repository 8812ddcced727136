"""Where the e-graph stage keeps its short-lived files: in memory when the machine has room.

In: nothing (``EQSAT_SCRATCH_DIR`` names a folder to use instead).  Out: ``root()``, the
folder to pass as ``dir=`` to ``tempfile`` for a run's scratch files -- the loader's row
tables (``eqsat.egraph.tables``) and the worker's hand-back pickles (``eqsat.egraph.guard``)
-- or None for the system's temporary folder.

Why: on a disk-backed ``/tmp`` creating, filling and removing such a folder took 4-8 ms
(measured on this project's build machine; 0.4-0.6 ms on ``/dev/shm``), and a small kernel's
command makes two of them.  ``/dev/shm`` is used only when it is a writable folder with at
least ``MIN_FREE_BYTES`` free (a container's default 64 MB would not hold a big e-graph's
hand-back), checked at each call.
"""

from __future__ import annotations

import os

SHM = "/dev/shm"
MIN_FREE_BYTES = 2 << 30
ENV = "EQSAT_SCRATCH_DIR"


def root() -> str | None:
    """The scratch folder (see the module docstring), or None: the system's temporary folder."""
    env = os.environ.get(ENV)
    if env:
        return env
    try:
        st = os.statvfs(SHM)
    except OSError:
        return None
    if st.f_bavail * st.f_frsize < MIN_FREE_BYTES or not os.access(SHM, os.W_OK | os.X_OK):
        return None
    return SHM
