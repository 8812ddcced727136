"""Golden round trips: every example parses, prints to its golden text, and the
printed text parses back to a program with the same meaning and prints identically."""

from __future__ import annotations

import os

import pytest
from mlir_testutil import EXAMPLES, GOLDEN, same_meaning

from eqsat.frontend.mlir import parse_mlir, print_mlir

LARGE = {"box_blur_64x64"}  # 2 MB of printed MLIR: round-tripped in the slow run, no golden file
EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES.glob("*.mlir"))
REGEN = os.environ.get("EQSAT_REGEN_GOLDEN") == "1"


FRONTEND_EXAMPLES = {
    "noisy_squarings",
    "noisy_branching",
    "sum_8",
    "sum_loop",
    "secret_generic_sum",
    "dot_product_8",
    "hamming_distance_1024",
    "box_blur_16x16",
    "gx_16x16",
    "roberts_cross_16x16",
    "box_blur_64x64",
    "collapse_chain_16",
    "poly_64",
}


def test_examples_exist() -> None:
    assert set(EXAMPLE_NAMES) >= FRONTEND_EXAMPLES


def _round_trip(name: str) -> str:
    path = EXAMPLES / f"{name}.mlir"
    progs = parse_mlir(path.read_text(), str(path))
    text = print_mlir(progs)
    again = parse_mlir(text, "printed")
    assert len(again) == len(progs)
    for p, q in zip(progs, again, strict=True):
        assert q.name == p.name and q.style == p.style
        assert same_meaning(p, q)
    assert print_mlir(again) == text, "print(parse(print(parse(x)))) differs from print(parse(x))"
    return text


@pytest.mark.parametrize("name", [n for n in EXAMPLE_NAMES if n not in LARGE])
def test_example_round_trip(name: str) -> None:
    """Every example (also ones added later by other parts) round-trips; those with a
    golden file print exactly that text."""
    text = _round_trip(name)
    golden = GOLDEN / f"{name}.mlir"
    if REGEN:
        golden.write_text(text)
    if golden.exists():
        assert golden.read_text() == text


def test_golden_files_cover_the_frontend_examples() -> None:
    assert {p.stem for p in GOLDEN.glob("*.mlir")} >= FRONTEND_EXAMPLES - LARGE


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LARGE))
def test_large_round_trip(name: str) -> None:
    _round_trip(name)
