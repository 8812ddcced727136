"""Average-case (variance) noise model for BGV and CKKS, beside the worst-case bound.

In: a ``Program`` and a ``Params``, and a failure probability ``p_fail`` (default
2^-40 per output).  Out: ``predict_bgv_average(prog, params) -> {node id: bits}`` and
``predict_ckks_average(prog, params, input_bound) -> {node id: {"scale", "level",
"error", "bound"}}``, plus the abstract evaluators ``BGVAverage`` and ``CKKSAverage``
(drop-in replacements for ``backend.noise.BGVNoise`` / ``CKKSNoise``: the executor's own
lowering runs against them, so every rotation, mask, modswitch and relinearization the
executor performs is accounted for).

Where ``backend.noise`` bounds every random polynomial once and then adds bounds
(triangle inequality), this model follows the *variance* of the noise, in the spirit of
the average-case models used by HEIR's BGV parameter generation (the MP24 line of work):
the noise is a sum of many independent zero-mean terms, so variances add, and the
bound asked for is the one exceeded with probability at most ``p_fail``.

BGV quantity: V, the variance of one coefficient of the phase x = c_0 + c_1 s (+ c_2 s^2)
(= f*m + t*e before reduction mod t).  Coefficients are treated as independent and
near-Gaussian (each is a sum of many independent products), so the infinity norm over
the N coefficients exceeds z*sqrt(V) with probability at most N * 2 exp(-z^2/2); with
z = sqrt(2 ln(2N / p_fail)) that is p_fail.  The reported ``bits`` is log2(z*sqrt(V)),
the same unit as the worst-case model (and as the executor's measurement).

  fresh        t^2/12 + t^2 s2 (1 + 2 N 2/3)                  (m + t(e u + e_0 + e_1 s))
  add/sub      Va + Vb (4 Va when both operands are the same ciphertext)
  rotate       a signed permutation of the coefficients: V, plus the key switch
  mul          N Va Vb (2 N Va^2 for a square: each cross term appears twice)
  mul_plain    N V t^2/12 (plaintext coefficients uniform mod t); a constant c: c^2 V
  key switch   V + t^2 (N s2 sum_i q_i^2/12 / P^2 + (1 + N 2/3)/12)
  modswitch    V / q^2 + t^2 (1 + ||s||^2 + ||s^2||^2 ...)/12,
               ||s||^2 = 2N/3, ||s^2||^2 = 8 N^2 / 9

with s2 = the error variance (``params.ERROR_VARIANCE``), q_i the primes of the level, P
the key-switching prime.

CKKS quantity: the variance of the error of one slot (real part, in value units).  A
real polynomial with independent coefficients of variance v gives every slot a real
part of variance N v / 2, uncorrelated between slots, so phase terms enter as
N v / (2 scale^2).  Products use the worst-case slot value bound of the other factor
(values are data, not noise): Var(a e_b + b e_a + e_a e_b) <= |a|^2 Vb + |b|^2 Va + Va Vb.
The bound is z*sqrt(V) with z = sqrt(2 ln(N / p_fail)) (union over the N/2 slots).
Value bounds (``bound``) are the worst-case ones of ``backend.noise``.
"""

from __future__ import annotations

import math
from typing import Any

from eqsat.backend.noise import BGVNoise, CKKSNoise, NoiseCt, _walk
from eqsat.backend.params import ERROR_VARIANCE, Params
from eqsat.ir import Program

#: default failure probability per output (the probability that one output's noise
#: exceeds the predicted bound)
P_FAIL = 2.0**-40
VAR_S = 2.0 / 3.0  # ternary secret: coefficient variance


def _lsum(*xs: float) -> float:
    """log2(sum 2^x) for log2 variances (-inf allowed)."""
    hi = max(xs)
    if hi == -math.inf:
        return hi
    return hi + math.log2(sum(2.0 ** (x - hi) for x in xs))


def _l2(x: float) -> float:
    return math.log2(x) if x > 0 else -math.inf


Sources = dict[tuple[int, int], int]


class VarCt(NoiseCt):
    """An abstract ciphertext that also carries log2 of its noise variance and its sources.

    ``src`` maps each independent random source of the noise -- (the operation that drew
    it, the rotation applied to it since) -- to the largest power in which it appears.
    Terms that share a source are correlated: their variances are combined by
    Cauchy-Schwarz, (sigma_a + sigma_b)^2, and products use the Gaussian moment ratio.
    """

    def __init__(
        self, *args: Any, lvar: float = -math.inf, src: Sources | None = None, lcoh: float | None = None, **kw: Any
    ) -> None:
        super().__init__(*args, **kw)
        self.lvar = lvar
        self.src: Sources = src or {}
        self.lcoh = lvar if lcoh is None else lcoh


#: a term this many bits (of variance) below the other no longer carries its sources:
#: its moments cannot matter, and keeping them would charge the dominant term the
#: moment factors of a negligible one (a product scaled away by a modswitch)
NEGLIGIBLE_BITS = 10.0


def _join(a: Sources, la: float, b: Sources, lb: float) -> Sources:
    """Sources of the sum of two terms of log2 variances la and lb."""
    if la < lb - NEGLIGIBLE_BITS:
        return b
    if lb < la - NEGLIGIBLE_BITS:
        return a
    return _merge(a, b)


def _merge(a: Sources, b: Sources) -> Sources:
    out = dict(a)
    for k, d in b.items():
        out[k] = max(out.get(k, 0), d)
    return out


def _product_sources(a: Sources, b: Sources) -> tuple[Sources, float]:
    """Sources of a product and log2 of its moment factor prod_s C(da_s + db_s, da_s).

    For a complex Gaussian g, E|g|^(2(j+k)) / (E|g|^(2j) E|g|^(2k)) = C(j+k, j): the
    second moment of a product of powers of one source exceeds the product of the
    second moments by that binomial (x*x: 2; x^8: 8! over independent factors).
    """
    out = dict(a)
    lf = 0.0
    for k, d in b.items():
        if k in out:
            lf += math.log2(math.comb(out[k] + d, d))
            out[k] += d
        else:
            out[k] = d
    return out, lf


def _coherent(la: float, lb: float) -> float:
    """log2 (sigma_a + sigma_b)^2: the Cauchy-Schwarz bound on Var(a + b)."""
    return 2.0 * math.log2(2.0 ** (0.5 * la) + 2.0 ** (0.5 * lb))


def _ladd(a: Any, b: Any) -> float:
    """log2 Var(a + b): independent terms add, correlated ones by Cauchy-Schwarz.

    Source 0 is the key (s and the public-key error, shared by every ciphertext): a
    shared key factor alone does not correlate two terms (e u_a and e u_b are uncorrelated).
    """
    if any(k[0] > 0 for k in a.src.keys() & b.src.keys()):
        return _coherent(a.lvar, b.lvar)
    return _lsum(a.lvar, b.lvar)


def _lcoh_add(a: Any, b: Any) -> float:
    """log2 variance of the coefficients that automorphisms fix (coefficient 0 among
    them): there x(X^g) equals x, so rotated copies of one source add coherently."""
    if {k[0] for k in a.src if k[0] > 0} & {k[0] for k in b.src if k[0] > 0}:
        return _coherent(a.lcoh, b.lcoh)
    return _lsum(a.lcoh, b.lcoh)


def _rotated(src: Sources, k: int, period: int) -> Sources:
    return {(s, (r + k) % period): d for (s, r), d in src.items()}


class _AverageMixin:
    """Shared pieces: rounding and key-switching variances at unit scale (log2)."""

    params: Params
    n: int

    def _init_average(self, p_fail: float, points: int) -> None:
        self.p_fail = p_fail
        self._sources = 0
        self.z = math.sqrt(2.0 * math.log(points / p_fail))
        self.lz = math.log2(self.z)

    def _new(self) -> Sources:
        """A fresh noise term.  Fresh encryption noise (e u + e_1 s + e_0), key-switching
        and rounding noise (r_0 + r_1 s) are dominated by products of two independent
        random polynomials, whose powers have heavier moments than a Gaussian's
        (E|g h|^(2k) = (k!)^2 (Vg Vh)^k): the term is tagged with two sources, the key
        (source 0: s, and the key errors, shared by all ciphertexts) and its own."""
        self._sources += 1
        return {(0, 0): 1, (self._sources, 0): 1}

    def _lround(self, degree: int) -> float:
        """log2 Var of a coefficient of r_0 + r_1 s + ... + r_(d-1) s^(d-1), r uniform in [-1/2, 1/2]."""
        norms = [1.0, self.n * VAR_S, 2.0 * self.n * self.n * VAR_S * VAR_S]
        while len(norms) < degree:  # higher powers (not produced by the lowering): Gaussian heuristic
            norms.append(norms[-1] * self.n * VAR_S * len(norms))
        return math.log2(sum(norms[:degree]) / 12.0)

    def _lks(self, level: int) -> float:
        """log2 Var of a coefficient of the key-switching noise at unit scale."""
        sq = sum(float(q) * float(q) / 12.0 for q in self.params.moduli[: level + 1])
        digits = self.n * ERROR_VARIANCE * sq / float(self.params.special) ** 2
        return _lsum(_l2(digits), self._lround(2))


class BGVAverage(_AverageMixin, BGVNoise):
    """Abstract BGV evaluator tracking the phase's coefficient variance."""

    name = "average"

    def __init__(self, params: Params, p_fail: float = P_FAIL) -> None:
        super().__init__(params)
        self._init_average(p_fail, 2 * self.n)
        t2 = float(self.t) ** 2
        self.lt2 = math.log2(t2)
        self.lfresh = math.log2(t2 / 12.0 + t2 * ERROR_VARIANCE * (1.0 + 2.0 * self.n * VAR_S))
        self.fresh = self._bits(self.lfresh)

    def _bits(self, lvar: float) -> float:
        return 0.5 * lvar + self.lz

    def _mk(self, a: Any, lvar: float, **kw: Any) -> VarCt:
        base: dict[str, Any] = dict(level=a.level, factor=a.factor, degree=a.degree, src=a.src, lcoh=lvar)
        base.update(kw)
        return VarCt(bits=self._bits(max(lvar, base["lcoh"])), lvar=lvar, **base)

    def _lplain(self, row: list[Any], factor: int = 1) -> float:
        """log2 of the coefficient variance (or square) of the plaintext polynomial."""
        vals: set[int | None] = {None if v is None else (int(v) * factor) % self.t for v in row}
        if len(vals) == 1:
            c = vals.pop()
            if c is not None:
                return 2.0 * math.log2(max(min(c, self.t - c), 1))
        return self.lt2 - math.log2(12.0)

    def encrypt(self, row: list[Any]) -> VarCt:
        return VarCt(self.params.max_level, self.fresh, lvar=self.lfresh, src=self._new())

    def add(self, a: Any, b: Any) -> VarCt:
        src = _join(a.src, a.lvar, b.src, b.lvar)
        return self._mk(a, _ladd(a, b), degree=max(a.degree, b.degree), src=src, lcoh=_lcoh_add(a, b))

    sub = add

    def neg(self, a: Any) -> VarCt:
        return self._mk(a, a.lvar, lcoh=a.lcoh)

    def add_plain(self, a: Any, row: list[Any]) -> VarCt:
        lp = self._lplain(row, a.factor)
        return self._mk(a, _lsum(a.lvar, lp), lcoh=_lsum(a.lcoh, lp))

    def mul_plain(self, a: Any, row: list[Any]) -> VarCt:
        vals = {None if v is None else int(v) % self.t for v in row}
        extra = 0.0 if len(vals) == 1 and None not in vals else math.log2(self.n)
        return self._mk(a, a.lvar + self._lplain(row) + extra)

    def mul_scalar(self, a: Any, c: int) -> VarCt:
        lc = 2.0 * math.log2(max(abs(c), 1))
        return self._mk(a, a.lvar + lc, factor=a.factor * c % self.t, lcoh=a.lcoh + lc)

    def mul(self, a: Any, b: Any) -> VarCt:
        src, lf = _product_sources(a.src, b.src)
        lv = math.log2(self.n) + a.lvar + b.lvar + lf
        return self._mk(a, lv, factor=a.factor * b.factor % self.t, degree=3, src=src)

    def _plus(self, a: Any, lvar: float, **kw: Any) -> VarCt:
        """a plus a new independent noise term of log2 variance ``lvar``."""
        src = _join(a.src, a.lvar, self._new(), lvar)
        return self._mk(a, _lsum(a.lvar, lvar), src=src, lcoh=_lsum(a.lcoh, lvar), **kw)

    def relinearize(self, a: Any) -> VarCt:
        return self._plus(a, self.lt2 + self._lks(a.level), degree=2)

    def rotate(self, a: Any, k: int) -> VarCt:
        b = self._plus(a, self.lt2 + self._lks(a.level), degree=2)
        b.src = _rotated(b.src, k, self.n // 2)
        return b

    def modswitch(self, a: Any) -> VarCt:
        q = self.params.moduli[a.level]
        f = a.factor * pow(q, -1, self.t) % self.t
        lq, lr = 2.0 * math.log2(q), self.lt2 + self._lround(a.degree)
        src = _join(a.src, a.lvar - lq, self._new(), lr)
        lv, lc = _lsum(a.lvar - lq, lr), _lsum(a.lcoh - lq, lr)
        return self._mk(a, lv, level=a.level - 1, factor=f, src=src, lcoh=lc)


class CKKSAverage(_AverageMixin, CKKSNoise):
    """Abstract CKKS evaluator tracking the slot-error variance (value units)."""

    name = "average"

    def __init__(self, params: Params, input_bound: float = 1.0, p_fail: float = P_FAIL) -> None:
        super().__init__(params, input_bound)
        self._init_average(p_fail, self.n)
        self.lfresh_unit = math.log2(1.0 / 12.0 + ERROR_VARIANCE * (1.0 + 2.0 * self.n * VAR_S))
        self.lhalf_n = math.log2(self.n / 2.0)

    def _slot(self, lcoef: float, scale: float) -> float:
        """log2 slot variance of a phase term of coefficient variance 2^lcoef at ``scale``."""
        return lcoef + self.lhalf_n - 2.0 * math.log2(scale)

    def _err(self, lvar: float) -> float:
        return self.z * 2.0 ** (0.5 * lvar)

    def error_over(self, ct: Any, slots: int) -> float:
        """The error bound of one output that reads ``slots`` slots of ``ct`` (a union
        bound over those slots instead of all N/2): exceeded with probability <= p_fail."""
        z = math.sqrt(2.0 * math.log(2.0 * max(1, min(slots, self.n // 2)) / self.p_fail))
        return z * 2.0 ** (0.5 * ct.lvar)

    def _mk(self, a: Any, lvar: float, **kw: Any) -> VarCt:
        base: dict[str, Any] = dict(level=a.level, scale=a.scale, bound=a.bound, degree=a.degree, src=a.src)
        base.update(kw)
        return VarCt(err=self._err(lvar), lvar=lvar, **base)

    def _plus(self, a: Any, lvar: float, **kw: Any) -> VarCt:
        """a plus a new independent error term of log2 slot variance ``lvar``."""
        return self._mk(a, _lsum(a.lvar, lvar), src=_join(a.src, a.lvar, self._new(), lvar), **kw)

    def _lenc(self, row: list[Any], scale: float) -> float:
        """log2 slot variance of the encoding rounding of ``row`` at ``scale``."""
        vals = {None if v is None else float(v) for v in row}
        if len(vals) == 1 and None not in vals:  # a constant row encodes to a constant polynomial
            return math.log2(1.0 / 12.0) - 2.0 * math.log2(scale)
        return self._slot(math.log2(1.0 / 12.0), scale)

    def encrypt(self, row: list[Any]) -> VarCt:
        lv = self.params.max_level
        s = self._scales[lv]
        lvar = self._slot(self.lfresh_unit, s)
        return VarCt(lv, scale=s, err=self._err(lvar), bound=self._rowbound(row), lvar=lvar, src=self._new())

    def add(self, a: Any, b: Any) -> VarCt:
        src = _join(a.src, a.lvar, b.src, b.lvar)
        return self._mk(a, _ladd(a, b), bound=a.bound + b.bound, degree=max(a.degree, b.degree), src=src)

    sub = add

    def neg(self, a: Any) -> VarCt:
        return self._mk(a, a.lvar)

    def add_plain(self, a: Any, row: list[Any]) -> VarCt:
        return self._plus(a, self._lenc(row, a.scale), bound=a.bound + self._rowbound(row))

    def mul_plain(self, a: Any, row: list[Any], scale: float | None = None) -> VarCt:
        ps = scale if scale is not None else self._scales[a.level]
        pb = self._rowbound(row)
        lp = self._lenc(row, ps)
        lv = _lsum(2.0 * _l2(pb) + a.lvar, 2.0 * _l2(a.bound) + lp, a.lvar + lp)
        return self._mk(a, lv, scale=a.scale * ps, bound=a.bound * pb, src=_merge(a.src, self._new()))

    def mul(self, a: Any, b: Any) -> VarCt:
        """(x + e_x)(y + e_y) - xy = x e_y + y e_x + e_x e_y, |x|, |y| at their value bounds."""
        src, lf = _product_sources(a.src, b.src)
        la, lb = 2.0 * _l2(a.bound) + b.lvar, 2.0 * _l2(b.bound) + a.lvar
        lin = _ladd(VarCt(0, lvar=la, src=a.src), VarCt(0, lvar=lb, src=b.src))
        lv = _lsum(lin, a.lvar + b.lvar + lf)
        return self._mk(a, lv, scale=a.scale * b.scale, bound=a.bound * b.bound, degree=3, src=src)

    def relinearize(self, a: Any) -> VarCt:
        return self._plus(a, self._slot(self._lks(a.level), a.scale), degree=2)

    def rotate(self, a: Any, k: int) -> VarCt:
        b = self._plus(a, self._slot(self._lks(a.level), a.scale))
        b.src = _rotated(b.src, k, self.n // 2)
        return b

    def rescale(self, a: Any) -> VarCt:
        q = self.params.moduli[a.level]
        s = a.scale / q
        return self._plus(a, self._slot(self._lround(a.degree), s), level=a.level - 1, scale=s)

    def drop_to(self, a: Any, limbs: int) -> VarCt:
        return self._mk(a, a.lvar, level=limbs - 1)

    def refresh(self, a: Any) -> VarCt:
        self.decrypt(a)
        fresh = self.encrypt([])
        lv = _lsum(a.lvar, fresh.lvar, self._slot(math.log2(1.0 / 12.0), fresh.scale))
        return self._mk(fresh, lv, bound=a.bound + a.err, src=_merge(a.src, fresh.src))


def predict_bgv_average(prog: Program, params: Params, p_fail: float = P_FAIL) -> dict[int, float]:
    """Average-case noise bits (exceeded with probability <= p_fail) per live secret node."""
    return {i: ct.bits for i, ct in _walk(prog, BGVAverage(params, p_fail), "bgv").items()}


def predict_ckks_average(
    prog: Program, params: Params, input_bound: float = 1.0, p_fail: float = P_FAIL
) -> dict[int, dict[str, float]]:
    """Scale, level, average-case slot error bound and worst-case value bound per live secret node."""
    out = _walk(prog, CKKSAverage(params, input_bound, p_fail), "ckks")
    return {i: {"scale": ct.scale, "level": ct.level, "error": ct.err, "bound": ct.bound} for i, ct in out.items()}


def evaluators(model: str) -> tuple[type, type]:
    """(BGV, CKKS) abstract evaluator classes of the noise model named ``model``."""
    if model == "average":
        return BGVAverage, CKKSAverage
    if model == "worst":
        return BGVNoise, CKKSNoise
    raise ValueError(f"unknown noise model '{model}' (expected worst or average)")
