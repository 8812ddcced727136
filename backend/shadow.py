"""The exact slots of every CKKS ciphertext: a noiseless twin of ``backend.ckks.CKKS``.

In: ``Params`` (scheme "ckks").  Out: ``ExactCKKS``, an evaluator with the methods the
lowering (``backend.lowering.Lowering``) calls on ``CKKS`` — encrypt, add, sub, neg,
add_plain, mul_plain, mul, relinearize, rotate, rescale, drop_to, refresh — that computes
on the N/2 slot values themselves (complex128), keeping the same level, scale and degree
bookkeeping, so the lowering takes the same steps on both.  Run beside the encrypted run,
it gives the value every slot of every ciphertext *should* hold, including the slots no
output reads (partial sums left by a reduction, replicas); ``ciphertext_error`` compares a
decrypted ciphertext with it over all N/2 slots.  That is the CKKS counterpart of BGV's
measured noise (the infinity norm of the whole phase): the noise of the ciphertext, not a
sample of it at the slots one output happens to read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from eqsat.backend.errors import BackendError
from eqsat.backend.params import Params


@dataclass
class ExactCt:
    """N/2 exact slot values at the bookkeeping of the ciphertext they shadow."""

    slots: np.ndarray
    level: int
    scale: float
    degree: int = 2


class ExactCKKS:
    """Noiseless CKKS: every operation on the slot values, rotations as the ring's."""

    def __init__(self, params: Params) -> None:
        if params.scheme != "ckks":
            raise BackendError("ExactCKKS needs ckks parameters")
        self.params = params
        self.n = params.N
        scales = {params.max_level: 2.0**params.scale_bits}
        for lv in range(params.max_level, 0, -1):  # as CKKS.canonical_scale
            scales[lv - 1] = scales[lv] ** 2 / params.moduli[lv]
        self._scales = scales
        self.stats: dict[str, int] = {"galois_keys": 0}

    def canonical_scale(self, level: int) -> float:
        return self._scales[level]

    def _row(self, row: Any) -> np.ndarray:
        z = np.asarray(row, dtype=np.complex128)
        if z.shape != (self.n // 2,):
            raise BackendError(f"a row holds {self.n // 2} slots, got {z.shape}")
        return z

    def encrypt(self, row: Any) -> ExactCt:
        lv = self.params.max_level
        return ExactCt(self._row(row), lv, self._scales[lv])

    def decrypt(self, ct: ExactCt) -> tuple[list[float], dict[str, float]]:
        return [float(v) for v in ct.slots.real], {}

    def add(self, a: ExactCt, b: ExactCt) -> ExactCt:
        return ExactCt(a.slots + b.slots, a.level, a.scale, max(a.degree, b.degree))

    def sub(self, a: ExactCt, b: ExactCt) -> ExactCt:
        return ExactCt(a.slots - b.slots, a.level, a.scale, max(a.degree, b.degree))

    def neg(self, a: ExactCt) -> ExactCt:
        return ExactCt(-a.slots, a.level, a.scale, a.degree)

    def add_plain(self, a: ExactCt, row: Any) -> ExactCt:
        return ExactCt(a.slots + self._row(row), a.level, a.scale, a.degree)

    def mul_plain(self, a: ExactCt, row: Any, scale: float | None = None) -> ExactCt:
        ps = scale if scale is not None else self._scales[a.level]
        return ExactCt(a.slots * self._row(row), a.level, a.scale * ps, a.degree)

    def mul(self, a: ExactCt, b: ExactCt) -> ExactCt:
        return ExactCt(a.slots * b.slots, a.level, a.scale * b.scale, a.degree + b.degree - 1)

    def relinearize(self, a: ExactCt) -> ExactCt:
        return ExactCt(a.slots, a.level, a.scale, 2)

    def rotate(self, a: ExactCt, k: int) -> ExactCt:
        # the automorphism x -> x^(5^k) moves slot j + k to slot j (a left rotation)
        return ExactCt(np.roll(a.slots, -k), a.level, a.scale, a.degree)

    def conjugate(self, a: ExactCt) -> ExactCt:
        return ExactCt(np.conj(a.slots), a.level, a.scale, a.degree)

    def rescale(self, a: ExactCt) -> ExactCt:
        if a.level == 0:
            raise BackendError("rescale at the last prime")
        return ExactCt(a.slots, a.level - 1, a.scale / self.params.moduli[a.level], a.degree)

    def drop_to(self, a: ExactCt, limbs: int) -> ExactCt:
        return ExactCt(a.slots, limbs - 1, a.scale, a.degree)

    def refresh(self, a: ExactCt) -> ExactCt:
        lv = self.params.max_level
        return ExactCt(a.slots, lv, self._scales[lv])


def ciphertext_error(ev: Any, ct: Any, exact: ExactCt) -> float:
    """The largest slot error of the CKKS ciphertext ``ct`` over all N/2 slots (complex
    modulus, so the imaginary part of the noise counts too) against its exact twin."""
    rq = ev.ring(ct.level)
    x, _ = rq.centered(ev.phase_poly(ct))
    got = ev.decode(x, ct.scale)
    return float(np.max(np.abs(got - exact.slots), initial=0.0))


def error_bits(err: float) -> float:
    return math.log2(err) if err > 0 else -1074.0
