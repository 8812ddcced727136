"""Reports equal the printed program (issue 13, item 2).

For every example and for generated programs (BGV, CKKS, noisy -- including 300-op noisy
programs), the optimized program printed as MLIR and parsed back has the report's op counts,
depth, cost and noise verdict. The noisy scheme prices and prints a plaintext operand as the
article's dialect has it: ``noisy.encode`` (a fresh 12-bit ciphertext), then the ciphertext op.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import eqsat
from eqsat.interp import PLAINTEXT_MODULUS, evaluate, random_inputs, results_equal
from eqsat.testing.programs import Shape, random_noisy_program, random_program
from eqsat.testing.reread import report_differences, reread

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
BIG = {"box_blur_64x64.mlir", "hamming_distance_1024.mlir", "box_blur_16x16.mlir", "roberts_cross_16x16.mlir"}
PROGS = Path(__file__).resolve().parent / "programs"


def scheme_of(name: str, prog: eqsat.Program) -> str:
    if name.startswith("noisy"):
        return "noisy"
    return "ckks" if any(t.is_float for _, t in prog.args) else "bgv"


def agree(prog: eqsat.Program, scheme: str) -> eqsat.OptimizeResult:
    res = eqsat.optimize(prog, scheme=scheme)
    assert report_differences(res, scheme) == []
    assert res.report["after"]["noise"]["legal"]  # type: ignore[index]
    return res


@pytest.mark.parametrize("path", [
    pytest.param(p, marks=pytest.mark.slow) if p.name in BIG else p for p in EXAMPLES
], ids=lambda p: p.name)
def test_every_example_report_equals_reread(path: Path) -> None:
    prog = eqsat.parse_mlir(path.read_text(), str(path))[0]
    agree(prog, scheme_of(path.name, prog))


def test_zero_times_is_zero_and_reread_agrees() -> None:
    prog = eqsat.parse_mlir((PROGS / "zero_times.mlir").read_text())[0]
    res = agree(prog, "noisy")
    again = reread(res)
    assert [again.nodes[r].op for r in again.results] == ["const"]  # x - x = 0, so 0 * q = 0
    assert again.nodes[again.results[0]].attrs[0] == 0


def test_noisy_constant_operand_is_an_encoded_fresh_ciphertext() -> None:
    # a constant times a 25-bit value: encode(c) has 12 bits, so the product would have 37 > 26
    text = (PROGS / "zero_times.mlir").read_text().replace("%z = noisy.sub %x, %x", "%z = noisy.add %x, %x")
    prog = eqsat.parse_mlir(text)[0]
    res = agree(prog, "noisy")
    assert res.report["after"]["noise"]["max_bits"] <= 26  # type: ignore[index]


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)])
def test_random_300_op_noisy_programs(seed: int) -> None:
    prog = random_noisy_program(300, seed)
    res = agree(prog, "noisy")
    again = reread(res)
    assert results_equal(evaluate(prog, {}, PLAINTEXT_MODULUS), evaluate(again, {}, PLAINTEXT_MODULUS),
                         PLAINTEXT_MODULUS)


@pytest.mark.parametrize("seed", range(6))
def test_random_programs_report_equals_reread(seed: int) -> None:
    shape = Shape(slots=4 if seed % 2 else 1, elem="i32", inputs=3,
                  ops={"add": 1, "sub": 1, "mul": 1, "mul_const": 1, "add_const": 1, "neg": 0.5,
                       **({"rotate": 1.0, "move_slot": 0.5} if seed % 2 else {})}, max_depth=3)
    prog = random_program(seed, 12, shape)
    res = agree(prog, "bgv")
    again = reread(res)
    inputs = random_inputs(prog, seed, bound=50)
    assert results_equal(evaluate(prog, inputs, PLAINTEXT_MODULUS), evaluate(again, inputs, PLAINTEXT_MODULUS),
                         PLAINTEXT_MODULUS)
