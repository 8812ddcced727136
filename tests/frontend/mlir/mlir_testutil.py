"""Shared helpers for the MLIR frontend/printer tests (imported by the test modules)."""

from __future__ import annotations

from pathlib import Path

from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Program

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
GOLDEN = Path(__file__).resolve().parent / "golden"
BAD = Path(__file__).resolve().parent / "bad"


def same_meaning(a: Program, b: Program, seeds: int = 3) -> bool:
    """``a`` and ``b`` agree on ``seeds`` random inputs (drawn from ``a``'s arguments)."""
    if [n for n, _ in a.args] != [n for n, _ in b.args]:
        return False
    for seed in range(seeds):
        inputs = random_inputs(a, seed, bound=64)
        if not results_equal(evaluate(a, inputs), evaluate(b, inputs)):
            return False
    return True
