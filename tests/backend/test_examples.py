"""Every example program runs encrypted with match: true, before and after optimization.

Small examples run in the default suite; the large ones (thousands of rotations, or
an expensive e-graph) are marked slow.  Integer examples run under BGV; CKKS runs the
real-valued ones and, as a cross-check of the CKKS path, the small integer ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eqsat.backend import run_program
from eqsat.frontend.mlir import parse_mlir
from eqsat.interp import random_inputs
from eqsat.ir import Program

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.mlir"))
SLOW_RUN = {"box_blur_64x64", "hamming_distance_1024"}  # thousands of rotations at N >= 2048
FAST_OPT = {
    "sum_8",
    "sum_loop",
    "secret_generic_sum",
    "dot_product_8",
    "horner",
    "mul_by_9",
    "mul_by_255",
    "pow8",
    "pairwise_products",
    "noisy_branching",
    "noisy_squarings",
}  # the others spend seconds to minutes in the e-graph


def _programs(path: Path) -> list[Program]:
    return parse_mlir(path.read_text(), str(path))


def _check(res: dict[str, Any]) -> None:
    assert res["match"], (res["outputs"], res["reference"])
    for m, p in zip(
        res["noise"]["measured_bits_per_output"], res["noise"]["predicted_bits_per_output"], strict=True
    ):
        if m is not None:
            assert m <= p


def _params(fast: set[str] | None = None, slow: set[str] | None = None) -> list[Any]:
    def is_slow(stem: str) -> bool:
        return (fast is not None and stem not in fast) or (slow is not None and stem in slow)

    # a slow example may run its unoptimized source encrypted (the 64x64 blur: 47,000 rotations
    # at N = 8192, 44 min at load 7, 4.7 GB peak): beyond the suite's 900 s per test
    slow_marks = (pytest.mark.slow, pytest.mark.timeout(5400))
    return [pytest.param(p, id=p.stem, marks=slow_marks if is_slow(p.stem) else ()) for p in EXAMPLES]


@pytest.mark.parametrize("path", _params(slow=SLOW_RUN))
def test_example_runs_encrypted(path: Path) -> None:
    for prog in _programs(path):
        inputs = random_inputs(prog, 7)
        _check(run_program(prog, inputs, "bgv", insecure=True, seed=7))
        real = any(t.is_float for _, t in prog.args)
        if real or path.stem not in SLOW_RUN:
            _check(run_program(prog, inputs, "ckks", insecure=True, seed=7))


@pytest.mark.parametrize("path", _params(fast=FAST_OPT))
def test_optimized_example_runs_encrypted(path: Path) -> None:
    from eqsat.egraph.session import Limits
    from eqsat.pipeline import optimize

    for prog in _programs(path):
        scheme = "noisy" if prog.style == "noisy" else "bgv"  # a noisy-dialect program optimizes as such
        opt = optimize(prog, scheme=scheme, limits=Limits(iterations=8, nodes=20000, time_s=5.0)).program
        inputs = random_inputs(prog, 8)
        before = run_program(prog, inputs, "bgv", insecure=True, seed=8)
        after = run_program(opt, inputs, "bgv", insecure=True, seed=8)
        _check(before)
        _check(after)
        assert after["outputs"] == before["outputs"]
        if any(t.is_float for _, t in prog.args):
            _check(run_program(opt, inputs, "ckks", insecure=True, seed=8))
