"""Linear slot maps: diagonal form, handles and every planner checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat.algebra import linmap as lm


def _rand(rng: np.random.Generator, r: int, c: int) -> np.ndarray:
    return rng.integers(-5, 6, size=(r, c))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 16, 25])
def test_from_matrix_round_trip(n: int) -> None:
    rng = np.random.default_rng(n)
    m = _rand(rng, n, n)
    f = lm.from_matrix(m)
    assert np.array_equal(f.to_matrix(), m)
    v = rng.integers(-9, 10, size=n)
    assert np.array_equal(f.apply(v).astype(np.int64), m @ v)


@pytest.mark.parametrize(("r", "c", "n"), [(8, 4, 8), (4, 8, 8), (3, 5, 8)])
def test_rectangular_zero_padding(r: int, c: int, n: int) -> None:
    rng = np.random.default_rng(r * 10 + c)
    m = _rand(rng, r, c)
    v = np.zeros(n, dtype=np.int64)
    v[:c] = rng.integers(-9, 10, size=c)
    y = lm.from_matrix(m, n).apply(v).astype(np.int64)
    assert np.array_equal(y[:r], m @ v[:c]) and not y[r:].any()


def test_handles_are_content_hashes() -> None:
    rng = np.random.default_rng(0)
    m = _rand(rng, 6, 6)
    h1, h2 = lm.register(lm.from_matrix(m)), lm.register(lm.from_matrix(m.copy()))
    assert h1 == h2 and h1.startswith("lm")
    assert lm.register(lm.from_matrix(m + np.eye(6, dtype=int))) != h1
    assert np.array_equal(lm.lookup(h1).to_matrix(), m)
    vh = lm.register_vector(np.arange(5))
    assert np.array_equal(lm.lookup_vector(vh), np.arange(5))
    with pytest.raises(KeyError):
        lm.lookup("lm-none")


@pytest.mark.parametrize("n", [1, 2, 4, 5, 9, 16, 31])
def test_every_plan_is_exact(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    m = lm.from_matrix(_rand(rng, n, n))
    v = rng.integers(-9, 10, size=n)
    want = m.apply(v)
    for b in range(1, n + 1):
        for centered in (False, True):
            p = lm.plan_bsgs(m, b, centered)
            assert np.array_equal(p.apply(v), want), (b, centered)
    for p in lm.candidate_plans(m):
        assert np.array_equal(p.apply(v), want)


def test_sparse_random_maps() -> None:
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(2, 40))
        k = int(rng.integers(1, n + 1))
        offs = rng.choice(n, size=k, replace=False)
        diags = {int(d): rng.integers(-3, 4, size=n) for d in offs}
        m = lm.from_diagonals(diags, n)
        v = rng.integers(-9, 10, size=n)
        assert np.array_equal(m.apply(v).astype(np.int64), m.to_matrix() @ v)
        p = lm.best_plan(m)
        assert np.array_equal(p.apply(v), m.apply(v))
        assert p.rotations <= len([d for d in m.offsets if d])


def test_float_maps() -> None:
    rng = np.random.default_rng(3)
    a = rng.normal(size=(12, 12))
    m = lm.from_matrix(a)
    assert m.is_float
    v = rng.normal(size=12)
    assert np.allclose(lm.best_plan(m).apply(v), a @ v)


@pytest.mark.parametrize(("n", "heir"), [(4, 3), (100, 19), (256, 31), (512, 45), (1024, 63)])
def test_dense_matvec_rotations_at_most_heir(n: int, heir: int) -> None:
    rng = np.random.default_rng(n)
    m = lm.from_matrix(rng.integers(1, 4, size=(n, n)))
    p = lm.best_plan(m)
    assert p.rotations <= heir
    assert p.rotations <= 2 * int(np.ceil(np.sqrt(n))) - 2
    v = rng.integers(-9, 10, size=n)
    assert np.array_equal(p.apply(v), m.apply(v))


def _conv_same(h: int, w: int, filt: np.ndarray) -> lm.LinearMap:
    """3x3 'same' convolution with zero padding on an h x w image, as masked diagonals."""
    n = h * w
    r, c = np.divmod(np.arange(n), w)
    diags = {}
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            ok = (r + dr >= 0) & (r + dr < h) & (c + dc >= 0) & (c + dc < w)
            diags[dr * w + dc] = np.where(ok, filt[dr + 1, dc + 1], 0)
    return lm.from_diagonals(diags, n)


@pytest.mark.parametrize(("h", "w"), [(5, 5), (8, 8), (6, 9), (16, 16)])
def test_masked_stencil_four_rotations(h: int, w: int) -> None:
    rng = np.random.default_rng(h * w)
    filt = rng.integers(1, 5, size=(3, 3))  # full rank in general: not separable
    m = _conv_same(h, w, filt)
    p = lm.best_plan(m)
    assert p.rotations == 4
    img = rng.integers(-9, 10, size=(h, w))
    pad = np.pad(img, 1)
    want = np.array([[np.sum(filt * pad[i:i + 3, j:j + 3]) for j in range(w)] for i in range(h)])
    assert np.array_equal(p.apply(img.ravel()).astype(np.int64), want.ravel())


def test_uniform_map_is_a_rotation_polynomial() -> None:
    w = 6
    m = lm.from_diagonals({0: 1, 1: 1, w: 1, w + 1: 1}, 36)  # 2x2 sum pool, strided output
    assert lm.uniform_poly(m) == {0: 1, 1: 1, 6: 1, 7: 1}
    assert lm.best_plan(m).rotations == 2
    assert lm.uniform_poly(_conv_same(5, 5, np.ones((3, 3), dtype=int))) is None


def _best_split_exhaustive(m: lm.LinearMap) -> tuple[int, bool]:
    """Every step and convention in order, the first with the fewest rotations (the definition)."""
    offs = np.array(m.offsets, dtype=np.int64)
    best = (len([d for d in m.offsets if d]) + 1, 0, False)
    for b in range(2, m.n):
        for centered in (False, True):
            r = lm._split_cost(offs, b, m.n, centered)
            if r < best[0]:
                best = (r, b, centered)
    return best[1], best[2]


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 96).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1), min_size=1))))
def test_best_split_with_bounds_is_the_exhaustive_search(case: tuple[int, set[int]]) -> None:
    n, offsets = case
    m = lm.LinearMap(n, {d: np.full(n, 1 + d, dtype=np.int64) for d in sorted(offsets)})
    assert lm.best_split(m) == _best_split_exhaustive(m)
    for b in range(2, n):
        assert lm._split_floor(len(offsets), b, n) <= min(
            lm._split_cost(np.array(sorted(offsets), dtype=np.int64), b, n, c) for c in (False, True))


@pytest.mark.parametrize("n", [64, 100, 256])
def test_best_split_of_dense_and_banded_maps(n: int) -> None:
    dense = lm.LinearMap(n, {d: np.ones(n, dtype=np.int64) for d in range(n)})
    band = lm.LinearMap(n, {d % n: np.ones(n, dtype=np.int64) for d in range(-5, 6)})
    for m in (dense, band):
        assert lm.best_split(m) == _best_split_exhaustive(m)
