"""Encryption parameters: ring dimension, RNS prime chain, plaintext modulus, scale.

In: a ring dimension ``N``, the number and size of primes, the scheme.  Out: a frozen
``Params`` record (importable without numpy/numba/galois, so the noise model in
``eqsat.backend.noise`` can use it), the Homomorphic Encryption Standard security table,
NTT-friendly prime search and the BGV correction-factor balancing helper.

Security: ``HE_STANDARD`` is the table of the Homomorphic Encryption Standard
(classical security, ternary secret, error sigma = 3.2): for each N the largest
log2(Q*P) (all ciphertext primes times the key-switching prime) that keeps 128, 192
or 256 bits of security.  ``Params.security_bits`` is the best level met, 0 below 128.

Primes are below 2^31 so that the hot kernels (``backend.ntt``) stay in 64-bit
integer arithmetic.  Every prime q satisfies q = 1 (mod 2N) (negacyclic NTT).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from eqsat.backend.errors import BackendError

#: N -> (max log2 QP for 128, 192, 256 bits of classical security)
HE_STANDARD: dict[int, tuple[int, int, int]] = {
    1024: (27, 19, 14),
    2048: (54, 37, 29),
    4096: (109, 75, 58),
    8192: (218, 152, 118),
    16384: (438, 305, 237),
    32768: (881, 611, 476),
}

SIGMA = 3.2  # the HE Standard's error width; we sample a centered binomial with eta = 21:
ERROR_VARIANCE = 10.5  # eta / 2, i.e. sigma = 3.24 (the noise model uses this)
MAX_PRIME_BITS = 31


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.3e24 (bases up to 41)."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for p in small:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def ntt_primes(
    n_ring: int, bits: int, count: int, exclude: tuple[int, ...] = (), near: bool = False
) -> list[int]:
    """``count`` primes q = 1 (mod 2N) just below 2^bits (descending), none in ``exclude``.

    With ``near`` the search goes outward from 2^bits (below and above, staying under
    2^MAX_PRIME_BITS) so the primes are as close to 2^bits as possible (CKKS scales).
    """
    if bits > MAX_PRIME_BITS:
        raise BackendError(f"primes of {bits} bits exceed the {MAX_PRIME_BITS}-bit kernel limit")
    m = 2 * n_ring
    out: list[int] = []
    base = (1 << bits) // m * m + 1
    k = 0
    while len(out) < count:
        cands = [base - k * m] if not near else [base - k * m, base + (k + 1) * m]
        for q in cands:
            if q <= m or q >= (1 << MAX_PRIME_BITS) or q in exclude or q in out:
                continue
            if is_prime(q) and len(out) < count:
                out.append(q)
        k += 1
        if base - k * m <= m and (not near or base + k * m >= (1 << MAX_PRIME_BITS)):
            raise BackendError(f"not enough {bits}-bit NTT primes for N={n_ring}")
    return out


def plaintext_modulus(n_ring: int, minimum: int = 65537) -> int:
    """Smallest prime t >= ``minimum`` with t = 1 (mod 2N) (batching over GF(t))."""
    m = 2 * n_ring
    t = max(minimum - 1, m) // m * m + 1
    while t < minimum or not is_prime(t):
        t += m
    return t


def security_level(n_ring: int, log_qp: float) -> int:
    """128/192/256 per the HE Standard table, or 0 when below 128 bits (or N not in the table)."""
    row = HE_STANDARD.get(n_ring)
    if row is None:
        return 0
    for level, bound in zip((256, 192, 128), reversed(row), strict=True):
        if log_qp <= bound:
            return level
    return 0


@dataclass(frozen=True)
class Params:
    """One parameter set.

    ``moduli`` is the ciphertext chain q_0 .. q_L: a ciphertext at level l lives modulo
    q_0 * ... * q_l; ``modswitch``/``rescale`` drops the last prime.  ``special`` is the
    key-switching prime P (hybrid key switching with one digit per RNS limb).
    BGV: ``t`` is the plaintext modulus (prime, t = 1 mod 2N).  CKKS: ``scale_bits`` is
    log2 of the fresh scale Delta; the first ``base_limbs`` primes are never rescaled away.
    """

    scheme: str
    N: int
    moduli: tuple[int, ...]
    special: int
    t: int = 0
    scale_bits: float = 0.0
    base_limbs: int = 1
    insecure: bool = False

    @property
    def slots(self) -> int:
        """Slots per row: BGV and CKKS both expose N/2 (BGV has two such rows)."""
        return self.N // 2

    @property
    def max_level(self) -> int:
        return len(self.moduli) - 1

    @property
    def log_qp(self) -> float:
        return sum(math.log2(q) for q in self.moduli) + math.log2(self.special)

    @property
    def log_q(self) -> int:
        """ceil(log2(Q*P)), the quantity the HE Standard bounds."""
        return math.ceil(self.log_qp)

    @property
    def security_bits(self) -> int:
        return security_level(self.N, self.log_qp)

    def check_security(self) -> None:
        """Raise ``BackendError`` if below 128-bit security and not flagged insecure."""
        if self.security_bits < 128 and not self.insecure:
            bound = HE_STANDARD.get(self.N, (0, 0, 0))[0]
            raise BackendError(
                f"parameters N={self.N}, log2(QP)={self.log_qp:.1f} are below 128-bit security "
                f"(HE Standard max {bound}); pass insecure=True to run anyway"
            )

    def report(self) -> dict[str, int]:
        return {"N": self.N, "log_q": self.log_q, "t": self.t, "security_bits": self.security_bits}


def make_params(
    scheme: str,
    n_ring: int,
    levels: int,
    prime_bits: int = 30,
    *,
    t: int | None = None,
    scale_bits: float | None = None,
    insecure: bool = False,
) -> Params:
    """A chain of ``levels + 1`` ciphertext primes (plus P) for ``scheme``.

    BGV: all primes of ``prime_bits`` bits.  CKKS: two base primes of 31 bits (they hold
    the final result), ``levels`` scaling primes as close as possible to 2^scale_bits.
    """
    if n_ring < 8 or n_ring & (n_ring - 1):
        raise BackendError(f"ring dimension {n_ring} is not a power of two >= 8")
    if scheme == "bgv":
        tt = t if t is not None else plaintext_modulus(n_ring)
        if (tt - 1) % (2 * n_ring) or not is_prime(tt):
            raise BackendError(f"plaintext modulus {tt} is not a prime = 1 mod 2N={2 * n_ring}")
        primes = ntt_primes(n_ring, prime_bits, levels + 2, exclude=(tt,))
        p = Params("bgv", n_ring, tuple(primes[1:]), primes[0], t=tt, insecure=insecure)
    elif scheme == "ckks":
        sb = scale_bits if scale_bits is not None else float(prime_bits)
        base = ntt_primes(n_ring, MAX_PRIME_BITS, 3)
        scaling = ntt_primes(n_ring, round(sb), levels, exclude=tuple(base), near=True)
        p = Params(
            "ckks", n_ring, tuple(base[1:] + scaling), base[0], scale_bits=sb, base_limbs=2, insecure=insecure
        )
    else:
        raise BackendError(f"unknown scheme '{scheme}' (expected bgv or ckks)")
    p.check_security()
    return p


def balance_factors(f1: int, f2: int, t: int) -> tuple[int, int]:
    """Small (a1, a2) with a1*f1 = a2*f2 (mod t): BGV correction-factor alignment.

    Walks the extended Euclidean remainder sequence of (t, r) with r = f2/f1 mod t;
    each step gives x = y*r (mod t); the pair minimising max(|x|, |y|) is returned
    (|x|, |y| <= sqrt(t) by Thue's lemma).  a1 = x (centered), a2 = y.
    """
    if f1 % t == f2 % t:
        return 1, 1
    r = f2 * pow(f1, -1, t) % t
    best = (abs(_center(r, t)), _center(r, t), 1)
    r0, r1, y0, y1 = t, r, 0, 1
    while r1:
        cand = (max(abs(r1), abs(y1)), r1, y1)
        if cand[0] < best[0]:
            best = cand
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        y0, y1 = y1, y0 - q * y1
    _, x, y = best
    assert (x * f1 - y * f2) % t == 0
    return x, y


def _center(x: int, m: int) -> int:
    x %= m
    return x - m if x > m // 2 else x
