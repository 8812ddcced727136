"""Negacyclic NTT over RNS limbs: the hot kernels (numba) and their tables (galois roots).

In: primes q < 2^31 with q = 1 (mod 2N), polynomials as ``uint64`` arrays of shape
``(limbs, N)`` with coefficients in [0, q).  Out: ``NTTTables`` (per-prime powers of a
primitive 2N-th root psi in bit-reversed order, with their Shoup companions), and the
kernels ``forward``/``inverse`` (in place), ``mulmod``/``addmod``/``submod``, and
the key-switching and decryption kernels: ``muladd2`` (a digit times both halves of a
key, Shoup-precomputed, with an optional NTT-domain permutation), ``_automorphism``,
``_lift_centered``, ``_div_round_last`` and ``_centered_crt`` (Garner CRT).

The forward transform is Cooley-Tukey with the twist merged into the butterflies; its
output slot i holds a(psi^(2*brv(i)+1)).  The inverse is Gentleman-Sande followed by
the scaling by N^-1.  Multiplication by a table constant w uses Shoup's trick:
w' = floor(w * 2^32 / q), then a*w mod q = a*w - floor(a*w'/2^32)*q (one correction),
all inside 64-bit integers because q < 2^31.  Inner loops run over contiguous slices.
psi is derived from ``galois.primitive_root(q)``, so psi^2 is exactly the root that
``galois.ntt`` uses: a(psi^(2i+1)) = galois.ntt(a_j * psi^j)[i] (the tests check it).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import numba
import numpy as np

U64 = np.uint64


@numba.njit(cache=True, nogil=True)
def _forward(a: np.ndarray, w: np.ndarray, ws: np.ndarray, qs: np.ndarray) -> None:  # pragma: no cover - jit
    limbs, n = a.shape
    for li in range(limbs):
        q = qs[li]
        row = a[li]
        wr = w[li]
        wsr = ws[li]
        m = 1
        t = n
        while m < n:
            t >>= 1
            for i in range(m):
                j1 = 2 * i * t
                s = wr[m + i]
                sp = wsr[m + i]
                x = row[j1 : j1 + t]
                y = row[j1 + t : j1 + 2 * t]
                for j in range(t):
                    u = x[j]
                    v = y[j]
                    hi = (v * sp) >> np.uint64(32)
                    v = v * s - hi * q
                    v = min(v, v - q)  # unsigned: v - q wraps when v < q (branch-free)
                    r = u + v
                    x[j] = min(r, r - q)
                    d = u + q - v
                    y[j] = min(d, d - q)
            m <<= 1


@numba.njit(cache=True, nogil=True)
def _inverse(
    a: np.ndarray, w: np.ndarray, ws: np.ndarray, qs: np.ndarray, ninv: np.ndarray, ninvs: np.ndarray
) -> None:  # pragma: no cover - jit
    limbs, n = a.shape
    for li in range(limbs):
        q = qs[li]
        row = a[li]
        wr = w[li]
        wsr = ws[li]
        t = 1
        m = n
        while m > 1:
            h = m >> 1
            j1 = 0
            for i in range(h):
                s = wr[h + i]
                sp = wsr[h + i]
                x = row[j1 : j1 + t]
                y = row[j1 + t : j1 + 2 * t]
                for j in range(t):
                    u = x[j]
                    v = y[j]
                    r = u + v
                    x[j] = min(r, r - q)
                    d = u + q - v
                    hi = (d * sp) >> np.uint64(32)
                    d = d * s - hi * q
                    y[j] = min(d, d - q)
                j1 += 2 * t
            t <<= 1
            m = h
        c = ninv[li]
        cp = ninvs[li]
        for j in range(n):
            v = row[j]
            hi = (v * cp) >> np.uint64(32)
            v = v * c - hi * q
            row[j] = min(v, v - q)


@numba.njit(cache=True, nogil=True)
def _mulmod(a: np.ndarray, b: np.ndarray, qs: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - jit
    limbs, n = a.shape
    for li in range(limbs):
        q = qs[li]
        qi = np.int64(q)
        inv = 1.0 / np.float64(q)
        ra = a[li]
        rb = b[li]
        ro = out[li]
        for j in range(n):
            x = np.int64(ra[j])
            y = np.int64(rb[j])
            quo = np.int64(np.float64(x) * np.float64(y) * inv)
            r = x * y - quo * qi
            r = r + qi if r < 0 else r
            r = r - qi if r >= qi else r
            ro[j] = np.uint64(r)


@numba.njit(cache=True, nogil=True)
def _muladd(a: np.ndarray, b: np.ndarray, qs: np.ndarray, acc: np.ndarray) -> None:  # pragma: no cover - jit
    limbs, n = a.shape
    for li in range(limbs):
        q = qs[li]
        qi = np.int64(q)
        inv = 1.0 / np.float64(q)
        ra = a[li]
        rb = b[li]
        ro = acc[li]
        for j in range(n):
            x = np.int64(ra[j])
            y = np.int64(rb[j])
            quo = np.int64(np.float64(x) * np.float64(y) * inv)
            r = x * y - quo * qi
            if r < 0:
                r += qi
            elif r >= qi:
                r -= qi
            r += np.int64(ro[j])
            if r >= qi:
                r -= qi
            ro[j] = np.uint64(r)


@numba.njit(cache=True, nogil=True)
def _addmod(a: np.ndarray, b: np.ndarray, qs: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - jit
    limbs, n = a.shape
    for li in range(limbs):
        q = qs[li]
        for j in range(n):
            r = a[li, j] + b[li, j]
            out[li, j] = min(r, r - q)


@numba.njit(cache=True, nogil=True)
def _submod(a: np.ndarray, b: np.ndarray, qs: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - jit
    limbs, n = a.shape
    for li in range(limbs):
        q = qs[li]
        for j in range(n):
            d = a[li, j] + q - b[li, j]
            out[li, j] = min(d, d - q)


def _bitrev(n: int) -> np.ndarray:
    bits = n.bit_length() - 1
    idx = np.arange(n)
    rev = np.zeros(n, dtype=np.int64)
    for b in range(bits):
        rev |= ((idx >> b) & 1) << (bits - 1 - b)
    return rev


@cache
def psi_root(q: int, n: int) -> int:
    """The primitive 2N-th root psi = g^((q-1)/2N) with g = galois.primitive_root(q)."""
    import galois

    if (q - 1) % (2 * n):
        raise ValueError(f"{q} is not 1 mod {2 * n}")
    g = int(galois.primitive_root(q))
    return pow(g, (q - 1) // (2 * n), q)


@dataclass(frozen=True)
class _PrimeTable:
    w: np.ndarray
    ws: np.ndarray
    wi: np.ndarray
    wis: np.ndarray
    ninv: int
    ninvs: int


@cache
def _prime_table(q: int, n: int) -> _PrimeTable:
    psi = psi_root(q, n)
    psi_inv = pow(psi, -1, q)
    rev = _bitrev(n)
    pw = np.empty(n, dtype=object)
    pwi = np.empty(n, dtype=object)
    x, y = 1, 1
    powers = [0] * n
    ipowers = [0] * n
    for k in range(n):
        powers[k], ipowers[k] = x, y
        x, y = x * psi % q, y * psi_inv % q
    for i in range(n):
        pw[i] = powers[int(rev[i])]
        pwi[i] = ipowers[int(rev[i])]
    w = np.array([int(v) for v in pw], dtype=U64)
    wi = np.array([int(v) for v in pwi], dtype=U64)
    ws = np.array([(int(v) << 32) // q for v in pw], dtype=U64)
    wis = np.array([(int(v) << 32) // q for v in pwi], dtype=U64)
    ninv = pow(n, -1, q)
    return _PrimeTable(w, ws, wi, wis, ninv, (ninv << 32) // q)


class NTTTables:
    """Stacked tables for a list of primes (one row per RNS limb)."""

    def __init__(self, primes: tuple[int, ...], n: int) -> None:
        self.n = n
        self.primes = primes
        tabs = [_prime_table(q, n) for q in primes]
        self.q = np.array(primes, dtype=U64)
        self.w = np.stack([t.w for t in tabs])
        self.ws = np.stack([t.ws for t in tabs])
        self.wi = np.stack([t.wi for t in tabs])
        self.wis = np.stack([t.wis for t in tabs])
        self.ninv = np.array([t.ninv for t in tabs], dtype=U64)
        self.ninvs = np.array([t.ninvs for t in tabs], dtype=U64)

    def forward(self, a: np.ndarray) -> np.ndarray:
        """In-place forward NTT of ``a`` (limbs x N, uint64, C-contiguous); returns ``a``."""
        _forward(a, self.w, self.ws, self.q)
        return a

    def inverse(self, a: np.ndarray) -> np.ndarray:
        _inverse(a, self.wi, self.wis, self.q, self.ninv, self.ninvs)
        return a


@lru_cache(maxsize=64)
def tables(primes: tuple[int, ...], n: int) -> NTTTables:
    return NTTTables(primes, n)


def mulmod(a: np.ndarray, b: np.ndarray, q: np.ndarray) -> np.ndarray:
    out = np.empty_like(a)
    _mulmod(a, b, q, out)
    return out


def muladd(a: np.ndarray, b: np.ndarray, q: np.ndarray, acc: np.ndarray) -> None:
    """acc += a*b (mod q), in place."""
    _muladd(a, b, q, acc)


def addmod(a: np.ndarray, b: np.ndarray, q: np.ndarray) -> np.ndarray:
    out = np.empty_like(a)
    _addmod(a, b, q, out)
    return out


def submod(a: np.ndarray, b: np.ndarray, q: np.ndarray) -> np.ndarray:
    out = np.empty_like(a)
    _submod(a, b, q, out)
    return out


def bitrev(n: int) -> np.ndarray:
    """The bit-reversal permutation of 0..n-1 (forward output slot i <-> exponent 2*brv(i)+1)."""
    return _bitrev(n)


@numba.njit(cache=True, nogil=True)
def _lift(x: np.ndarray, qs: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - jit
    """out[j] = x mod qs[j] for a signed int64 vector x."""
    limbs = qs.shape[0]
    n = x.shape[0]
    for li in range(limbs):
        q = np.int64(qs[li])
        for k in range(n):
            r = x[k] % q
            out[li, k] = np.uint64(r + q if r < 0 else r)


@numba.njit(cache=True, nogil=True)
def _lift_centered(row: np.ndarray, p: np.int64, qs: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    """Centered residues mod p (values in [0, p)) lifted into every prime of qs."""
    limbs = qs.shape[0]
    n = row.shape[0]
    half = p // 2
    for li in range(limbs):
        q = np.int64(qs[li])
        for k in range(n):
            v = np.int64(row[k])
            r = v - p if v > half else v
            # |r| <= p/2: one correction instead of a division when p/2 < q (similar primes)
            if r < -q or r >= q:
                r %= q
            elif r < 0:
                r += q
            out[li, k] = np.uint64(r)


@numba.njit(cache=True, nogil=True, inline="always")
def _mm(x: np.int64, y: np.int64, q: np.int64, qinv: np.float64) -> np.int64:  # pragma: no cover - jit
    """x*y mod q for 0 <= x, y < q < 2^31 (float quotient estimate, one correction)."""
    quo = np.int64(np.float64(x) * np.float64(y) * qinv)
    r = x * y - quo * q
    r = r + q if r < 0 else r
    return r - q if r >= q else r


@numba.njit(cache=True, nogil=True)
def _div_round_last(
    a: np.ndarray, qs: np.ndarray, p: np.int64, t: np.int64, tinv: np.int64, pinv: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover - jit
    """out_j = (a_j - delta) * p^-1 mod q_j, delta = a_last mod p centered (BGV: delta = t*[a_last/t]_p)."""
    limbs = qs.shape[0]
    n = a.shape[1]
    last = a[limbs]
    half = p // 2
    pinv_f = 1.0 / np.float64(p)
    r = np.empty(n, dtype=np.int64)
    for k in range(n):
        v = np.int64(last[k])
        if t > 0:
            v = _mm(v, tinv, p, pinv_f)
        r[k] = v - p if v > half else v
    sh = np.uint64(32)
    for li in range(limbs):
        q = np.int64(qs[li])
        uq = np.uint64(q)
        tq = np.uint64(t % q if t > 0 else 1)
        tqs = (tq << sh) // uq  # Shoup companions of the two per-limb constants
        pi = np.uint64(pinv[li])
        pis = (pi << sh) // uq
        row = a[li]
        orow = out[li]
        for k in range(n):
            d = r[k] % q if r[k] >= q or r[k] < -q else r[k]
            d = d + q if d < 0 else d
            ud = np.uint64(d)
            if t > 0:
                ud = ud * tq - ((ud * tqs) >> sh) * uq
                ud = min(ud, ud - uq)
            x = row[k] + uq - ud
            x = min(x, x - uq)
            x = x * pi - ((x * pis) >> sh) * uq
            orow[k] = min(x, x - uq)


@numba.njit(cache=True, nogil=True)
def _muladd2(
    d: np.ndarray, perm: np.ndarray, b: np.ndarray, bs: np.ndarray, c: np.ndarray, cs: np.ndarray,
    qs: np.ndarray, acc_b: np.ndarray, acc_c: np.ndarray
) -> None:  # pragma: no cover - jit
    """acc_b += x * b and acc_c += x * c (mod qs[l]) with x[l, j] = d[l, perm[j]] (perm[0] < 0:
    the identity): one pass over a key-switching digit for both halves of a key, the
    digit optionally put through an automorphism in the NTT domain on the fly.  The key
    is fixed, so its Shoup companions ``bs``/``cs`` (floor(k * 2^32 / q)) are precomputed:
    x*k mod q = x*k - floor(x*k'/2^32)*q in [0, 2q), one branch-free correction."""
    limbs, n = acc_b.shape
    ident = perm[0] < 0
    sh = np.uint64(32)
    for li in range(limbs):
        q = qs[li]
        rd = d[li]
        rb = b[li]
        rbs = bs[li]
        rc = c[li]
        rcs = cs[li]
        ob = acc_b[li]
        oc = acc_c[li]
        for j in range(n):
            x = rd[j] if ident else rd[perm[j]]
            r = x * rb[j] - ((x * rbs[j]) >> sh) * q
            r = min(r, r - q)
            r = ob[j] + r
            ob[j] = min(r, r - q)
            r = x * rc[j] - ((x * rcs[j]) >> sh) * q
            r = min(r, r - q)
            r = oc[j] + r
            oc[j] = min(r, r - q)


_IDENTITY = np.full(1, -1, dtype=np.int64)


def shoup(w: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Shoup companions floor(w * 2^32 / q) of residues w (limbs x N) modulo q (per limb)."""
    return (w << U64(32)) // q[:, None]


def muladd2(
    d: np.ndarray, perm: np.ndarray | None, key: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    q: np.ndarray, acc_b: np.ndarray, acc_c: np.ndarray
) -> None:
    """acc_b += d' * b, acc_c += d' * c (mod q) in place, d' = d[:, perm] (or d);
    ``key`` = (b, shoup(b), c, shoup(c))."""
    b, bs, c, cs = key
    _muladd2(d, _IDENTITY if perm is None else perm, b, bs, c, cs, q, acc_b, acc_c)


@numba.njit(cache=True, nogil=True)
def _automorphism(
    a: np.ndarray, idx: np.ndarray, neg: np.ndarray, qs: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover - jit
    """out[:, idx[j]] = +-a[:, j] (negated where neg[j]): x -> x^g in coefficient form."""
    limbs, n = a.shape
    for li in range(limbs):
        q = qs[li]
        ra = a[li]
        ro = out[li]
        for j in range(n):
            v = ra[j]
            ro[idx[j]] = (q - v if v != 0 else v) if neg[j] else v


@numba.njit(cache=True, nogil=True)
def _centered_crt(
    a: np.ndarray,
    qs: np.ndarray,
    inv: np.ndarray,
    half: np.ndarray,
    radix_f: np.ndarray,
    radix_t: np.ndarray,
    t: np.int64,
    mag: np.ndarray,
    mod_t: np.ndarray,
) -> None:  # pragma: no cover - jit
    """Per coefficient: the centered CRT value as float64 (exact sign) and, when t > 0,
    its residue mod t.  Garner's mixed-radix digits v (computed limb by limb over all
    coefficients, contiguous inner loops) are compared with those of floor(Q/2) to decide
    the sign; for a value above Q/2 the digits of Q - x are (q_i - 1 - v_i) + 1 with
    carries, so the magnitude is always summed from non-negative digits.  The residue
    mod t is accumulated unreduced (the caller checks that limbs * 2^31 * t fits in 62
    bits) and reduced once."""
    limbs, n = a.shape
    v = np.empty((limbs, n), dtype=np.int64)
    for i in range(limbs):
        q = qs[i]
        qf = 1.0 / np.float64(q)
        vi = v[i]
        ai = a[i]
        for k in range(n):
            vi[k] = np.int64(ai[k])
        for j in range(i):
            vj = v[j]
            c = inv[i, j]
            for k in range(n):
                x = vi[k] - vj[k]
                if x < 0:
                    x = x % q if x < -q else x + q
                vi[k] = _mm(x, c, q, qf)
    for k in range(n):
        above = False
        for i in range(limbs - 1, -1, -1):
            if v[i, k] != half[i]:
                above = v[i, k] > half[i]
                break
        if above:
            carry = np.int64(1)
            for i in range(limbs):
                w = qs[i] - 1 - v[i, k] + carry
                if w == qs[i]:
                    v[i, k] = 0
                else:
                    v[i, k] = w
                    carry = np.int64(0)
        m = 0.0
        r = np.int64(0)
        for i in range(limbs):
            m += np.float64(v[i, k]) * radix_f[i]
            if t > 0:
                r += v[i, k] * radix_t[i]
        if t > 0:
            r %= t
        if above:
            mag[k] = -m
            if t > 0:
                r = (t - r) % t
        else:
            mag[k] = m
        mod_t[k] = r
