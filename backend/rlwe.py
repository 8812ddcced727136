"""What BGV and CKKS share: keys, public-key encryption, key switching, rotations.

In: ``Params`` and an optional seed.  Out: ``RLWE``, the base class of ``BGV``/``CKKS``
(``backend.bgv``, ``backend.ckks``), and ``Ciphertext``.

* Secret key s: uniform ternary.  Public key (b, a) = (-a*s + T*e, a) modulo Q (all
  ciphertext primes), with T = t for BGV and T = 1 for CKKS.
* Key switching (relinearization, rotations) is hybrid with one special prime P and
  one digit per RNS limb: the key for w (s^2 or s(x^g)) holds, for each limb i,
  (b_i, a_i) over Q*P with b_i = -a_i*s + T*e_i + [P*w if the limb is q_i].  A
  polynomial d at level l is split into its centered limb residues d_i, and
  sum_i d_i*(b_i, a_i) = (P*d*w + T*E, .) over q_0..q_l*P; dividing by P (rounding so
  the error stays a multiple of T) gives an encryption of d*w under s.  Keys made for
  the top level serve every lower level (drop the unused limbs).
* Galois keys are generated lazily, only for the Galois elements a program uses.
* The secret key stays inside this object: nothing prints or serialises it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from eqsat.backend.params import Params
from eqsat.backend.polyring import Ring, Sampler, divide_round_last


@dataclass
class Ciphertext:
    """Polynomials (coefficient form) modulo q_0..q_level; decrypts as sum_k c_k s^k."""

    polys: list[np.ndarray]
    level: int
    factor: int = 1  # BGV: the plaintext is factor*m (mod t)
    scale: float = 1.0  # CKKS: the slots hold value*scale
    meta: dict[str, object] = field(default_factory=dict)

    @property
    def degree(self) -> int:
        return len(self.polys)


class RLWE:
    """Key material and the scheme-independent ring-LWE operations."""

    T: int = 1  # the multiple the errors carry (t for BGV, 1 for CKKS)

    def __init__(self, params: Params, seed: int | None = None) -> None:
        self.params = params
        self.n = params.N
        self.sampler = Sampler(seed)
        self._rings: dict[tuple[int, bool], Ring] = {}
        top = self.ring(params.max_level, special=True)
        s = self.sampler.ternary(self.n)
        self._s_ntt_qp = top.ntt(top.from_signed(s))
        self._s_coeffs = s
        self._galois: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
        self.stats: dict[str, int] = {"galois_keys": 0}
        # public key over Q (NTT form)
        rq = self.ring(params.max_level)
        a = self.sampler.uniform(rq.primes, self.n)
        e = rq.from_signed(self.sampler.cbd(self.n) * self.T)
        a_ntt = rq.ntt(a)
        b = rq.sub(rq.intt(rq.neg(rq.mul(a_ntt, self._s_ntt(params.max_level)))), rq.neg(e))
        self._pk = (rq.ntt(b), a_ntt)

    # -- rings -------------------------------------------------------------------
    def ring(self, level: int, special: bool = False) -> Ring:
        key = (level, special)
        if key not in self._rings:
            primes = self.params.moduli[: level + 1] + ((self.params.special,) if special else ())
            self._rings[key] = Ring(primes, self.n)
        return self._rings[key]

    def _qp_rows(self, level: int) -> list[int]:
        return [*range(level + 1), self.params.max_level + 1]

    def _s_ntt(self, level: int, special: bool = False) -> np.ndarray:
        rows = self._qp_rows(level) if special else list(range(level + 1))
        return self._s_ntt_qp[rows]

    # -- keys --------------------------------------------------------------------
    def _switch_key(self, w_coeffs: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Key-switching key from w (signed int64 coefficients) to s, in NTT form over Q*P."""
        top = self.ring(self.params.max_level, special=True)
        w_ntt = top.ntt(top.from_signed(w_coeffs))
        p = self.params.special
        key = []
        for i in range(self.params.max_level + 1):
            a = self.sampler.uniform(top.primes, self.n)
            a_ntt = top.ntt(a)
            e_ntt = top.ntt(top.from_signed(self.sampler.cbd(self.n) * self.T))
            b = top.sub(e_ntt, top.mul(a_ntt, self._s_ntt_qp))
            q = top.primes[i]
            b[i] = (b[i] + (w_ntt[i] * np.uint64(p % q)) % np.uint64(q)) % np.uint64(q)
            key.append((b, a_ntt))
        return key

    @cached_property
    def _relin_key(self) -> list[tuple[np.ndarray, np.ndarray]]:
        top = self.ring(self.params.max_level, special=True)
        s2 = top.polymul(top.from_signed(self._s_coeffs), top.from_signed(self._s_coeffs))
        # s^2 has coefficients |.| <= N: recover them from the first limb
        q0 = top.primes[0]
        c = s2[0].astype(np.int64)
        return self._switch_key(np.where(c > q0 // 2, c - q0, c))

    def galois_key(self, g: int) -> list[tuple[np.ndarray, np.ndarray]]:
        if g not in self._galois:
            idx = (np.arange(self.n) * g) % (2 * self.n)
            w = np.zeros(self.n, dtype=np.int64)
            w[idx % self.n] = np.where(idx >= self.n, -self._s_coeffs, self._s_coeffs)
            self._galois[g] = self._switch_key(w)
            self.stats["galois_keys"] += 1
        return self._galois[g]

    def key_switch(
        self, d: np.ndarray, level: int, key: list[tuple[np.ndarray, np.ndarray]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(k0, k1) with k0 + k1*s = d*w + T*small (mod q_0..q_level), d in coefficient form."""
        rqp = self.ring(level, special=True)
        rows = self._qp_rows(level)
        acc0 = np.zeros((level + 2, self.n), dtype=np.uint64)
        acc1 = np.zeros_like(acc0)
        for i in range(level + 1):
            dn = rqp.tab.forward(rqp.lift_centered(d[i], self.params.moduli[i]))
            b, a = key[i]
            rqp.muladd(dn, np.ascontiguousarray(b[rows]), acc0)
            rqp.muladd(dn, np.ascontiguousarray(a[rows]), acc1)
        rq = self.ring(level)
        t = self.T if self.T > 1 else 0
        k0 = divide_round_last(rqp, rq, rqp.intt(acc0), t)
        k1 = divide_round_last(rqp, rq, rqp.intt(acc1), t)
        return k0, k1

    # -- encryption ----------------------------------------------------------------
    def encrypt_poly(self, m: np.ndarray) -> list[np.ndarray]:
        """Public-key encryption of the coefficient-form plaintext m (over Q, top level)."""
        rq = self.ring(self.params.max_level)
        u = rq.ntt(rq.from_signed(self.sampler.ternary(self.n)))
        e0 = rq.from_signed(self.sampler.cbd(self.n) * self.T)
        e1 = rq.from_signed(self.sampler.cbd(self.n) * self.T)
        b, a = self._pk
        c0 = rq.add(rq.add(rq.intt(rq.mul(b, u)), e0), m)
        c1 = rq.add(rq.intt(rq.mul(a, u)), e1)
        return [c0, c1]

    def phase_poly(self, ct: Ciphertext) -> np.ndarray:
        """c_0 + c_1*s + c_2*s^2 + ... modulo Q_level (RNS, coefficient form; uses s)."""
        rq = self.ring(ct.level)
        s = self._s_ntt(ct.level)
        acc = rq.ntt(ct.polys[-1])
        for c in reversed(ct.polys[:-1]):
            acc = rq.add(rq.mul(acc, s), rq.ntt(c))
        return rq.intt(acc)

    def phase(self, ct: Ciphertext) -> list[int]:
        """The phase, centered, as exact Python ints."""
        return self.ring(ct.level).to_ints(self.phase_poly(ct))

    # -- evaluation shared by both schemes ----------------------------------------------
    def _check(self, a: Ciphertext, b: Ciphertext) -> None:
        if a.level != b.level:
            raise ValueError(f"level mismatch {a.level} != {b.level}")

    def _pad(self, a: Ciphertext, deg: int) -> list[np.ndarray]:
        return a.polys + [np.zeros_like(a.polys[0])] * (deg - a.degree)

    def _combine(self, a: Ciphertext, b: Ciphertext, sub: bool) -> list[np.ndarray]:
        self._check(a, b)
        rq = self.ring(a.level)
        deg = max(a.degree, b.degree)
        pa, pb = self._pad(a, deg), self._pad(b, deg)
        return [rq.sub(x, y) if sub else rq.add(x, y) for x, y in zip(pa, pb, strict=True)]

    def _negate(self, a: Ciphertext) -> list[np.ndarray]:
        rq = self.ring(a.level)
        return [rq.neg(c) for c in a.polys]

    def _tensor(self, a: Ciphertext, b: Ciphertext) -> list[np.ndarray]:
        self._check(a, b)
        if a.degree != 2 or b.degree != 2:
            raise ValueError("multiply needs degree-2 ciphertexts (relinearize first)")
        rq = self.ring(a.level)
        a0, a1 = (rq.ntt(c) for c in a.polys)
        b0, b1 = (rq.ntt(c) for c in b.polys)
        d0 = rq.mul(a0, b0)
        d1 = rq.add(rq.mul(a0, b1), rq.mul(a1, b0))
        d2 = rq.mul(a1, b1)
        return [rq.intt(d0), rq.intt(d1), rq.intt(d2)]

    def _relin(self, a: Ciphertext) -> list[np.ndarray]:
        if a.degree == 2:
            return a.polys
        if a.degree != 3:
            raise ValueError(f"cannot relinearize degree {a.degree}")
        rq = self.ring(a.level)
        k0, k1 = self.key_switch(a.polys[2], a.level, self._relin_key)
        return [rq.add(a.polys[0], k0), rq.add(a.polys[1], k1)]

    def galois_element(self, k: int) -> int:
        """x -> x^(5^k): rotates each row of N/2 slots left by k."""
        half = self.n // 2
        return pow(5, k % half, 2 * self.n)

    def _rotate(self, a: Ciphertext, k: int) -> list[np.ndarray]:
        if a.degree != 2:
            raise ValueError("rotate needs a degree-2 ciphertext")
        return self._apply_galois(a, self.galois_element(k))

    def _apply_galois(self, a: Ciphertext, g: int) -> list[np.ndarray]:
        if g == 1:
            return list(a.polys)
        rq = self.ring(a.level)
        c0 = rq.automorphism(a.polys[0], g)
        c1 = rq.automorphism(a.polys[1], g)
        k0, k1 = self.key_switch(c1, a.level, self.galois_key(g))
        return [rq.add(c0, k0), k1]

    def _drop_prime(self, a: Ciphertext) -> list[np.ndarray]:
        if a.level == 0:
            raise ValueError("no prime left to drop")
        hi, lo = self.ring(a.level), self.ring(a.level - 1)
        t = self.T if self.T > 1 else 0
        return [divide_round_last(hi, lo, c, t) for c in a.polys]

    def _mul_const_poly(self, a: Ciphertext, m_signed: np.ndarray) -> list[np.ndarray]:
        rq = self.ring(a.level)
        pn = rq.ntt(rq.from_signed(m_signed))
        return [rq.intt(rq.mul(rq.ntt(c), pn)) for c in a.polys]
