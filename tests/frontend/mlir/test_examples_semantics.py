"""Each example means what its comment says: evaluated against a direct Python model."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from mlir_testutil import EXAMPLES

from eqsat.frontend.mlir import parse_mlir
from eqsat.interp import evaluate, random_inputs
from eqsat.ir import Program

Ref = Callable[[dict[str, list[int]]], list[object]]


def _stencil(img: list[int], n: int, weight: Callable[[int, int], int]) -> list[int]:
    return [
        sum(img[((x + i) * n + (y + j)) % (n * n)] * weight(i, j) for i in (-1, 0, 1) for j in (-1, 0, 1))
        for x in range(n)
        for y in range(n)
    ]


def _roberts(img: list[int], n: int) -> list[int]:
    def at(x: int, y: int) -> int:
        return img[(x * n + y) % (n * n)]

    return [
        (at(x - 1, y - 1) - at(x, y)) ** 2 + (at(x - 1, y) - at(x, y - 1)) ** 2
        for x in range(n)
        for y in range(n)
    ]


GX = [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]
REFERENCES: dict[str, Ref] = {
    "noisy_squarings": lambda v: [(3 * 4) ** 8],
    "noisy_branching": lambda v: [(12 + 4 * 4) + (12 - 3 - 3 * 4)],
    "sum_8": lambda v: [sum(v["arg0"])],
    "sum_loop": lambda v: [sum(v["x"])],
    "secret_generic_sum": lambda v: [sum(v["arg0"])],
    "dot_product_8": lambda v: [sum(a * b for a, b in zip(v["arg0"], v["arg1"], strict=True))],
    "hamming_distance_1024": lambda v: [sum((a - b) ** 2 for a, b in zip(v["arg0"], v["arg1"], strict=True))],
    "box_blur_16x16": lambda v: [_stencil(v["arg0"], 16, lambda i, j: 1)],
    "gx_16x16": lambda v: [_stencil(v["arg0"], 16, lambda i, j: GX[i + 1][j + 1])],
    "roberts_cross_16x16": lambda v: [_roberts(v["img"], 16)],
    "collapse_chain_16": lambda v: [v["in"][5:] + v["in"][:5]],
    "poly_64": lambda v: [
        [
            y - (a * x + b) * x - c
            for a, b, c, x, y in zip(v["a"], v["b"], v["c"], v["x"], v["y"], strict=True)
        ]
    ],
}


def _load(name: str) -> Program:
    path = EXAMPLES / f"{name}.mlir"
    (prog,) = parse_mlir(path.read_text(), str(path))
    return prog


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_example_matches_reference(name: str) -> None:
    prog = _load(name)
    for seed in range(2):
        inputs = random_inputs(prog, seed, bound=50)
        assert evaluate(prog, inputs) == REFERENCES[name](inputs)  # type: ignore[arg-type]


@pytest.mark.slow
def test_box_blur_64x64_matches_reference() -> None:
    prog = _load("box_blur_64x64")
    inputs = random_inputs(prog, 0, bound=50)
    assert evaluate(prog, inputs) == [_stencil(inputs["arg0"], 64, lambda i, j: 1)]  # type: ignore[arg-type]


def test_example_styles_and_secrecy() -> None:
    assert _load("noisy_squarings").style == "noisy"
    assert _load("secret_generic_sum").style == "secret"
    assert _load("sum_8").style == "plain"
    assert all(ty.secret for _, ty in _load("poly_64").args)
    assert _load("noisy_branching").args == []
