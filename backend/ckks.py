"""CKKS: canonical-embedding encoding, encryption, homomorphic operations, rescaling.

In: ``Params`` (scheme "ckks"), an optional seed.  Out: ``CKKS`` with the same method
names as ``backend.bgv.BGV`` (rows of N/2 real or complex slot values in, rows out):

* Encoding: slot j is m(zeta^(5^j))/Delta with zeta = exp(i*pi/N); its conjugate sits
  at zeta^(-5^j), so the polynomial is real.  The evaluations at all odd powers of zeta
  are related to the twisted coefficients m_k zeta^k by a length-N FFT (the inverse
  special FFT of the CKKS paper, written with numpy's FFT), then scaled and rounded.
* Scales: fresh ciphertexts have Delta_L = 2^scale_bits; ``canonical_scale(l-1) =
  canonical_scale(l)^2 / q_l`` so products of canonical-scale operands rescale to the
  next canonical scale exactly (OpenFHE's FLEXIBLEAUTO idea).
* ``decrypt`` returns the slots and the measured precision is computed by the caller
  against the cleartext reference.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from eqsat.backend.errors import BackendError
from eqsat.backend.params import Params
from eqsat.backend.rlwe import RLWE, Ciphertext


class CKKS(RLWE):
    T = 1

    def __init__(self, params: Params, seed: int | None = None) -> None:
        if params.scheme != "ckks":
            raise BackendError("CKKS needs ckks parameters")
        super().__init__(params, seed)
        scales = {params.max_level: 2.0**params.scale_bits}
        for lv in range(params.max_level, 0, -1):
            scales[lv - 1] = scales[lv] ** 2 / params.moduli[lv]
        self._scales = scales

    def canonical_scale(self, level: int) -> float:
        return self._scales[level]

    # -- encoding ---------------------------------------------------------------------
    @cached_property
    def _layout(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n, m = self.n, 2 * self.n
        e = np.array([pow(5, j, m) for j in range(n // 2)], dtype=np.int64)
        k = np.arange(n)
        twist = np.exp(1j * np.pi * k / n)
        return (e - 1) // 2, (m - e - 1) // 2, twist

    def encode(self, row: list[float] | np.ndarray, scale: float) -> np.ndarray:
        """Slot values -> rounded integer coefficients (int64) of Delta * m."""
        z = np.asarray(row, dtype=np.complex128)
        if z.shape != (self.n // 2,):
            raise BackendError(f"a row holds {self.n // 2} slots, got {z.shape}")
        pos, conj_pos, twist = self._layout
        v = np.empty(self.n, dtype=np.complex128)
        v[pos] = z
        v[conj_pos] = np.conj(z)
        coeffs = (np.fft.fft(v) / self.n / twist).real * scale
        if np.max(np.abs(coeffs), initial=0.0) >= 2.0**62:
            raise BackendError("CKKS plaintext too large for the scale (coefficients exceed 2^62)")
        return np.rint(coeffs).astype(np.int64)

    def decode(self, coeffs: np.ndarray, scale: float) -> np.ndarray:
        pos, _, twist = self._layout
        v = np.fft.ifft(np.asarray(coeffs, dtype=np.float64) * twist) * self.n
        return v[pos] / scale

    # -- encryption ---------------------------------------------------------------------
    def encrypt(self, row: list[float] | np.ndarray) -> Ciphertext:
        lv = self.params.max_level
        s = self._scales[lv]
        return self.encrypt_signed(self.encode(row, s), s)

    def encrypt_signed(self, m: np.ndarray, scale: float) -> Ciphertext:
        rq = self.ring(self.params.max_level)
        lv = self.params.max_level
        return Ciphertext(None, lv, scale=scale, evals=self.encrypt_poly_ntt(rq.from_signed(m)), ring=rq)

    def decrypt(self, ct: Ciphertext) -> tuple[list[float], dict[str, float]]:
        rq = self.ring(ct.level)
        x, _ = rq.centered(self.phase_poly(ct))
        norm = float(np.max(np.abs(x)))
        half_q_bits = math.log2(rq.modulus) - 1
        if norm and math.log2(norm) > half_q_bits - 1:
            raise BackendError(
                "CKKS phase too close to Q/2: decryption would fail (values or noise too large)"
            )
        vals = self.decode(x, ct.scale).real
        return [float(v) for v in vals], {"phase_bits": math.log2(norm) if norm else 0.0}

    # -- operations -------------------------------------------------------------------
    def _same_scale(self, a: Ciphertext, b: Ciphertext) -> None:
        if abs(a.scale / b.scale - 1.0) > 1e-9:
            raise ValueError(f"scale mismatch {a.scale} vs {b.scale}")

    def add(self, a: Ciphertext, b: Ciphertext) -> Ciphertext:
        self._same_scale(a, b)
        return self._ct(self._combine(a, b, False), a.level, scale=a.scale)

    def sub(self, a: Ciphertext, b: Ciphertext) -> Ciphertext:
        self._same_scale(a, b)
        return self._ct(self._combine(a, b, True), a.level, scale=a.scale)

    def neg(self, a: Ciphertext) -> Ciphertext:
        return self._ct(self._negate(a), a.level, scale=a.scale)

    def plaintext(self, row: list[float] | np.ndarray, level: int, scale: float, ntt_form: bool = True) -> np.ndarray:
        """The row encoded at ``scale``, lifted to q_0..q_level and, with ``ntt_form``,
        NTT'd: made once per key set and reused (``RLWE._cached_plain``)."""
        z = np.asarray(row, dtype=np.complex128)

        def make() -> np.ndarray:
            rq = self.ring(level)
            m = rq.from_signed(self.encode(z, scale))
            return rq.ntt(m) if ntt_form else m

        return self._cached_plain(("ckks", level, float(scale), ntt_form, z.tobytes()), make)

    def add_plain(self, a: Ciphertext, row: list[float] | np.ndarray) -> Ciphertext:
        rq = self.ring(a.level)
        if a.has_coeffs:
            polys = list(a.polys)
            polys[0] = rq.add(polys[0], self.plaintext(row, a.level, a.scale, ntt_form=False))
            return Ciphertext(polys, a.level, scale=a.scale)
        evs = list(a.evals(rq))
        evs[0] = rq.add(evs[0], self.plaintext(row, a.level, a.scale))
        return Ciphertext(None, a.level, scale=a.scale, evals=evs, ring=rq)

    def mul_plain(self, a: Ciphertext, row: list[float] | np.ndarray, scale: float | None = None) -> Ciphertext:
        """a times the row encoded at ``scale`` (cached in NTT form); NTT-form result."""
        ps = scale if scale is not None else self._scales[a.level]
        return self._ct(self._mul_const_poly(a, self.plaintext(row, a.level, ps)), a.level, scale=a.scale * ps)

    def mul(self, a: Ciphertext, b: Ciphertext) -> Ciphertext:
        return self._ct(self._tensor(a, b), a.level, scale=a.scale * b.scale)

    def relinearize(self, a: Ciphertext) -> Ciphertext:
        return Ciphertext(self._relin(a), a.level, scale=a.scale)

    def rotate(self, a: Ciphertext, k: int) -> Ciphertext:
        return Ciphertext(self._rotate(a, k), a.level, scale=a.scale)

    def conjugate(self, a: Ciphertext) -> Ciphertext:
        return Ciphertext(self._apply_galois(a, 2 * self.n - 1), a.level, scale=a.scale)

    def rescale(self, a: Ciphertext) -> Ciphertext:
        if a.level == 0:
            raise BackendError("rescale at the last prime")
        q = self.params.moduli[a.level]
        return Ciphertext(self._drop_prime(a), a.level - 1, scale=a.scale / q)

    def drop_to(self, a: Ciphertext, limbs: int) -> Ciphertext:
        if a.has_coeffs:
            return Ciphertext([p[:limbs].copy() for p in a.polys], limbs - 1, scale=a.scale)
        evs = [p[:limbs].copy() for p in a.evals(self.ring(a.level))]  # the NTT acts limb by limb
        return Ciphertext(None, limbs - 1, scale=a.scale, evals=evs, ring=self.ring(limbs - 1))

    def refresh(self, a: Ciphertext) -> Ciphertext:
        """Simulated bootstrap: decrypt the phase with the secret key, encrypt it again."""
        x, _ = self.ring(a.level).centered(self.phase_poly(a))
        lv = self.params.max_level
        s = self._scales[lv]
        return self.encrypt_signed(np.rint(x * (s / a.scale)).astype(np.int64), s)
