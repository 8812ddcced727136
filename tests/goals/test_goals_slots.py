"""Goal tests for the slot rewrites (issue 3): op counts after optimization."""

from __future__ import annotations

import pytest
from goals import assert_optimizes

from eqsat.egraph.session import Limits
from eqsat.ir import Builder, Type
from eqsat.models.cost import table
from eqsat.models.hoisting import program_cost
from eqsat.pipeline import optimize


def vec(n: int, *names: str) -> tuple[Builder, list[int]]:
    b = Builder("f")
    return b, [b.arg(nm, Type((n,), "i16", True)) for nm in names]


def full_sum(b: Builder, x: int, n: int, lo: int = 0, hi: int | None = None, step: int = 1) -> int:
    acc = b.extract(x, lo)
    for i in range(lo + step, n if hi is None else hi, step):
        acc = b.add(acc, b.extract(x, i))
    return acc


def test_sum_of_8_is_3_rotations() -> None:
    assert_optimizes("sum_8.mlir", rotate=3, add=3, extract=0)


def test_sum_loop_16_is_4_rotations() -> None:
    assert_optimizes("sum_loop.mlir", rotate=4, extract=0)


def test_secret_generic_sum() -> None:
    assert_optimizes("secret_generic_sum.mlir", rotate=3, extract=0)


def test_dot_product_8_is_1_mul_3_rotations() -> None:
    assert_optimizes("dot_product_8.mlir", mul=1, rotate=3, extract=0)


def test_hamming_64_is_1_mul_6_rotations() -> None:
    b, (x, y) = vec(64, "x", "y")
    acc = None
    for i in range(64):
        d = b.sub(b.extract(x, i), b.extract(y, i))
        sq = b.mul(d, d)
        acc = sq if acc is None else b.add(acc, sq)
    assert_optimizes(b.finish([acc]), mul=1, rotate=6, extract=0)


def test_two_4_slot_sums_2_rotations_each() -> None:
    b, (x, y) = vec(4, "x", "y")
    assert_optimizes(b.finish([full_sum(b, x, 4), full_sum(b, y, 4)]), rotate=4, extract=0)


def test_collapse_insertion_chain_is_one_rotation() -> None:
    assert_optimizes("collapse_chain_16.mlir", rotate=1, insert=0, extract=0)


def test_chain_built_with_from_elements_collapses() -> None:
    b, (x,) = vec(8, "x")
    elems = [b.extract(x, (i + 3) % 8) for i in range(8)]
    assert_optimizes(b.finish([b.from_elements(elems, Type((8,), "i16", True))]), rotate=1, insert=0)


def test_partial_chain_is_rotation_and_mask() -> None:
    b, (x,) = vec(8, "x")
    v = b.empty(Type((8,), "i16", False))
    for i in range(4):  # slots 0..3 from x[2..5]; slots 4..7 stay zero
        v = b.insert(b.extract(x, i + 2), v, i)
    assert_optimizes(b.finish([v]), rotate=1, mul_plain=1, insert=0)


def test_partial_sum_of_contiguous_slots() -> None:
    b, (x,) = vec(16, "x")
    # slots 4..7: a shifted window of 4, two log steps plus reading slot 4
    prog = b.finish([full_sum(b, x, 16, 4, 8)])
    flat = {"rotate_hoisted": table("bgv")["rotate"]}  # every rotation a full key switch
    res = assert_optimizes(prog, at_most={"rotate": 3, "extract": 1}, add=2, costs=flat)
    ops = res.report["after"]["ops"]
    assert ops.get("rotate", 0) + ops.get("extract", 0) == 3
    # hoisting priced (the default): 4 rotations of one input and 3 adds (measured 2.99 ms
    # against 3.14 ms for the 3 chained rotations), never costlier than the flat choice
    hoisted = optimize(prog, "bgv")
    assert hoisted.report["after"]["cost"] <= program_cost(res.program, table("bgv"))  # type: ignore[operator]


def test_product_reduction_8() -> None:
    b, (x,) = vec(8, "x")
    acc = b.extract(x, 0)
    for i in range(1, 8):
        acc = b.mul(acc, b.extract(x, i))
    assert_optimizes(b.finish([acc]), rotate=3, mul=3, extract=0)


def test_elementwise_polynomial_has_no_rotations() -> None:
    b, (x,) = vec(64, "x")
    three = b.const(3, Type((64,), "i16", False))
    p = b.add(b.mul(b.mul(x, x), three), x)
    assert_optimizes(b.finish([p]), rotate=0, mul=1)


def test_not_supported_mixed_indices_stays_correct() -> None:
    # x[0] * y[1] + x[1] * y[0]: no common slot structure; must optimize correctly, never wrongly
    b, (x, y) = vec(4, "x", "y")
    r = b.add(b.mul(b.extract(x, 0), b.extract(y, 1)), b.mul(b.extract(x, 1), b.extract(y, 0)))
    assert_optimizes(b.finish([r]))


@pytest.mark.parametrize("k", [1, 3, 5])
def test_rotation_algebra_composes(k: int) -> None:
    b, (x,) = vec(8, "x")
    r = b.rotate(b.rotate(x, k), 8 - k)  # a full turn: the identity
    s = b.add(b.rotate(x, 2), b.rotate(b.rotate(x, 1), 1))  # rot(x, 2) twice: 2x rot(x, 2)
    assert_optimizes(b.finish([r, s]), at_most={"rotate": 1})



def test_roberts_cross_16x16_is_3_rotations_2_muls() -> None:
    # issue 3: roberts cross 16x16 -> 3 rotations, 2 muls; every slot aligns, also those that
    # read a pixel unrotated (rot-align-*-r, place-ext-joins)
    assert_optimizes("roberts_cross_16x16.mlir", rotate=3, mul=2, mul_plain=0, insert=0, extract=0)


def test_gx_16x16_is_at_most_4_rotations() -> None:
    # issue 3: gx 16x16 <= 4 rotations (HEIR: 6); weighted rows share their rotations
    assert_optimizes("gx_16x16.mlir", at_most={"rotate": 4}, limits=Limits(time_s=300), extract=0, insert=0)


# every rotation priced as a key switch of its own: rotation counts are what extraction saves
NO_HOISTING = {"rotate_hoisted": 30.0}


def slot_sum(n: int, coefs: dict[int, int]) -> tuple[Builder, int]:
    """sum of c * x[i] over ``coefs``, one extract per term in index order (c > 1: repeated)."""
    b, (x,) = vec(n, "x")
    acc = None
    for i in sorted(coefs):
        for _ in range(coefs[i]):
            e = b.extract(x, i)
            acc = e if acc is None else b.add(acc, e)
    assert acc is not None
    return b, acc


def test_sum_reading_one_slot_twice_and_one_never_is_4_rotations() -> None:
    # HEIR's rotate_and_reduce @not_supported_repeated_indices (HEIR: 5 rotations): the full
    # reduction (1 + x)(1 + x^2)(1 + x^4) plus rot(v - rot(v, 1), 3) = v3 - v4, sharing rot(v, 1)
    b, acc = slot_sum(8, {0: 1, 1: 1, 2: 1, 3: 2, 5: 1, 6: 1, 7: 1})
    assert_optimizes(b.finish([acc]), costs=NO_HOISTING, rotate=4, extract=0)


@pytest.mark.parametrize("n", [8, 16])
def test_sums_with_one_slot_doubled_and_one_missing_stay_logarithmic(n: int) -> None:
    # lin-complement-shifted: full reduction + rot(core, s) with core = 1 - x^d: at most
    # log2 n + 2 rotations, for every pair (the direct sum takes n - 2)
    import random

    rnd = random.Random(n)
    log = n.bit_length() - 1
    for _ in range(3):
        twice, never = rnd.sample(range(n), 2)
        coefs = {i: 1 for i in range(n) if i != never} | {twice: 2}
        b, acc = slot_sum(n, coefs)
        assert_optimizes(b.finish([acc]), costs=NO_HOISTING, at_most={"rotate": log + 2}, extract=0)
