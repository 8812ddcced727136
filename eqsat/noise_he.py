"""Noise model for BGV and CKKS, standalone (no encryption is run).

In: a ``Program`` and a ``Params`` (``eqsat.backend.params``).  Out:
``predict_bgv(prog, params) -> {node id: bits}`` and
``predict_ckks(prog, params, input_bound=1.0) -> {node id: {"scale", "level", "error",
"bound"}}`` for every live secret node, plus the abstract evaluators ``BGVNoise`` and
``CKKSNoise``.

The model runs the *same lowering* as the encrypted executor
(``eqsat.backend.lowering``) against abstract ciphertexts, so every rotation, mask,
modswitch, factor balancing and relinearization the executor performs is accounted for.

BGV quantity: a bound on the canonical-embedding norm of the phase x = c_0 + c_1 s
(= f*m + t*e, before reduction mod t), in bits.  The coefficient infinity norm that
the executor measures is at most the canonical norm, so measured <= predicted whenever
the heuristic holds.  Rules (in the style of HEIR's kpz21 model, heuristic
bound D*sqrt(N*var) for a random polynomial with i.i.d. coefficients, D = 6):
fresh: var = t^2/12 + t^2 sigma^2 (4N/3 + 1); add: a + b; mul: a*b (submultiplicative);
mul_plain: a*||p|| (||p|| = |c| for a constant c, else D*t*sqrt(N/12)); key switching
(relinearize, rotate) adds D*sqrt(N*t^2*((l+1) N q^2 sigma^2/12/P^2 + (1 + 2N/3)/12));
modswitch: a/q + D*sqrt(N*t^2 (1 + 2N/3)/12); rotations preserve the canonical norm.

CKKS quantity: a bound on the absolute error in every slot, plus a bound on the slot
values themselves (needed for products); the same variance terms divided by the scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .backend.params import ERROR_VARIANCE, Params
from .ir import Program

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

    def _ks_var(self, level: int) -> tuple[float, float]:
        q = max(self.params.moduli[: level + 1])
        p = self.params.special
        digits = (level + 1) * self.n * q * q * VAR_E / 12.0 / (p * p)
        rounding = (1.0 + self.n * VAR_T) / 12.0
        return digits, rounding

    def log_q(self, level: int) -> float:
        return sum(math.log2(q) for q in self.params.moduli[: level + 1])


class BGVNoise(_Base):
    """Abstract BGV evaluator: tracks level, correction factor, degree and noise bits."""

    def __init__(self, params: Params) -> None:
        super().__init__(params)
        self.t = params.t
        n, t = self.n, params.t
        self.fresh = math.log2(_can(n, t * t / 12.0 + t * t * VAR_E * (2 * n * VAR_T + 1)))
        self.ms = math.log2(_can(n, t * t * (1.0 + n * VAR_T) / 12.0))

    def _ks(self, level: int) -> float:
        d, r = self._ks_var(level)
        return math.log2(_can(self.n, self.t * self.t * (d + r)))

    def _pnorm(self, row: list[Any], factor: int = 1) -> float:
        vals: set[int | None] = {None if v is None else (int(v) * factor) % self.t for v in row}
        if len(vals) == 1:
            c = vals.pop()
            if c is not None:  # a constant plaintext is the constant polynomial c (centered)
                return math.log2(max(min(c, self.t - c), 1))
        return math.log2(_can(self.n, self.t * self.t / 12.0))

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
        return NoiseCt(a.level - 1, _lse(a.bits - math.log2(q), self.ms), f, a.degree)

    def refresh(self, a: NoiseCt) -> NoiseCt:
        self.decrypt(a)
        return self.encrypt([])


class CKKSNoise(_Base):
    """Abstract CKKS evaluator: tracks level, scale, slot error bound and value bound."""

    def __init__(self, params: Params, input_bound: float = 1.0) -> None:
        super().__init__(params)
        self.input_bound = input_bound
        n = self.n
        self.fresh_can = _can(n, 1.0 / 12.0 + VAR_E * (2 * n * VAR_T + 1))
        self.round_can = _can(n, (1.0 + n * VAR_T) / 12.0)
        self.enc_can = _can(n, 1.0 / 12.0)
        scales = {params.max_level: 2.0**params.scale_bits}
        for lv in range(params.max_level, 0, -1):
            scales[lv - 1] = scales[lv] ** 2 / params.moduli[lv]
        self._scales = scales

    def canonical_scale(self, level: int) -> float:
        return self._scales[level]

    def _rowbound(self, row: list[Any]) -> float:
        return max((self.input_bound if v is None else abs(float(v)) for v in row), default=0.0)

    def _ks(self, level: int) -> float:
        d, r = self._ks_var(level)
        return _can(self.n, d + r)

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
        return self._ct(a, level=a.level - 1, scale=s, err=a.err + self.round_can / s)

    def drop_to(self, a: NoiseCt, limbs: int) -> NoiseCt:
        return self._ct(a, level=limbs - 1)

    def refresh(self, a: NoiseCt) -> NoiseCt:
        self.decrypt(a)
        fresh = self.encrypt([])
        return self._ct(fresh, err=a.err + fresh.err + 1.0 / fresh.scale, bound=a.bound + a.err)


def _walk(prog: Program, ev: Any, scheme: str) -> dict[int, Any]:
    from .backend.lowering import Enc, Lowering

    env = Lowering(prog, ev, scheme).run(None, keep_all=True)
    return {i: v.ct for i, v in env.items() if isinstance(v, Enc)}


def predict_bgv(prog: Program, params: Params) -> dict[int, float]:
    """Predicted noise bits (canonical bound of the phase) per live secret node."""
    return {i: ct.bits for i, ct in _walk(prog, BGVNoise(params), "bgv").items()}


def predict_ckks(prog: Program, params: Params, input_bound: float = 1.0) -> dict[int, dict[str, float]]:
    """Scale, level, slot error bound and slot value bound per live secret node."""
    out = _walk(prog, CKKSNoise(params, input_bound), "ckks")
    return {
        i: {"scale": ct.scale, "level": ct.level, "error": ct.err, "bound": ct.bound} for i, ct in out.items()
    }
