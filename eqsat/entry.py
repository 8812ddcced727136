"""The ``eqsat`` command (the console script's entry point).

In: ``sys.argv``.  Out: the process's exit status: the command run by a running ``eqsat
serve`` (``eqsat.client.forward``), else here by ``eqsat.cli.main`` -- after starting a server in
the background for the next commands (``eqsat.client.start_in_background``).  Only the thin client is
imported before the command is handed over: ``eqsat.cli`` (argparse, typing, the package's
error types) loads only when no server runs.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not ``typing``'s (start-up: see ``eqsat.client``)
if TYPE_CHECKING:
    from typing import NoReturn


def main() -> None:
    from eqsat.client import forward

    code = forward(sys.argv[1:])
    if code is not None:  # served: nothing of this process is left to clean up
        _exit_now(code)
    from eqsat.client import start_in_background

    start_in_background(sys.argv[1:])  # warms up while this command runs here
    from eqsat.cli import main as run_here

    sys.exit(run_here(offer=False))


def _exit_now(code: int) -> NoReturn:
    """Exit with ``code`` without the interpreter's finalization (its modules' teardown and
    garbage collection: 3-10 ms of a served command, measured; the client holds no resource
    that needs it -- its connection is closed, its output flushed here)."""
    import os

    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 -- contextlib is not imported here (start-up)
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code & 0xFF)  # the status ``sys.exit(code)`` gives
