"""The ``eqsat`` command (the console script's entry point).

In: ``sys.argv``.  Out: the process's exit status: the command run by a running ``eqsat
serve`` (``eqsat.client.forward``), else here by ``eqsat.cli.main``.  Only the thin client is
imported before the command is handed over: ``eqsat.cli`` (argparse, typing, the package's
error types) loads only when no server runs.
"""

from __future__ import annotations

import sys


def main() -> None:
    from eqsat.client import forward

    code = forward(sys.argv[1:])
    if code is None:
        from eqsat.cli import main as run_here

        code = run_here(offer=False)
    sys.exit(code)
