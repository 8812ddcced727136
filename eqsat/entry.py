"""The ``eqsat`` command (the console script's entry point).

In: ``sys.argv``.  Out: the process's exit status: the command run by a running ``eqsat
serve`` (``eqsat.client.forward``), else here by ``eqsat.cli.main`` -- after starting a server in
the background for the next commands (``eqsat.client.start_in_background``).  Only the thin client is
imported before the command is handed over: ``eqsat.cli`` (argparse, typing, the package's
error types) loads only when no server runs.
"""

from __future__ import annotations

import sys


def main() -> None:
    from eqsat.client import forward

    code = forward(sys.argv[1:])
    if code is None:
        from eqsat.client import start_in_background

        start_in_background(sys.argv[1:])  # warms up while this command runs here
        from eqsat.cli import main as run_here

        code = run_here(offer=False)
    sys.exit(code)
