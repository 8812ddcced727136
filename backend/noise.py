"""Noise model for BGV and CKKS, standalone (no encryption is run).

In: a ``Program`` and a ``Params`` (``eqsat.backend.params``).  Out:
``predict_bgv(prog, params) -> {node id: bits}`` and
``predict_ckks(prog, params, input_bound=1.0) -> {node id: {"scale", "level", "error",
"bound"}}`` for every live secret node, plus the abstract evaluators ``BGVNoise`` and
``CKKSNoise``.

The model runs the *same lowering* as the encrypted executor
(``eqsat.backend.lowering``) against abstract ciphertexts, so every rotation, mask,
modswitch, factor balancing and relinearization the executor performs is accounted for.
A vector split over several ciphertexts (wider than N/2 slots) is predicted by its
noisiest chunk.

BGV quantity: a bound on the canonical-embedding norm ||x||_can = max_j |x(zeta_j)| of
the phase x = c_0 + c_1 s + c_2 s^2 (= f*m + t*e, before reduction mod t), in bits.  The
coefficient infinity norm that the executor measures is at most the canonical norm
(||x||_inf <= ||x||_2 = ||x||_can,2 / sqrt(N) <= ||x||_can), so measured <= predicted.

The bound is worst-case style: every *independent random* polynomial a with i.i.d.
coefficients of variance v is bounded once, ||a||_can <= B(v) = D*sqrt(N*v) (each
evaluation a(zeta) is close to a complex Gaussian of variance N*v; D = 6 puts the tail
at exp(-36) per point); everything built from such polynomials is then bounded by the
triangle inequality and the exact submultiplicativity ||a*b||_can <= ||a||_can ||b||_can.
One refinement keeps the bound sound: a sum sum_k a_k b_k of *independent* zero-mean
random a_k (coefficient variance v) times any b_k is, given the b_k, sub-Gaussian at each
zeta with variance N v sum_k |b_k(zeta)|^2, hence at most D sqrt(N v) sqrt(sum ||b_k||^2).
In particular a product with the secret key is bounded by B(v) * S, S = B(2/3), never by
B(N*v*2/3) as if the product's coefficients were independent -- that "one Gaussian"
shortcut under-predicts, most visibly for the s^2 term of a degree-3 ciphertext that is
modswitched before relinearization (about D*sqrt(2N/3) too small: 6-7 bits at N = 8192).
Plaintext polynomials (encodings of slot data) are modelled as random with coefficients
uniform mod t: B(t^2/12) (a constant plaintext c is the constant polynomial: |c|).

  fresh           B(t^2/12) + t*B_e*sqrt(1 + 2 S^2)              (m + t(e u + e_0 + e_1 s))
  add/sub         a + b;  neg, rotate (an automorphism permutes the zeta_j): a
  mul             a * b;  mul_plain: a * ||p||;  mul_scalar: a * |c|
  key switch      a + t*(sqrt(l+1) B(q^2/12) B_e / P + U sqrt(1 + S^2))   (relinearize, rotate)
  modswitch       a / q + t*U*sqrt(1 + S^2 + ... + S^(2(d-1)))        (d = ciphertext degree)

with B_e = B(sigma^2), U = B(1/12) (rounding residues uniform in [-1/2, 1/2]), q the
largest prime of the level, P the key-switching prime.

CKKS quantity: a bound on the absolute error in every slot, plus a bound on the slot
values themselves (needed for products).  A slot is an evaluation of the phase over the
scale, so the same canonical bounds apply divided by the scale (t replaced by 1; the
encoding rounding adds U per encode).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from eqsat.backend.params import ERROR_VARIANCE, Params
from eqsat.ir import Program

D = 6.0
VAR_E = ERROR_VARIANCE
VAR_T = 2.0 / 3.0  # ternary


def _can(n: int, var: float) -> float:
    return D * math.sqrt(n * var)


def _lse(a: float, b: float) -> float:
    """log2(2^a + 2^b)."""
    hi, lo = max(a, b), min(a, b)
    return hi + math.log2(1.0 + 2.0 ** (lo - hi))


@dataclass
class NoiseCt:
    level: int
    bits: float = 0.0  # BGV: log2 canonical bound of the phase
    factor: int = 1
    degree: int = 2
    scale: float = 1.0  # CKKS
    err: float = 0.0  # CKKS: slot error bound
    bound: float = 0.0  # CKKS: slot value bound


class _Base:
    def __init__(self, params: Params) -> None:
        self.params = params
        self.n = params.N
        self.decrypts: list[tuple[NoiseCt, float]] = []
        self.S = _can(self.n, VAR_T)  # ||s||_can
        self.U = _can(self.n, 1.0 / 12.0)  # a rounding residue, coefficients in [-1/2, 1/2]
        self.Be = _can(self.n, VAR_E)  # a fresh error polynomial

    def _round(self, degree: int) -> float:
        """||r_0 + r_1 s + ... + r_(d-1) s^(d-1)||_can for rounding residues r_k (unit scale)."""
        return self.U * math.sqrt(sum(self.S ** (2 * k) for k in range(degree)))

    def _ks_unit(self, level: int) -> float:
        """Key-switching noise at unit scale: (sum_i d_i e_i) / P + rounding (r_0 + r_1 s)."""
        q = max(self.params.moduli[: level + 1])
        digits = math.sqrt(level + 1) * _can(self.n, q * q / 12.0) * self.Be / self.params.special
        return digits + self._round(2)

    def worst(self, cts: list[NoiseCt]) -> NoiseCt:
        """The chunk with the largest noise (a value split over several ciphertexts)."""
        return max(cts, key=lambda c: (c.bits, c.err))

    def log_q(self, level: int) -> float:
        return sum(math.log2(q) for q in self.params.moduli[: level + 1])


class BGVNoise(_Base):
    """Abstract BGV evaluator: tracks level, correction factor, degree and noise bits."""

    def __init__(self, params: Params) -> None:
        super().__init__(params)
        self.t = params.t
        t = params.t
        self.fresh = math.log2(t * self.U + t * self.Be * math.sqrt(1.0 + 2.0 * self.S**2))

    def _ms(self, degree: int) -> float:
        return math.log2(self.t * self._round(degree))

    def _ks(self, level: int) -> float:
        return math.log2(self.t * self._ks_unit(level))

    def _pnorm(self, row: list[Any], factor: int = 1) -> float:
        vals: set[int | None] = {None if v is None else (int(v) * factor) % self.t for v in row}
        if len(vals) == 1:
            c = vals.pop()
            if c is not None:  # a constant plaintext is the constant polynomial c (centered)
                return math.log2(max(min(c, self.t - c), 1))
        return math.log2(self.t * self.U)

    def encrypt(self, row: list[Any]) -> NoiseCt:
        return NoiseCt(self.params.max_level, self.fresh)

    def decrypt(self, ct: NoiseCt) -> tuple[list[Any], dict[str, float]]:
        budget = self.log_q(ct.level) - 1 - ct.bits
        self.decrypts.append((ct, budget))
        return [None] * (self.n // 2), {"noise_bits": ct.bits, "budget_bits": budget}

    def add(self, a: NoiseCt, b: NoiseCt) -> NoiseCt:
        return NoiseCt(a.level, _lse(a.bits, b.bits), a.factor, max(a.degree, b.degree))

    sub = add

    def neg(self, a: NoiseCt) -> NoiseCt:
        return NoiseCt(a.level, a.bits, a.factor, a.degree)

    def add_plain(self, a: NoiseCt, row: list[Any]) -> NoiseCt:
        return NoiseCt(a.level, _lse(a.bits, self._pnorm(row, a.factor)), a.factor, a.degree)

    def mul_plain(self, a: NoiseCt, row: list[Any]) -> NoiseCt:
        return NoiseCt(a.level, a.bits + self._pnorm(row), a.factor, a.degree)

    def mul_scalar(self, a: NoiseCt, c: int) -> NoiseCt:
        return NoiseCt(a.level, a.bits + math.log2(max(abs(c), 1)), a.factor * c % self.t, a.degree)

    def mul(self, a: NoiseCt, b: NoiseCt) -> NoiseCt:
        return NoiseCt(a.level, a.bits + b.bits, a.factor * b.factor % self.t, 3)

    def relinearize(self, a: NoiseCt) -> NoiseCt:
        return NoiseCt(a.level, _lse(a.bits, self._ks(a.level)), a.factor, 2)

    def rotate(self, a: NoiseCt, k: int) -> NoiseCt:
        return NoiseCt(a.level, _lse(a.bits, self._ks(a.level)), a.factor, 2)

    def modswitch(self, a: NoiseCt) -> NoiseCt:
        q = self.params.moduli[a.level]
        f = a.factor * pow(q, -1, self.t) % self.t
        return NoiseCt(a.level - 1, _lse(a.bits - math.log2(q), self._ms(a.degree)), f, a.degree)

    def refresh(self, a: NoiseCt) -> NoiseCt:
        self.decrypt(a)
        return self.encrypt([])


class CKKSNoise(_Base):
    """Abstract CKKS evaluator: tracks level, scale, slot error bound and value bound."""

    def __init__(self, params: Params, input_bound: float = 1.0) -> None:
        super().__init__(params)
        self.input_bound = input_bound
        self.fresh_can = self.U + self.Be * math.sqrt(1.0 + 2.0 * self.S**2)
        self.enc_can = self.U
        scales = {params.max_level: 2.0**params.scale_bits}
        for lv in range(params.max_level, 0, -1):
            scales[lv - 1] = scales[lv] ** 2 / params.moduli[lv]
        self._scales = scales

    def canonical_scale(self, level: int) -> float:
        return self._scales[level]

    def _rowbound(self, row: list[Any]) -> float:
        return max((self.input_bound if v is None else abs(float(v)) for v in row), default=0.0)

    def _ks(self, level: int) -> float:
        return self._ks_unit(level)

    def _ct(self, a: NoiseCt, **kw: Any) -> NoiseCt:
        base = dict(level=a.level, scale=a.scale, err=a.err, bound=a.bound, degree=a.degree)
        base.update(kw)
        return NoiseCt(**base)  # type: ignore[arg-type]

    def encrypt(self, row: list[Any]) -> NoiseCt:
        lv = self.params.max_level
        s = self._scales[lv]
        return NoiseCt(lv, scale=s, err=self.fresh_can / s, bound=self._rowbound(row))

    def decrypt(self, ct: NoiseCt) -> tuple[list[Any], dict[str, float]]:
        self.decrypts.append((ct, 0.0))
        return [None] * (self.n // 2), {"error": ct.err}

    def add(self, a: NoiseCt, b: NoiseCt) -> NoiseCt:
        return self._ct(a, err=a.err + b.err, bound=a.bound + b.bound, degree=max(a.degree, b.degree))

    sub = add

    def neg(self, a: NoiseCt) -> NoiseCt:
        return self._ct(a)

    def add_plain(self, a: NoiseCt, row: list[Any]) -> NoiseCt:
        return self._ct(a, err=a.err + self.enc_can / a.scale, bound=a.bound + self._rowbound(row))

    def mul_plain(self, a: NoiseCt, row: list[Any], scale: float | None = None) -> NoiseCt:
        ps = scale if scale is not None else self._scales[a.level]
        pb = self._rowbound(row)
        perr = self.enc_can / ps
        err = pb * a.err + a.bound * perr + a.err * perr
        return self._ct(a, scale=a.scale * ps, err=err, bound=a.bound * pb)

    def mul(self, a: NoiseCt, b: NoiseCt) -> NoiseCt:
        err = a.bound * b.err + b.bound * a.err + a.err * b.err
        return self._ct(a, scale=a.scale * b.scale, err=err, bound=a.bound * b.bound, degree=3)

    def relinearize(self, a: NoiseCt) -> NoiseCt:
        return self._ct(a, err=a.err + self._ks(a.level) / a.scale, degree=2)

    def rotate(self, a: NoiseCt, k: int) -> NoiseCt:
        return self._ct(a, err=a.err + self._ks(a.level) / a.scale)

    def rescale(self, a: NoiseCt) -> NoiseCt:
        q = self.params.moduli[a.level]
        s = a.scale / q
        return self._ct(a, level=a.level - 1, scale=s, err=a.err + self._round(a.degree) / s)

    def drop_to(self, a: NoiseCt, limbs: int) -> NoiseCt:
        return self._ct(a, level=limbs - 1)

    def refresh(self, a: NoiseCt) -> NoiseCt:
        self.decrypt(a)
        fresh = self.encrypt([])
        return self._ct(fresh, err=a.err + fresh.err + 1.0 / fresh.scale, bound=a.bound + a.err)


def _walk(prog: Program, ev: Any, scheme: str) -> dict[int, Any]:
    from eqsat.backend.lowering import Enc, Lowering

    env = Lowering(prog, ev, scheme).run(None, keep_all=True)
    return {i: ev.worst(v.cts) for i, v in env.items() if isinstance(v, Enc)}


def predict_bgv(prog: Program, params: Params) -> dict[int, float]:
    """Predicted noise bits (canonical bound of the phase) per live secret node."""
    return {i: ct.bits for i, ct in _walk(prog, BGVNoise(params), "bgv").items()}


def predict_ckks(prog: Program, params: Params, input_bound: float = 1.0) -> dict[int, dict[str, float]]:
    """Scale, level, slot error bound and slot value bound per live secret node."""
    out = _walk(prog, CKKSNoise(params, input_bound), "ckks")
    return {
        i: {"scale": ct.scale, "level": ct.level, "error": ct.err, "bound": ct.bound} for i, ct in out.items()
    }
