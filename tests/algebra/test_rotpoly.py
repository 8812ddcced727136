"""Tests for eqsat.algebra.rotpoly: ring arithmetic, keys, representatives, factorizations, AP plans."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat.algebra.rotfactor import ap_plan, factorizations, find_ap, plan_rotations, run_plan
from eqsat.algebra.rotpoly import (
    Poly,
    add,
    apply,
    centered,
    direct_rotations,
    factors_cost,
    is_normal,
    key,
    mul,
    norm_offset,
    normalize,
    parse_key,
    product,
    shift,
    shift_normal,
)

ns = st.integers(min_value=1, max_value=40)


@st.composite
def poly_and_n(draw: st.DrawFn, max_terms: int = 8) -> tuple[Poly, int]:
    n = draw(ns)
    p = draw(
        st.dictionaries(
            st.integers(min_value=-3 * n, max_value=3 * n),
            st.integers(min_value=-4, max_value=4),
            max_size=max_terms,
        )
    )
    return p, n


def rand_vec(n: int, seed: int = 0) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(-20, 21) for _ in range(n)]


def box(width: int, rows: range, cols: range) -> Poly:
    return {r * width + c: 1 for r in rows for c in cols}


def sobel_gx(width: int) -> Poly:
    return {r * width + c: (2 if r == 0 else 1) * c for r in (-1, 0, 1) for c in (-1, 1)}


def check_results(p: Poly, n: int, results: list[list[Poly]]) -> None:
    q = normalize(p, n)
    costs = [factors_cost(fs, n) for fs in results]
    assert costs == sorted(costs)
    for fs in results:
        assert len(fs) >= 2
        assert {0: 1} not in fs
        assert product(fs, n) == q
        assert factors_cost(fs, n) < direct_rotations(q, n)
        for f in fs:
            assert f == normalize(f, n)


# --------------------------------------------------------------------------- arithmetic and keys


def test_normalize_range() -> None:
    assert normalize({-1: 2, 15: 3, 8: 1, -8: 1, 3: 0}, 16) == {-1: 5, 8: 2}
    assert normalize({4: 1, -4: 1}, 9) == {-4: 1, 4: 1}
    assert normalize({5: 1, -5: 1}, 9) == {-4: 1, 4: 1}


@given(poly_and_n())
def test_normalize_invariants(pn: tuple[Poly, int]) -> None:
    p, n = pn
    q = normalize(p, n)
    assert all(-n / 2 < k <= n / 2 and c != 0 for k, c in q.items())
    assert apply(q, rand_vec(n), n) == apply({k: c for k, c in p.items() if c}, rand_vec(n), n)


@given(poly_and_n())
def test_normalize_is_norm_offset_merge(pn: tuple[Poly, int]) -> None:
    """``normalize`` (``norm_offset`` inline) is the plain definition: offsets by ``norm_offset``,
    equal ones merged, zeros dropped, in ascending order (``key`` reads the order)."""
    p, n = pn
    merged: Poly = {}
    for k, c in p.items():
        merged[norm_offset(k, n)] = merged.get(norm_offset(k, n), 0) + c
    want = [(k, merged[k]) for k in sorted(merged) if merged[k] != 0]
    assert list(normalize(p, n).items()) == want


@given(poly_and_n())
def test_direct_rotations_counts_normalized_offsets(pn: tuple[Poly, int]) -> None:
    p, n = pn
    assert direct_rotations(p, n) == sum(1 for k in normalize(p, n) if k != 0)


@given(poly_and_n(), st.booleans())
def test_is_normal_is_a_fixpoint_of_normalize(pn: tuple[Poly, int], normal_first: bool) -> None:
    p, n = pn
    if normal_first:
        p = normalize(p, n)
    assert is_normal(p, n) == (list(p.items()) == list(normalize(p, n).items()))


def test_is_normal_order_and_range() -> None:
    assert is_normal({-1: 2, 0: 3}, 16) and is_normal({}, 4) and is_normal({8: 1}, 16)
    assert not is_normal({0: 3, -1: 2}, 16)  # the same terms out of order
    assert not is_normal({-8: 1}, 16) and not is_normal({9: 1}, 16) and not is_normal({0: 0}, 16)
    assert is_normal({-4: 1, 4: 1}, 9) and not is_normal({5: 1}, 9)


def test_key_example_and_zero() -> None:
    assert key({k: 1 for k in range(8)}, 1024) == "0..7/1*1"
    assert key({}, 8) == "0"
    assert parse_key("0", 8) == {}
    assert key({-1: 2, 0: 3}, 16) == "-1*2,0*3"
    assert parse_key("-3..3/3*-2,5*1", 32) == {-3: -2, 0: -2, 3: -2, 5: 1}


@given(poly_and_n(max_terms=12))
def test_key_roundtrip(pn: tuple[Poly, int]) -> None:
    p, n = pn
    assert parse_key(key(p, n), n) == normalize(p, n)


@given(poly_and_n(), poly_and_n())
def test_key_injective(a: tuple[Poly, int], b: tuple[Poly, int]) -> None:
    n = a[1]
    assert (key(a[0], n) == key(b[0], n)) == (normalize(a[0], n) == normalize(b[0], n))


@pytest.mark.parametrize("bad", ["", "3", "1..4/2*1", "5..1/1*1", "0..4/0*1", "1*1,1*2", "a*1"])
def test_parse_key_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_key(bad, 16)


@given(poly_and_n(), poly_and_n())
def test_mul_add_shift_match_apply(a: tuple[Poly, int], b: tuple[Poly, int]) -> None:
    p, n = a
    q = b[0]
    v = rand_vec(n, 1)
    assert apply(mul(p, q, n), v, n) == apply(p, apply(q, v, n), n)
    assert apply(add(p, q, n), v, n) == [x + y for x, y in zip(apply(p, v, n), apply(q, v, n), strict=True)]
    assert apply(shift(p, 3, n), v, n) == apply(p, apply({3: 1}, v, n), n)


def test_apply_is_rotation() -> None:
    v = list(range(8))
    assert apply({1: 1}, v, 8) == [1, 2, 3, 4, 5, 6, 7, 0]
    assert apply({-1: 2}, v, 8) == [14, 0, 2, 4, 6, 8, 10, 12]
    assert direct_rotations({0: 5, 3: 1, -1: 2, 8: 1}, 8) == 2


# --------------------------------------------------------------------------- representatives


@settings(max_examples=60)
@given(poly_and_n())
def test_shift_normal_invariant(pn: tuple[Poly, int]) -> None:
    p, n = pn
    s, q = shift_normal(p, n)
    assert shift(q, s, n) == normalize(p, n)
    if q:
        assert 0 in q
    for t in range(n):
        assert shift_normal(shift(p, t, n), n)[1] == q


@given(poly_and_n())
def test_centered_minimizes_extent(pn: tuple[Poly, int]) -> None:
    p, n = pn
    s, q = centered(p, n)
    assert shift(q, s, n) == normalize(p, n)
    if q:
        best = min(max(abs(k) for k in shift(p, -t, n)) for t in range(n))
        assert max(abs(k) for k in q) == best


def test_centered_stencil() -> None:
    kernel = box(16, range(-1, 2), range(-1, 2))
    assert centered(shift(kernel, 37, 256), 256) == (37, kernel)


# --------------------------------------------------------------------------- factorizations


@pytest.mark.parametrize("n", [4, 8, 32, 1024, 4096])
def test_full_reduction(n: int) -> None:
    p = {k: 1 for k in range(n)}
    res = factorizations(p, n)
    check_results(p, n, res)
    assert res and factors_cost(res[0], n) == int(math.log2(n))
    half = {0: 1, n // 2: 1}
    assert any(fs[-1] == half and fs[0] == {0: 1, 1: 1} for fs in res)  # outermost step n/2
    assert any(fs[0] == half and fs[-1] == {0: 1, 1: 1} for fs in res)  # innermost step n/2


def test_non_power_of_two_progression() -> None:
    p = {3 + 5 * j: -2 for j in range(12)}
    res = factorizations(p, 1024)
    check_results(p, 1024, res)
    assert factors_cost(res[0], 1024) == 1 + 1 + 2 + 1  # radices 2, 2, 3 and the shift by 3


@pytest.mark.parametrize(("width", "n"), [(16, 256), (64, 4096)])
def test_box_blur_3x3(width: int, n: int) -> None:
    p = box(width, range(-1, 2), range(-1, 2))
    res = factorizations(p, n)
    check_results(p, n, res)
    assert factors_cost(res[0], n) == 4
    assert {-1: 1, 0: 1, 1: 1} in res[0]
    assert {-width: 1, 0: 1, width: 1} in res[0]


def test_sobel_gx() -> None:
    p = sobel_gx(16)
    res = factorizations(p, 256)
    check_results(p, 256, res)
    assert factors_cost(res[0], 256) == 4
    assert any({-16: 1, 0: 2, 16: 1} in fs and {-1: -1, 1: 1} in fs for fs in res)


@pytest.mark.parametrize("s", [1, -1, 17, -17, 37, -100, 128, 200])
def test_shifted_stencils(s: int) -> None:
    n = 256
    for kernel, is_box in ((box(16, range(-1, 2), range(-1, 2)), True), (sobel_gx(16), False)):
        p = shift(kernel, s, n)
        res = factorizations(p, n)
        check_results(p, n, res)
        # box: (rho^-1 + 1 + rho)(rho^-16 + 1 + rho^16); Sobel: (rho^2 - 1)(1 + 2 rho^16 + rho^32),
        # each moved by a shift, which costs one rotation unless offset 0 is in the support
        assert factors_cost(res[0], n) == (4 if is_box else 3) + (0 not in p)


def test_large_box_recurses_into_progressions() -> None:
    p = box(16, range(8), range(8))  # 8x8 box, corner-anchored
    res = factorizations(p, 256)
    check_results(p, 256, res)
    assert factors_cost(res[0], 256) == 6


def test_non_separable_product_via_sympy() -> None:
    n = 64
    p = mul({0: 1, 1: 1, 3: -1}, {0: 1, 5: 2, 9: 1}, n)
    res = factorizations(p, n)
    check_results(p, n, res)
    assert factors_cost(res[0], n) == 4


@pytest.mark.parametrize(
    ("p", "n"),
    [
        ({0: 3, 5: 1, 17: -2, 100: 7, -300: 1}, 1024),
        ({0: 1, 1: 2, 4: -1, 9: 3, 11: 1}, 64),
        ({-16: 1, -1: 1, 0: -4, 1: 1, 16: 1}, 256),  # Laplacian
        ({k: 1 for k in range(7)}, 64),  # prime-length progression: no product is cheaper
    ],
)
def test_no_factorization(p: Poly, n: int) -> None:
    assert factorizations(p, n) == []


@settings(max_examples=40, deadline=None)
@given(poly_and_n(max_terms=3), poly_and_n(max_terms=3), st.integers(min_value=0, max_value=1000))
def test_random_products_verified(a: tuple[Poly, int], b: tuple[Poly, int], t: int) -> None:
    n = max(a[1], b[1]) * 4
    p = shift(mul(a[0], b[0], n), t, n)
    check_results(p, n, factorizations(p, n, max_results=8))


# --------------------------------------------------------------------------- progressions and plans


def test_find_ap_wrapping() -> None:
    n = 16
    p = {(5 + 7 * j) % n: 2 for j in range(6)}  # wraps around the ring several times
    s, stride, m, c = find_ap(p, n) or (0, 0, 0, 0)
    assert (m, c) == (6, 2)
    assert normalize({s + j * stride: c for j in range(m)}, n) == normalize(p, n)
    assert find_ap({0: 1, 1: 1, 3: 1}, n) is None
    assert find_ap({0: 1, 1: 2}, n) is None


@pytest.mark.parametrize("m", range(2, 41))
def test_ap_plan(m: int) -> None:
    rng = random.Random(m)
    bound = (m - 1).bit_length() + bin(m).count("1") - 1  # ceil(log2 m) + popcount(m) - 1
    done = 0
    while done < 6:
        n = rng.choice([64, 100, 256, 1024])
        stride = rng.randrange(1, n)
        s = 0 if done < 2 else rng.randrange(n)
        c = rng.choice([1, 1, -1, 3])
        p = normalize({s + j * stride: c for j in range(m)}, n)
        if len(p) != m:
            continue
        plan = ap_plan(p, n)
        assert plan is not None
        v = rand_vec(n, done)
        assert run_plan(plan, v, n) == apply(p, v, n)
        # with no term at offset 0 one final shift is unavoidable (e.g. m = 2: rho^a + rho^b)
        assert plan_rotations(plan) <= bound + (0 not in p)
        done += 1


def test_ap_plan_rejects_non_progressions() -> None:
    assert ap_plan({0: 1, 1: 1, 3: 1}, 16) is None
    assert ap_plan({0: 1, 1: 2}, 16) is None
    assert ap_plan({4: 1}, 16) is None
