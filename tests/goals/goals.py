"""One-line goal tests: ``assert_optimizes(program, rotate=3, mul=1)``.

In: a ``Program`` (or an example file name) and the expected op counts of the optimized
program (``None`` for "absent").  Out: the ``OptimizeResult``; fails if a count differs or
the optimized program computes anything else than the original on random inputs.
"""

from __future__ import annotations

from pathlib import Path

from eqsat.egraph.session import Limits
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Program
from eqsat.pipeline import OptimizeResult, optimize

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(name: str) -> Program:
    from eqsat.frontend.mlir import parse_mlir

    path = EXAMPLES / name
    return parse_mlir(path.read_text(), str(path))[0]


def assert_optimizes(prog: Program | str, scheme: str = "bgv", at_most: dict[str, int] | None = None,
                     limits: Limits | None = None, costs: dict[str, float] | None = None,
                     **expected: int) -> OptimizeResult:
    """``limits``: for kernels that saturate near the default 20 s time limit, a larger one
    keeps the outcome independent of how loaded the machine is.  ``costs``: cost-table
    overrides (e.g. ``FLAT``: every rotation priced as a full key switch)."""
    if isinstance(prog, str):
        prog = load(prog)
    res = optimize(prog, scheme=scheme, limits=limits, costs=costs)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    for op, k in expected.items():
        assert ops.get(op, 0) == k, f"{op}: expected {k}, got {ops.get(op, 0)}; after = {ops}"
    for op, k in (at_most or {}).items():
        assert ops.get(op, 0) <= k, f"{op}: expected at most {k}, got {ops.get(op, 0)}; after = {ops}"
    for seed in range(2):
        inputs = random_inputs(prog, seed, bound=20)
        assert results_equal(evaluate(prog, inputs, 65537), evaluate(res.program, inputs, 65537), 65537)
    return res
