"""BGV over GF(t): batching, encryption, homomorphic operations, noise measurement.

In: ``Params`` (scheme "bgv"), an optional seed.  Out: ``BGV``, whose methods take and
return ``Ciphertext`` objects and rows of slot values (length N/2, integers mod t):

* Slot layout (evaluation encoding).  Let zeta be a primitive 2N-th root of unity in
  GF(t).  Slot (row 0, column j) is m(zeta^(5^j)), slot (row 1, column j) is
  m(zeta^(-5^j)); x -> x^(5^k) rotates both rows left by k (``rotate``).  ``encrypt``
  and the plaintext operands take one row; it is written into both rows.
* Ciphertexts carry a correction factor f (the phase is f*m + t*e): ``modswitch``
  divides by the dropped prime q, which multiplies f by q^-1 mod t (as SEAL does).
  ``decrypt`` undoes it.  ``mul_scalar`` lets a caller balance two factors.
* Noise: ``decrypt`` measures the phase x = [c_0 + c_1 s + ...]_Q (centered, before
  reduction mod t; x = f*m + t*e) and reports log2 ||x||_inf ("noise_bits") and
  log2(Q/2) - log2 ||x||_inf ("budget_bits").  With less than one bit left the phase
  may have wrapped around Q, so ``decrypt`` raises ``BackendError`` instead of
  returning a possibly wrong value.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from eqsat.backend.errors import BackendError
from eqsat.backend.ntt import bitrev, psi_root, tables
from eqsat.backend.params import Params
from eqsat.backend.rlwe import RLWE, Ciphertext


class BGV(RLWE):
    """A BGV instance: fresh keys for ``params`` (secret key kept private)."""

    def __init__(self, params: Params, seed: int | None = None) -> None:
        if params.scheme != "bgv":
            raise BackendError("BGV needs bgv parameters")
        self.T = params.t
        super().__init__(params, seed)
        self.t = params.t

    # -- batching -----------------------------------------------------------------
    @cached_property
    def _slot_pos(self) -> np.ndarray:
        """NTT-output position of each slot: row 0 columns then row 1 columns."""
        n, m = self.n, 2 * self.n
        rev = bitrev(n)
        pos_of_exp = np.empty(m, dtype=np.int64)
        pos_of_exp[2 * rev + 1] = np.arange(n)
        cols = np.array([pow(5, j, m) for j in range(n // 2)], dtype=np.int64)
        return np.concatenate([pos_of_exp[cols], pos_of_exp[(m - cols) % m]])

    @property
    def zeta(self) -> int:
        """The primitive 2N-th root of unity in GF(t) that defines the slots."""
        return psi_root(self.t, self.n)

    def encode(self, row: list[int] | np.ndarray) -> np.ndarray:
        """Slot values (one row, both rows get it) -> plaintext coefficients in [0, t)."""
        reduced = self._reduce(row)
        evals = np.empty(self.n, dtype=np.uint64)
        evals[self._slot_pos] = np.concatenate([reduced, reduced])
        tab = tables((self.t,), self.n)
        return tab.inverse(evals[None, :].copy())[0]

    def decode(self, coeffs: np.ndarray, both_rows: bool = False) -> list[int]:
        tab = tables((self.t,), self.n)
        ev = tab.forward(np.asarray(coeffs, dtype=np.uint64)[None, :].copy())[0]
        vals = ev[self._slot_pos]
        return (vals if both_rows else vals[: self.n // 2]).tolist()  # type: ignore[no-any-return]

    def _centered(self, coeffs: np.ndarray) -> np.ndarray:
        c = coeffs.astype(np.int64)
        return np.where(c > self.t // 2, c - self.t, c)

    # -- encryption -----------------------------------------------------------------
    def encrypt(self, row: list[int] | np.ndarray) -> Ciphertext:
        return self.encrypt_coeffs(self.encode(row))

    def encrypt_coeffs(self, coeffs: np.ndarray) -> Ciphertext:
        rq = self.ring(self.params.max_level)
        m = rq.from_signed(self._centered(coeffs))
        return Ciphertext(self.encrypt_poly(m), self.params.max_level, factor=1)

    def decrypt_coeffs(self, ct: Ciphertext) -> tuple[np.ndarray, dict[str, float]]:
        rq = self.ring(ct.level)
        x, mod_t = rq.centered(self.phase_poly(ct), self.t)
        norm = float(np.max(np.abs(x)))
        noise_bits = math.log2(norm) if norm else 0.0
        half_q_bits = math.log2(rq.modulus) - 1
        budget = half_q_bits - noise_bits
        if budget < 1.0:
            raise BackendError(
                f"noise budget exhausted (noise {noise_bits:.1f} bits, modulus {half_q_bits + 1:.1f} bits): "
                "decryption would fail"
            )
        assert mod_t is not None
        finv = pow(ct.factor, -1, self.t)
        m = (mod_t * finv % self.t).astype(np.uint64)
        return m, {"noise_bits": noise_bits, "budget_bits": budget}

    def decrypt(self, ct: Ciphertext) -> tuple[list[int], dict[str, float]]:
        """Row 0 of the slots, and the measured noise (see module docstring)."""
        m, info = self.decrypt_coeffs(ct)
        return self.decode(m), info

    # -- operations ------------------------------------------------------------------
    def _same_factor(self, a: Ciphertext, b: Ciphertext) -> None:
        if a.factor % self.t != b.factor % self.t:
            raise ValueError("correction factors differ: balance with mul_scalar first")

    def add(self, a: Ciphertext, b: Ciphertext) -> Ciphertext:
        self._same_factor(a, b)
        return self._ct(self._combine(a, b, False), a.level, factor=a.factor)

    def sub(self, a: Ciphertext, b: Ciphertext) -> Ciphertext:
        self._same_factor(a, b)
        return self._ct(self._combine(a, b, True), a.level, factor=a.factor)

    def neg(self, a: Ciphertext) -> Ciphertext:
        return self._ct(self._negate(a), a.level, factor=a.factor)

    def _reduce(self, row: list[int] | np.ndarray) -> np.ndarray:
        """One row of slot values reduced into [0, t) (uint64)."""
        try:
            vals = np.asarray(row, dtype=np.int64)
        except OverflowError:  # integers beyond 64 bits: reduce them one by one
            vals = np.array([int(v) % self.t for v in row], dtype=np.int64)
        if vals.shape != (self.n // 2,):
            raise BackendError(f"a row holds {self.n // 2} slots, got {vals.shape}")
        return (vals % self.t).astype(np.uint64)

    def plaintext(self, row: list[int] | np.ndarray, level: int, factor: int = 1, ntt_form: bool = True) -> np.ndarray:
        """The row (times ``factor``) encoded, lifted to q_0..q_level and, with ``ntt_form``,
        NTT'd: made once per key set and reused (``RLWE._cached_plain``)."""
        reduced = self._reduce(row)
        if factor % self.t != 1:
            reduced = (reduced * np.uint64(factor % self.t)) % np.uint64(self.t)

        def make() -> np.ndarray:
            rq = self.ring(level)
            m = rq.from_signed(self._centered(self.encode(reduced)))
            return rq.ntt(m) if ntt_form else m

        return self._cached_plain(("bgv", level, ntt_form, reduced.tobytes()), make)

    def add_plain(self, a: Ciphertext, row: list[int] | np.ndarray) -> Ciphertext:
        rq = self.ring(a.level)
        if a.has_coeffs:
            polys = list(a.polys)
            polys[0] = rq.add(polys[0], self.plaintext(row, a.level, a.factor, ntt_form=False))
            return Ciphertext(polys, a.level, a.factor)
        evs = list(a.evals(rq))
        evs[0] = rq.add(evs[0], self.plaintext(row, a.level, a.factor))
        return Ciphertext(None, a.level, a.factor, evals=evs, ring=rq)

    def mul_plain(self, a: Ciphertext, row: list[int] | np.ndarray) -> Ciphertext:
        """a times the encoded row (cached in NTT form); the result is in NTT form."""
        return self._ct(self._mul_const_poly(a, self.plaintext(row, a.level)), a.level, factor=a.factor)

    def mul_scalar(self, a: Ciphertext, c: int) -> Ciphertext:
        """Multiply every polynomial by c; the correction factor absorbs c (same value)."""
        rq = self.ring(a.level)
        f = a.factor * c % self.t
        if a.has_coeffs:
            return Ciphertext([rq.mul_scalar(p, c) for p in a.polys], a.level, f)
        return Ciphertext(None, a.level, f, evals=[rq.mul_scalar(p, c) for p in a.evals(rq)], ring=rq)

    def mul(self, a: Ciphertext, b: Ciphertext) -> Ciphertext:
        """Tensor product (degree 3, NTT form; relinearize separately)."""
        return self._ct(self._tensor(a, b), a.level, factor=a.factor * b.factor % self.t)

    def relinearize(self, a: Ciphertext) -> Ciphertext:
        return Ciphertext(self._relin(a), a.level, a.factor)

    def rotate(self, a: Ciphertext, k: int) -> Ciphertext:
        """Rotate both rows left by k (right for negative k)."""
        return Ciphertext(self._rotate(a, k), a.level, a.factor)

    def swap_rows(self, a: Ciphertext) -> Ciphertext:
        return Ciphertext(self._apply_galois(a, 2 * self.n - 1), a.level, a.factor)

    def modswitch(self, a: Ciphertext) -> Ciphertext:
        """Drop the last prime q: phase / q with the rounding a multiple of t; factor * q^-1."""
        if a.level == 0:
            raise BackendError("modswitch at the last prime: the program needs more levels")
        q = self.params.moduli[a.level]
        return Ciphertext(self._drop_prime(a), a.level - 1, a.factor * pow(q, -1, self.t) % self.t)

    def refresh(self, a: Ciphertext) -> Ciphertext:
        """Simulated bootstrap: decrypt with the secret key and encrypt again (top level)."""
        m, _ = self.decrypt_coeffs(a)
        return self.encrypt_coeffs(m)
