"""Exactness of the executor's fast paths: hoisted rotations, the plaintext cache,
NTT-form ciphertexts and the numba CRT, each against the path it replaces.

Every comparison is bit-for-bit on the ciphertext polynomials (or exact on decrypted
values), so a fast path that changed a single coefficient fails here.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from eqsat.backend.bgv import BGV
from eqsat.backend.ckks import CKKS
from eqsat.backend.lowering import Enc, Lowering
from eqsat.backend.params import Params, make_params
from eqsat.backend.polyring import Ring, ntt_auto_perm
from eqsat.interp import evaluate
from eqsat.ir import Builder, Program, Type


def _rows_bgv(ev: BGV, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(ev.t) for _ in range(ev.n // 2)]


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_ntt_domain_automorphism_is_the_coefficient_one(bgv_params: Params) -> None:
    ring = Ring(bgv_params.moduli, bgv_params.N)
    rng = np.random.default_rng(0)
    a = ring.from_signed(rng.integers(-1000, 1000, ring.n))
    for g in (3, 5, 25, 2 * ring.n - 1, pow(5, 7, 2 * ring.n)):
        want = ring.ntt(ring.automorphism(a, g))
        got = ring.ntt(a)[:, ntt_auto_perm(ring.n, g)]
        assert np.array_equal(got, want), g


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
def test_hoisted_rotations_are_bit_identical(scheme: str, bgv_params: Params, ckks_params: Params) -> None:
    ev: BGV | CKKS = BGV(bgv_params, seed=3) if scheme == "bgv" else CKKS(ckks_params, seed=3)
    half = ev.n // 2
    row: list[float] | list[int] = (
        _rows_bgv(ev, 1) if isinstance(ev, BGV) else list(np.random.default_rng(1).uniform(-1, 1, half))
    )
    ct = ev.encrypt(row)
    ks = [1, 2, 5, half - 1, 7]
    ev.hoist = True
    hoisted = ev.rotate_many(ct, ks)
    assert ev.stats["hoisted_reuses"] == len(ks) - 1  # one decomposition, then reuses
    ev.hoist = False
    for k, h in zip(ks, hoisted, strict=True):
        plain = ev.rotate(ct.fresh(), k)
        assert _same(h.polys, plain.polys), k
        out, _ = ev.decrypt(h)
        want = row[k:] + row[:k]
        if isinstance(ev, BGV):
            assert out == want
        else:
            assert np.allclose(out, want, atol=1e-4)


def test_plaintext_cache_reuses_and_matches(bgv_params: Params) -> None:
    ev = BGV(bgv_params, seed=5)
    x, w = _rows_bgv(ev, 2), _rows_bgv(ev, 3)
    ct = ev.encrypt(x)
    first = ev.mul_plain(ct.fresh(), w)
    encodes = ev.stats["plain_encodes"]
    second = ev.mul_plain(ct.fresh(), list(w))
    assert ev.stats["plain_encodes"] == encodes and ev.stats["plain_cache_hits"] >= 1
    assert _same(first.polys, second.polys)
    # the cached NTT plaintext gives the same ciphertext as an uncached product
    rq = ev.ring(ct.level)
    m = rq.from_signed(ev._centered(ev.encode(w)))
    direct = [rq.polymul(c, m) for c in ct.polys]
    assert _same(first.polys, direct)
    out, _ = ev.decrypt(first)
    assert out == [a * b % ev.t for a, b in zip(x, w, strict=True)]
    # add_plain in both forms, with a correction factor
    ms = ev.modswitch(ev.relinearize(ev.mul(ct, ct)))
    for c in (ms, ev.mul_plain(ms, [1] * (ev.n // 2))):
        got, _ = ev.decrypt(ev.add_plain(c, w))
        assert got == [(a * a + b) % ev.t for a, b in zip(x, w, strict=True)]


def test_ckks_ntt_form_encryption_is_the_coefficient_one(ckks_params: Params) -> None:
    a, b = CKKS(ckks_params, seed=9), CKKS(ckks_params, seed=9)
    rq = a.ring(ckks_params.max_level)
    m = rq.from_signed(np.arange(a.n, dtype=np.int64) - a.n // 2)
    coeff = a.encrypt_poly(m)
    evals = b.encrypt_poly_ntt(m)
    assert _same([rq.ntt(c) for c in coeff], evals)


def test_centered_crt_is_exact(bgv_params: Params) -> None:
    ring = Ring(bgv_params.moduli, bgv_params.N)
    rng = random.Random(4)
    q = ring.modulus
    vals = [rng.randrange(-(q // 2), q // 2 + 1) for _ in range(ring.n - 4)] + [q // 2, -(q // 2), 0, -1]
    a = ring.from_ints(vals)
    mag, mod_t = ring.centered(a, 65537)
    assert mod_t is not None
    assert [int(v) for v in mod_t] == [v % 65537 for v in vals]
    assert np.allclose(mag, np.array([float(v) for v in vals]), rtol=1e-12, atol=0)
    assert all((m < 0) == (v < 0) for m, v in zip(mag, vals, strict=True))


def _many_rotations(n: int, elem: str) -> Program:
    """x + rot(x,1) + rot(x,2) + rot(x,3), times a weight, plus a rotation of x by 5."""
    b = Builder("rots")
    x = b.arg("x", Type((n,), elem, True))
    acc = x
    for k in (1, 2, 3):
        acc = b.add(acc, b.rotate(x, k))
    w = b.const(tuple(range(1, n + 1)), Type((n,), elem, False))
    return b.finish([b.add(b.mul(acc, w), b.rotate(x, 5))])


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
def test_program_runs_identically_with_and_without_hoisting(scheme: str) -> None:
    prog = _many_rotations(8, "i16" if scheme == "bgv" else "f64")
    params = make_params(scheme, 64, 3, insecure=True)
    inputs = {"x": [3, 1, 4, 1, 5, 9, 2, 6]}
    outs = []
    for hoist in (True, False):
        ev: BGV | CKKS = BGV(params, seed=1) if scheme == "bgv" else CKKS(params, seed=1)
        ev.hoist = hoist
        low = Lowering(prog, ev, scheme)
        env = low.run(inputs)
        res = env[prog.results[0]]
        assert isinstance(res, Enc)
        outs.append((res.ct.polys, low._decrypt(res)[0], dict(ev.stats)))
    (p1, v1, s1), (p2, v2, s2) = outs
    assert _same(p1, p2) and v1 == v2
    assert s1["hoisted_reuses"] >= 3 and s2["hoisted_reuses"] == 0
    ref = evaluate(prog, inputs, modulus=params.t if scheme == "bgv" else None)[0]
    if scheme == "bgv":
        assert v1 == ref
    else:
        assert np.allclose(v1, ref, atol=1e-3)


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
def test_relinearize_from_ntt_form_is_bit_identical(scheme: str, bgv_params: Params, ckks_params: Params) -> None:
    """A tensor product (NTT form) relinearized reusing its own NTT rows equals the same
    ciphertext relinearized from its coefficient form alone."""
    from eqsat.backend.rlwe import Ciphertext

    ev: BGV | CKKS = BGV(bgv_params, seed=8) if scheme == "bgv" else CKKS(ckks_params, seed=8)
    row: list[float] | list[int] = (
        _rows_bgv(ev, 6) if isinstance(ev, BGV) else list(np.random.default_rng(6).uniform(-1, 1, ev.n // 2))
    )
    a = ev.encrypt(row)
    prod = ev.mul(a, a)
    assert prod.native_ntt
    coeff_only = Ciphertext(prod.polys, prod.level, prod.factor, prod.scale)
    assert _same(ev.relinearize(prod).polys, ev.relinearize(coeff_only).polys)
