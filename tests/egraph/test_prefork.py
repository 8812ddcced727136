"""The early e-graph worker (eqsat/egraph/prefork.py): forked before the input is read, it gets
the program as a job and gives the result a worker forked at the stage gives -- also for a
tensor program whose linear maps the frontend registered after the fork -- and an unused one
is ended.  Each check runs in a fresh interpreter (the worker must be forked before egglog is
loaded, which a test process has done long before)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EX = Path(__file__).resolve().parents[2] / "examples"

CODE = """
import json, os, sys
from eqsat.egraph import prefork
prefork.start()
early = prefork._HANDLE is not None
from eqsat.cli import _read_program
from eqsat.pipeline import optimize
prog = _read_program(sys.argv[1], None)
res = optimize(prog, "bgv")
used = prefork._HANDLE is None
print(json.dumps([early, used, res.to_mlir(), res.report["egraph"]["iterations"]]))
"""


def _run(example: str, **env: str) -> list[object]:
    out = subprocess.run([sys.executable, "-c", CODE, str(EX / example)], capture_output=True, text=True, check=True,
                         env={**os.environ, **env})
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


NO_EARLY = not hasattr(os, "fork") or (os.cpu_count() or 1) < 2


@pytest.mark.skipif(NO_EARLY, reason="the early worker needs fork and 2 cores")
@pytest.mark.parametrize("example", ["sum_8.mlir", "linalg_sum_pool_8x8.mlir"])
def test_the_early_worker_gives_the_result_of_a_late_one(example: str) -> None:
    early, used, text, iterations = _run(example)
    assert early and used
    late = _run(example, EQSAT_IN_PROCESS="1")  # no early worker; the stage in this process
    assert late[0] is False
    assert (text, iterations) == (late[2], late[3])


@pytest.mark.skipif(NO_EARLY, reason="the early worker needs fork and 2 cores")
def test_a_big_program_gets_a_late_worker_and_the_early_one_is_ended() -> None:
    code = CODE.replace("res = optimize", "import eqsat.egraph.guard as g\ng.EARLY_MAX_NODES = 3\nres = optimize")
    code += "g.reap(wait=True)\n"  # the late worker, which handed back its result and ended
    code += ("import os\ntry:\n    os.waitpid(-1, os.WNOHANG)\n    left = True\n"
             "except ChildProcessError:\n    left = False\n")
    code += "print(json.dumps(left))\n"
    out = subprocess.run([sys.executable, "-c", code, str(EX / "sum_8.mlir")], capture_output=True, text=True,
                         check=True)
    lines = out.stdout.strip().splitlines()
    early, used, text, _ = json.loads(lines[-2])
    assert early and used and "tensor_ext.rotate" in text  # optimized by a late worker
    assert json.loads(lines[-1]) is False  # no child left: the early one was ended and reaped


@pytest.mark.skipif(NO_EARLY, reason="the early worker needs fork and 2 cores")
def test_an_unused_early_worker_is_ended() -> None:
    code = (
        "import json, os\n"
        "from eqsat.egraph import prefork\n"
        "prefork.start()\n"
        "pid = prefork._HANDLE.pid\n"
        "prefork.discard()\n"
        "prefork.reap(wait=True)\n"  # discard does not wait for its teardown
        "try:\n"
        "    os.waitpid(pid, 0)\n"
        "    reaped = False\n"
        "except ChildProcessError:\n"
        "    reaped = True\n"
        "print(json.dumps([reaped, prefork._HANDLE is None]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, True]


def test_no_early_worker_where_egglog_is_loaded() -> None:
    code = (
        "import json\n"
        "from eqsat.egraph.egglog_import import bindings\n"
        "bindings()\n"
        "from eqsat.egraph import prefork\n"
        "prefork.start()\n"
        "print(json.dumps(prefork._HANDLE is None))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) is True
