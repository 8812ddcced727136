"""Start-up cost: the command line imports only what a run uses.

``import eqsat.cli`` (what the ``eqsat`` command and its server client load before any
work) must not import the optimizer's heavy dependencies, and a plain ``optimize`` of a
small program must not import the ones only other commands use (the executor's
galois/numba, plotting, SciPy, Dask).  Each check runs in a fresh interpreter and reads
``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: never needed to parse argv and forward it (or to print --version)
HEAVY_FOR_IMPORT = ("egglog", "xdsl", "numpy", "highspy", "black", "matplotlib", "scipy", "numba", "galois",
                    "dask", "rich", "cloudpickle")
#: never needed by ``eqsat optimize`` of a small BGV program
HEAVY_FOR_OPTIMIZE = ("matplotlib", "scipy", "numba", "galois", "dask", "distributed", "pandas")


def _loaded(code: str, env: dict[str, str] | None = None) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _roots(names: set[str], wanted: tuple[str, ...]) -> list[str]:
    return sorted(w for w in wanted if any(n == w or n.startswith(w + ".") for n in names))


def test_importing_the_cli_loads_no_heavy_module() -> None:
    names = _loaded("import json, sys, eqsat.cli; print(json.dumps(sorted(sys.modules)))")
    assert _roots(names, HEAVY_FOR_IMPORT) == []


def test_a_plain_optimize_loads_no_backend_or_plotting_module() -> None:
    import os

    code = (
        "import contextlib, io, json, sys\n"
        "from eqsat.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['optimize', {str(EXAMPLES / 'sum_8.mlir')!r}, '--quiet'])\n"
        "assert code == 0\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    # in process: the e-graph worker's imports count too
    names = _loaded(code, env={**os.environ, "EQSAT_IN_PROCESS": "1"})
    assert "eqsat.pipeline" in names  # the check ran the optimizer
    assert _roots(names, HEAVY_FOR_OPTIMIZE) == []
