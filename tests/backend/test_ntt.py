"""The numba NTT kernels against galois' own ``ntt`` and ``Poly`` arithmetic."""

from __future__ import annotations

import galois
import numpy as np
import pytest

from eqsat.backend import ntt
from eqsat.backend.params import ntt_primes
from eqsat.backend.polyring import Ring

# one set of primes (= 1 mod 2048) serves every n <= 1024, so galois compiles one field only
PRIMES = tuple(ntt_primes(1024, 30, 2))


@pytest.mark.parametrize("n", [8, 64, 1024])
def test_forward_matches_galois_ntt(n: int) -> None:
    tab = ntt.tables(PRIMES, n)
    rng = np.random.default_rng(n)
    a = np.stack([rng.integers(0, q, n, dtype=np.uint64) for q in PRIMES])
    fwd = tab.forward(a.copy())
    rev = ntt.bitrev(n)
    q = PRIMES[0]
    psi = ntt.psi_root(q, n)
    twisted = [int(a[0, j]) * pow(psi, j, q) % q for j in range(n)]
    ref = galois.ntt(twisted, modulus=q).view(np.ndarray).astype(np.uint64)
    assert np.array_equal(fwd[0], ref[rev])
    if n <= 64:  # the other limb against a direct evaluation at psi^(2*brv(i)+1)
        q = PRIMES[1]
        psi = ntt.psi_root(q, n)
        for i in range(n):
            x = pow(psi, 2 * int(rev[i]) + 1, q)
            assert int(fwd[1, i]) == sum(int(a[1, j]) * pow(x, j, q) for j in range(n)) % q
    assert np.array_equal(tab.inverse(fwd), a)


def test_psi_is_a_primitive_2n_th_root() -> None:
    n = 512
    q = PRIMES[0]
    psi = ntt.psi_root(q, n)
    assert pow(psi, n, q) == q - 1
    assert galois.GF(q, compile="python-calculate")(psi).multiplicative_order() == 2 * n


@pytest.mark.parametrize("n", [16, 128])
def test_negacyclic_product_matches_galois_poly(n: int) -> None:
    primes = PRIMES[:1]
    ring = Ring(primes, n)
    rng = np.random.default_rng(7)
    a = rng.integers(-50, 50, n)
    b = rng.integers(-50, 50, n)
    got = ring.polymul(ring.from_signed(a), ring.from_signed(b))
    for li, q in enumerate(primes):
        gf = galois.GF(q, compile="python-calculate")  # no JIT compile: fast for small n
        pa = galois.Poly(gf(a[::-1] % q))
        pb = galois.Poly(gf(b[::-1] % q))
        mod = galois.Poly.Degrees([n, 0], coeffs=[1, 1], field=gf)
        prod = (pa * pb) % mod
        ref = np.zeros(n, dtype=np.int64)
        c = prod.coeffs[::-1].view(np.ndarray)
        ref[: len(c)] = c
        assert np.array_equal(got[li].astype(np.int64), ref)


def test_pointwise_kernels() -> None:
    primes = tuple(ntt_primes(64, 31, 3))
    q = np.array(primes, dtype=np.uint64)
    rng = np.random.default_rng(3)
    a = np.stack([rng.integers(0, p, 64, dtype=np.uint64) for p in primes])
    b = np.stack([rng.integers(0, p, 64, dtype=np.uint64) for p in primes])
    ao, bo = a.astype(object), b.astype(object)
    qo = np.array(primes, dtype=object)[:, None]
    assert np.array_equal(ntt.mulmod(a, b, q).astype(object), ao * bo % qo)
    assert np.array_equal(ntt.addmod(a, b, q).astype(object), (ao + bo) % qo)
    assert np.array_equal(ntt.submod(a, b, q).astype(object), (ao - bo) % qo)
    acc = a.copy()
    ntt.muladd(a, b, q, acc)
    assert np.array_equal(acc.astype(object), (ao * bo + ao) % qo)


def test_crt_and_automorphism() -> None:
    n = 32
    ring = Ring(tuple(ntt_primes(n, 30, 3)), n)
    rng = np.random.default_rng(5)
    big = [int(x) for x in rng.integers(-(2**62), 2**62, n)]
    big = [x * 12345 for x in big]
    assert ring.to_ints(ring.from_ints(big)) == big
    a = rng.integers(-9, 9, n)
    g = 5
    got = ring.to_ints(ring.automorphism(ring.from_signed(a), g))
    ref = [0] * n
    for j, c in enumerate(a):
        e = j * g % (2 * n)
        ref[e % n] += int(c) if e < n else -int(c)
    assert got == ref


def test_vectorized_crt_matches_exact_ints() -> None:
    n = 64
    ring = Ring(tuple(ntt_primes(n, 30, 4)), n)
    rng = np.random.default_rng(9)
    vals = [
        int(x) * (1 << int(k))
        for x, k in zip(rng.integers(-(2**40), 2**40, n), rng.integers(0, 70, n), strict=True)
    ]
    vals[0], vals[1] = ring.modulus // 2, -(ring.modulus // 2) + 1
    a = ring.from_ints(vals)
    approx, mod_t = ring.centered(a, 65537)
    assert mod_t is not None
    for v, f, r in zip(vals, approx, mod_t, strict=True):
        assert abs(f - v) <= 1e-12 * abs(v) + 1e-9
        assert r == v % 65537
