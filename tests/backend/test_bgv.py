"""BGV primitives against cleartext arithmetic mod t on random data (small insecure N)."""

from __future__ import annotations

import random

import galois
import numpy as np
import pytest

from eqsat.backend import BackendError
from eqsat.backend.bgv import BGV
from eqsat.backend.params import Params


@pytest.fixture(scope="module")
def bgv(bgv_params: Params) -> BGV:
    return BGV(bgv_params, seed=11)


def _rand(bgv: BGV, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(bgv.t) for _ in range(bgv.n // 2)]


def test_encode_is_evaluation_at_the_roots(bgv: BGV) -> None:
    x = _rand(bgv, 1)
    m = bgv.encode(x)
    gf = galois.GF(bgv.t, compile="python-calculate")
    poly = galois.Poly(gf(m[::-1].astype(np.int64)))
    z, two_n = bgv.zeta, 2 * bgv.n
    both = bgv.decode(m, both_rows=True)
    for j in range(bgv.n // 2):
        assert int(poly(gf(pow(z, pow(5, j, two_n), bgv.t)))) == x[j] == both[j]
        assert int(poly(gf(pow(z, two_n - pow(5, j, two_n), bgv.t)))) == x[j] == both[bgv.n // 2 + j]
    assert bgv.decode(m) == x


def test_encrypt_decrypt_round_trip(bgv: BGV) -> None:
    x = _rand(bgv, 2)
    out, info = bgv.decrypt(bgv.encrypt(x))
    assert out == x
    assert 0 < info["noise_bits"] < 40 and info["budget_bits"] > 60


def test_every_op_against_cleartext(bgv: BGV) -> None:
    t = bgv.t
    x, y, p = _rand(bgv, 3), _rand(bgv, 4), _rand(bgv, 5)
    cx, cy = bgv.encrypt(x), bgv.encrypt(y)
    cases = {
        "add": (bgv.add(cx, cy), [(a + b) % t for a, b in zip(x, y, strict=True)]),
        "sub": (bgv.sub(cx, cy), [(a - b) % t for a, b in zip(x, y, strict=True)]),
        "neg": (bgv.neg(cx), [(-a) % t for a in x]),
        "add_plain": (bgv.add_plain(cx, p), [(a + b) % t for a, b in zip(x, p, strict=True)]),
        "mul_plain": (bgv.mul_plain(cx, p), [(a * b) % t for a, b in zip(x, p, strict=True)]),
        "mul_scalar": (bgv.mul_scalar(cx, -7), x),  # scales the factor, not the value
        "mul": (bgv.mul(cx, cy), [(a * b) % t for a, b in zip(x, y, strict=True)]),
        "mul+relin": (bgv.relinearize(bgv.mul(cx, cy)), [(a * b) % t for a, b in zip(x, y, strict=True)]),
        "modswitch": (bgv.modswitch(cx), x),
        "refresh": (bgv.refresh(bgv.mul(cx, cy)), [(a * b) % t for a, b in zip(x, y, strict=True)]),
    }
    for name, (ct, ref) in cases.items():
        assert bgv.decrypt(ct)[0] == ref, name


def test_mul_after_modswitch_keeps_factor(bgv: BGV) -> None:
    t = bgv.t
    x, y = _rand(bgv, 6), _rand(bgv, 7)
    a = bgv.modswitch(bgv.encrypt(x))
    b = bgv.modswitch(bgv.encrypt(y))
    prod = bgv.modswitch(bgv.relinearize(bgv.mul(a, b)))
    assert prod.factor != 1
    out = bgv.add_plain(prod, x)
    assert bgv.decrypt(out)[0] == [(u * v + u) % t for u, v in zip(x, y, strict=True)]


def test_rotation_by_every_step(bgv: BGV) -> None:
    x = _rand(bgv, 8)
    ct = bgv.encrypt(x)
    r = bgv.n // 2
    for k in range(r):
        assert bgv.decrypt(bgv.rotate(ct, k))[0] == x[k:] + x[:k], k
    swapped = bgv.decrypt_coeffs(bgv.swap_rows(ct))[0]
    assert bgv.decode(swapped) == x  # both rows hold the same data


def test_key_switching_relates_to_the_secret(bgv: BGV) -> None:
    """key_switch(d, key for w) decrypts to d*w: check it for w = s^2 directly."""
    x, y = _rand(bgv, 9), _rand(bgv, 10)
    prod = bgv.mul(bgv.encrypt(x), bgv.encrypt(y))
    lvl = prod.level
    ring = bgv.ring(lvl)
    k0, k1 = bgv.key_switch(prod.polys[2], lvl, bgv._relin_key)
    s = ring.intt(bgv._s_ntt(lvl))
    lhs = ring.to_ints(ring.add(k0, ring.polymul(k1, s)))
    rhs = ring.to_ints(ring.polymul(ring.polymul(prod.polys[2], s), s))
    diff = [a - b for a, b in zip(lhs, rhs, strict=True)]
    assert all(d % bgv.t == 0 for d in diff)
    assert max(abs(d) for d in diff) < 2**40


def test_exhausted_budget_is_an_error(bgv: BGV) -> None:
    x = _rand(bgv, 12)
    ct = bgv.encrypt(x)
    for _ in range(3):
        ct = bgv.relinearize(bgv.mul(ct, ct))
    with pytest.raises(BackendError, match="noise budget exhausted"):
        bgv.decrypt(ct)
