"""RNS polynomial arithmetic in Z_Q[x]/(x^N + 1), and randomness.

In: a tuple of primes (the RNS basis) and N.  Out: ``Ring`` (NTT/INTT, pointwise ops,
the automorphisms x -> x^g in coefficient form, exact CRT reconstruction to Python
ints, lifting of small signed integers into the basis, and division-and-rounding by
the last prime used by modswitch/rescale/key switching) and ``Sampler`` (uniform,
ternary and centered-binomial polynomials from the OS CSPRNG, or from a seeded
generator when a seed is given, for reproducible tests only).

A polynomial is a ``uint64`` array of shape (limbs, N), row j reduced modulo prime j.
"""

from __future__ import annotations

import os
from functools import lru_cache

import numpy as np

from eqsat.backend import ntt

U64 = np.uint64


class Sampler:
    """Random bytes from ``os.urandom`` (default) or ``numpy.random.default_rng(seed)``."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = None if seed is None else np.random.default_rng(seed)

    def bytes(self, n: int) -> bytes:
        return os.urandom(n) if self._rng is None else self._rng.bytes(n)

    def uniform(self, primes: tuple[int, ...], n: int) -> np.ndarray:
        """Independent uniform residues per limb (64 random bits reduced: bias < 2^-32)."""
        raw = np.frombuffer(self.bytes(8 * n * len(primes)), dtype=U64).reshape(len(primes), n)
        return raw % np.array(primes, dtype=U64)[:, None]

    def ternary(self, n: int) -> np.ndarray:
        """Uniform over {-1, 0, 1} (rejection sampling on bytes), as int64."""
        out = np.empty(0, dtype=np.int64)
        while out.size < n:
            b = np.frombuffer(self.bytes(2 * n), dtype=np.uint8)
            b = b[b < 255]
            out = np.concatenate([out, (b % 3).astype(np.int64) - 1])
        return out[:n]

    def cbd(self, n: int, eta: int = 21) -> np.ndarray:
        """Centered binomial: popcount(eta bits) - popcount(eta bits); variance eta/2."""
        raw = np.frombuffer(self.bytes(8 * n), dtype=U64)
        mask = U64((1 << eta) - 1)
        a = raw & mask
        b = (raw >> U64(32)) & mask
        return _popcount(a) - _popcount(b)


def _popcount(x: np.ndarray) -> np.ndarray:
    return np.unpackbits(x.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1).astype(np.int64)


class Ring:
    """Arithmetic modulo the primes ``primes`` (an RNS basis) and x^N + 1."""

    def __init__(self, primes: tuple[int, ...], n: int) -> None:
        self.primes = primes
        self.n = n
        self.tab = ntt.tables(primes, n)
        self.q = self.tab.q
        self.modulus = 1
        for p in primes:
            self.modulus *= p
        self._crt_cache: dict[int, tuple[np.ndarray, ...]] = {}

    # -- conversions -----------------------------------------------------------
    def from_signed(self, x: np.ndarray) -> np.ndarray:
        """Lift a small signed int64 vector (|x| < 2^62) into every limb."""
        x = np.ascontiguousarray(x, dtype=np.int64)
        out = np.empty((len(self.primes), x.shape[0]), dtype=U64)
        ntt._lift(x, self.q, out)
        return out

    def lift_centered(self, row: np.ndarray, p: int) -> np.ndarray:
        """Residues mod p (in [0, p)), centered, lifted into every limb (key-switch digits)."""
        out = np.empty((len(self.primes), row.shape[0]), dtype=U64)
        ntt._lift_centered(np.ascontiguousarray(row), np.int64(p), self.q, out)
        return out

    def from_ints(self, coeffs: list[int]) -> np.ndarray:
        """Lift arbitrary Python integers (any size, any sign) into every limb."""
        return np.array([[c % p for c in coeffs] for p in self.primes], dtype=U64)

    def to_ints(self, a: np.ndarray) -> list[int]:
        """Exact CRT reconstruction, centered in (-Q/2, Q/2]."""
        big = self.modulus
        acc = np.zeros(self.n, dtype=object)
        for j, p in enumerate(self.primes):
            m = big // p
            c = (m * pow(m, -1, p)) % big
            acc = acc + a[j].astype(object) * c
        half = big // 2
        return [int(v) % big - big if int(v) % big > half else int(v) % big for v in acc]

    def _crt_tables(self, t: int) -> tuple[np.ndarray, ...]:
        """Garner inverses, the digits of floor(Q/2), the radices as floats and mod t."""
        cache = self._crt_cache
        if t not in cache:
            ps = self.primes
            inv = np.zeros((len(ps), len(ps)), dtype=np.int64)
            for i, qi in enumerate(ps):
                for j in range(i):
                    inv[i, j] = pow(ps[j], -1, qi)
            half, rest = [], self.modulus // 2
            radix_f, radix_t, radix = [], [], 1
            for qi in ps:
                half.append(rest % qi)
                rest //= qi
                radix_f.append(float(radix))
                radix_t.append(radix % t if t else 0)
                radix *= qi
            cache[t] = (
                np.array(ps, dtype=np.int64),
                inv,
                np.array(half, dtype=np.int64),
                np.array(radix_f),
                np.array(radix_t, dtype=np.int64),
            )
        return cache[t]

    def centered(self, a: np.ndarray, t: int = 0) -> tuple[np.ndarray, np.ndarray | None]:
        """The centered CRT value of every coefficient as float64 (exact sign, ~53-bit
        precision), and, when t > 0, its exact residue mod t.  Garner CRT (numba kernel)."""
        if t and len(self.primes) * (1 << 31) * t >= 1 << 62:
            raise ValueError("plaintext modulus too large for the CRT kernel's lazy reduction")
        qs, inv, half, radix_f, radix_t = self._crt_tables(t)
        mag = np.empty(self.n)
        mod_t = np.empty(self.n, dtype=np.int64)
        ntt._centered_crt(np.ascontiguousarray(a), qs, inv, half, radix_f, radix_t, np.int64(t), mag, mod_t)
        return mag, (mod_t if t else None)

    # -- arithmetic -------------------------------------------------------------
    def ntt(self, a: np.ndarray) -> np.ndarray:
        return self.tab.forward(np.ascontiguousarray(a, dtype=U64).copy())

    def intt(self, a: np.ndarray) -> np.ndarray:
        return self.tab.inverse(np.ascontiguousarray(a, dtype=U64).copy())

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return ntt.addmod(a, b, self.q)

    def sub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return ntt.submod(a, b, self.q)

    def neg(self, a: np.ndarray) -> np.ndarray:
        return ntt.submod(np.zeros_like(a), a, self.q)

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Pointwise product (both operands in the NTT domain)."""
        return ntt.mulmod(a, b, self.q)

    def muladd(self, a: np.ndarray, b: np.ndarray, acc: np.ndarray) -> None:
        ntt.muladd(a, b, self.q, acc)

    def mul_scalar(self, a: np.ndarray, c: int) -> np.ndarray:
        cs = np.array([[c % p] for p in self.primes], dtype=U64)
        return ntt.mulmod(a, np.broadcast_to(cs, a.shape).copy(), self.q)

    def polymul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Negacyclic product of two coefficient-form polynomials."""
        return self.intt(self.mul(self.ntt(a), self.ntt(b)))

    def automorphism(self, a: np.ndarray, g: int) -> np.ndarray:
        """a(x) -> a(x^g) for odd g, in coefficient form."""
        idx, neg = _auto_perm(self.n, g)
        out = np.empty_like(a)
        ntt._automorphism(np.ascontiguousarray(a), idx, neg, self.q, out)
        return out

    def sub_limbs(self, a: np.ndarray, count: int) -> np.ndarray:
        return a[:count]


@lru_cache(maxsize=256)
def ntt_auto_perm(n: int, g: int) -> np.ndarray:
    """The automorphism x -> x^g in the NTT domain: NTT(a(x^g))[p] = NTT(a)[perm[p]].

    Forward-NTT slot p holds a(psi^e) with e = 2*brv(p)+1, and a(x^g) at psi^e is a at
    psi^(g*e): a permutation of the slots, with no sign changes."""
    rev = ntt.bitrev(n)
    exps = 2 * rev + 1
    pos_of_exp = np.zeros(2 * n, dtype=np.int64)
    pos_of_exp[exps] = np.arange(n)
    return pos_of_exp[(exps * g) % (2 * n)]


@lru_cache(maxsize=64)
def _auto_perm(n: int, g: int) -> tuple[np.ndarray, np.ndarray]:
    j = np.arange(n, dtype=np.int64)
    e = (j * g) % (2 * n)
    return e % n, e >= n


def divide_round_last(ring_hi: Ring, ring_lo: Ring, a: np.ndarray, t: int = 0) -> np.ndarray:
    """(a - delta) / p_last over ``ring_lo`` (the basis without its last prime).

    delta = a mod p_last centered (CKKS: rounding division), or for BGV (t > 0) the
    unique delta = a (mod p_last), delta = 0 (mod t), |delta| <= t*p_last/2, which keeps
    the plaintext's residue mod t multiplied by p_last^-1 (tracked as a correction factor
    by the caller).
    """
    p = ring_hi.primes[-1]
    lo = ring_lo.primes
    pinv = np.array([pow(p, -1, q) for q in lo], dtype=np.int64)
    tinv = pow(t, -1, p) if t else 0
    out = np.empty((len(lo), a.shape[1]), dtype=U64)
    ntt._div_round_last(
        np.ascontiguousarray(a), ring_lo.q, np.int64(p), np.int64(t), np.int64(tinv), pinv, out
    )
    return out
