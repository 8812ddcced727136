"""CKKS primitives against float arithmetic on random data (small insecure N)."""

from __future__ import annotations

import numpy as np
import pytest

from eqsat.backend.ckks import CKKS
from eqsat.backend.params import Params

TOL = 1e-4


@pytest.fixture(scope="module")
def ckks(ckks_params: Params) -> CKKS:
    return CKKS(ckks_params, seed=21)


def _rand(ckks: CKKS, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, ckks.n // 2)


def _close(got: list[float], ref: np.ndarray, tol: float = TOL) -> bool:
    return bool(np.max(np.abs(np.asarray(got) - ref)) < tol)


def test_encode_decode_round_trip(ckks: CKKS) -> None:
    x = _rand(ckks, 1)
    m = ckks.encode(x, 2.0**30)
    assert np.max(np.abs(ckks.decode(m, 2.0**30) - x)) < 1e-7
    z = x + 1j * _rand(ckks, 2)
    assert np.max(np.abs(ckks.decode(ckks.encode(z, 2.0**30), 2.0**30) - z)) < 1e-7


def test_canonical_embedding_is_evaluation(ckks: CKKS) -> None:
    x = _rand(ckks, 3)
    scale = 2.0**20
    m = ckks.encode(x, scale).astype(float)
    n = ckks.n
    for j in range(0, n // 2, 5):
        root = np.exp(1j * np.pi * pow(5, j, 2 * n) / n)
        assert abs(np.polyval(m[::-1], root) / scale - x[j]) < 1e-4


def test_every_op_against_floats(ckks: CKKS) -> None:
    x, y, p = _rand(ckks, 4), _rand(ckks, 5), _rand(ckks, 6)
    cx, cy = ckks.encrypt(x), ckks.encrypt(y)
    assert _close(ckks.decrypt(cx)[0], x)
    assert _close(ckks.decrypt(ckks.add(cx, cy))[0], x + y)
    assert _close(ckks.decrypt(ckks.sub(cx, cy))[0], x - y)
    assert _close(ckks.decrypt(ckks.neg(cx))[0], -x)
    assert _close(ckks.decrypt(ckks.add_plain(cx, list(p)))[0], x + p)
    prod = ckks.rescale(ckks.relinearize(ckks.mul(cx, cy)))
    assert prod.level == cx.level - 1
    assert abs(prod.scale - ckks.canonical_scale(prod.level)) < 1e-6 * prod.scale
    assert _close(ckks.decrypt(prod)[0], x * y)
    assert _close(ckks.decrypt(ckks.mul(cx, cy))[0], x * y)  # degree 3, unrescaled
    mp = ckks.rescale(ckks.mul_plain(cx, list(p)))
    assert _close(ckks.decrypt(mp)[0], x * p)
    assert _close(ckks.decrypt(ckks.conjugate(cx))[0], x)
    assert _close(ckks.decrypt(ckks.refresh(prod))[0], x * y)
    assert _close(ckks.decrypt(ckks.drop_to(cx, 2))[0], x)


def test_rotation_by_every_step(ckks: CKKS) -> None:
    x = _rand(ckks, 7)
    ct = ckks.encrypt(x)
    for k in range(ckks.n // 2):
        assert _close(ckks.decrypt(ckks.rotate(ct, k))[0], np.roll(x, -k)), k
