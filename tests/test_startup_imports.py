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


#: what the ``eqsat`` command's client (``eqsat.entry``) must not import before it hands
#: the command to a server: each is a few ms of every warm command
NOT_FOR_FORWARDING = ("eqsat.cli", "argparse", "typing", "hashlib", "importlib.util", "pathlib", "contextlib")


def test_the_client_imports_little_before_forwarding() -> None:
    code = ("import json as _j, sys\n"
            "base = set(sys.modules)\n"
            "import eqsat.entry, eqsat.client as c\n"
            "c.server_key(); c._socket_file()\n"
            "print(_j.dumps(sorted(set(sys.modules) - base)))\n")
    names = _loaded(code)
    assert "eqsat.client" in names
    assert _roots(names, NOT_FOR_FORWARDING) == []


def test_the_environments_start_up_hooks_import_little() -> None:
    """What every interpreter of the environment imports before the ``eqsat`` command's first
    line (``site`` and the ``.pth`` files' import lines of the installed packages): nothing the
    client avoids. ``cmeel`` (the build tool ``cmeel-mimalloc`` depends on, which the README
    installs without it: ``eqsat.allocator``) has a hook that imports ``pathlib`` and ``re``."""
    out = subprocess.run([sys.executable, "-c", "import sys; print(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True).stdout
    names = set(out.split())
    assert _roots(names, (*NOT_FOR_FORWARDING, "re", "enum", "fnmatch", "urllib")) == []


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


#: egglog's Python layer (and what it imports): a run sends egglog text through the Rust
#: bindings only (``eqsat.egraph.egglog_import``)
EGGLOG_PYTHON_LAYER = ("egglog.egraph", "egglog.builtins", "egglog.conversion", "egglog.pretty", "black", "graphviz",
                       "opentelemetry")


def test_the_help_of_optimize_loads_no_heavy_module() -> None:
    code = (
        "import contextlib, io, json, sys\n"
        "from eqsat.cli import build_parser\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    build_parser().parse_args(['optimize', '--help'])\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    names = _loaded(code)
    assert _roots(names, HEAVY_FOR_IMPORT) == []
    assert "importlib.metadata" not in names  # --version is looked up only when asked


def _optimize_modules(example: str) -> set[str]:
    import os

    code = (
        "import contextlib, io, json, sys\n"
        "from eqsat.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['optimize', {str(EXAMPLES / example)!r}, '--quiet'])\n"
        "assert code == 0\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    return _loaded(code, env={**os.environ, "EQSAT_IN_PROCESS": "1"})


def test_a_plain_optimize_uses_egglogs_bindings_without_its_python_layer() -> None:
    names = _optimize_modules("sum_8.mlir")
    assert "egglog.bindings" in names  # the e-graph stage ran, in this process
    assert _roots(names, EGGLOG_PYTHON_LAYER) == []
    # nor the rule families and specs (defined through egglog's Python layer): the compiled text is read
    assert not any(n.startswith(("eqsat.rules.", "eqsat.rulespec.spec", "eqsat.term")) and n != "eqsat.term_ops"
                   for n in names)


def test_xdsl_dialects_are_loaded_when_the_input_uses_them() -> None:
    plain = _optimize_modules("sum_8.mlir")
    assert _roots(plain, ("xdsl.dialects.affine", "xdsl.dialects.scf", "xdsl.dialects.linalg",
                          "eqsat.frontend.mlir.linalg_lower")) == []
    loops = _optimize_modules("sum_loop.mlir")  # affine.for
    assert "xdsl.dialects.affine" in loops and "eqsat.frontend.mlir.linalg_lower" not in loops
    tensors = _optimize_modules("linalg_sum_pool_8x8.mlir")
    assert "eqsat.frontend.mlir.linalg_lower" in tensors and "xdsl.dialects.linalg" in tensors


def test_the_shape_op_names_are_the_lowerings_classes() -> None:
    from eqsat.frontend.mlir import SHAPE_OP_NAMES
    from eqsat.frontend.mlir.linalg_lower import SHAPE_OPS

    assert {c.name for c in SHAPE_OPS} == SHAPE_OP_NAMES


def test_the_family_names_are_the_registrys_keys() -> None:
    from eqsat.rules import FAMILY_NAMES, REGISTRY, SCHEDULES

    assert tuple(REGISTRY) == FAMILY_NAMES
    assert all(set(s) <= set(FAMILY_NAMES) for s in SCHEDULES.values())


def test_the_bindings_alone_then_the_whole_package() -> None:
    code = (
        "import json, sys\n"
        "from eqsat.egraph.egglog_import import bindings, package_folders\n"
        "b = bindings()\n"
        "egg = b.EGraph()\n"
        "egg.run_program(*egg.parse_program('(datatype E (N i64)) (N 1)'))\n"
        "alone = 'egglog.egraph' in sys.modules\n"
        "folders = package_folders()\n"
        "still = 'egglog.egraph' in sys.modules\n"
        "import egglog\n"  # the lazy package loads now, complete, with the same bindings
        "from egglog import bindings as again\n"
        "print(json.dumps([alone, still, bool(folders), egglog.bindings is b, again is b,\n"
        "                  hasattr(egglog, 'EGraph')]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [False, False, True, True, True, True]


def test_the_bindings_after_the_whole_package() -> None:
    code = (
        "import json, egglog\n"
        "from eqsat.egraph.egglog_import import bindings\n"
        "print(json.dumps(bindings() is egglog.bindings))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) is True
