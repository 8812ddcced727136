"""Noise, depth and level facts as egglog analyses, kept apart from the optimizing rules.

In: a ``Session`` (``eqsat.egraph``) after saturation, or its serialized JSON.  Out:
the ruleset ``noise_analysis`` (egglog name ``noise-analysis``), ``run(session)`` which
runs it to a fixpoint, and ``facts(js, view)`` -> ``NoiseFacts``: per e-class of an
``EGraphView`` the best case over every program the class represents of

* ``noise``: the noisy-arithmetic article's noise bound in bits *without any
  reduce_noise* (fresh/encode 12; ct+ct and ct+pt ``max + 1``; ct x ct the sum;
  ct x plaintext + 12, the plaintext being encoded as printed; neg + 1, as ``0 - x``;
  rotate and slot moves keep the bound; saturated at ``NOISE_CAP``);
* ``depth``: the multiplicative depth (ciphertext x ciphertext), the BGV level fact:
  a class needs at least ``depth`` levels of the modulus chain (one modswitch per level);
* ``ckks_depth``: the depth counting every multiplication of a ciphertext (also by a
  plaintext), the CKKS level fact: each such product is rescaled once, so a class needs
  at least ``ckks_depth`` levels and, rescaled, sits at scale Delta on level
  ``max_level - ckks_depth``.

Every fact is merged with ``min``: an e-class holds many equivalent programs and the
analysis keeps the best, so each value is a lower bound on what extraction can reach
without management ops, and equals the source program's value when no rewrite fired.
Plaintext operands are exact when they fold from integer constants (``plain_val``,
guarded against overflow); any other plaintext (dense vectors, decoded values, reals)
scales by the lower bound 0 bits, which keeps ``noise`` a lower bound.  Summary nodes
(``LinRot``...) are never extracted, so they contribute nothing.

The functions are separate from ``term.slots`` and the rewrite rulesets: the rewrites
never read them, so the analysis runs once after saturation and cannot change what
saturation finds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from egglog import RewriteOrRule, String, f64, function, i64, rule, ruleset, set_

# what runs the analysis and reads its facts lives apart, free of egglog's Python layer
from eqsat.egraph.noise_facts import ANALYSIS_FUNCTIONS, NoiseFacts, eclass_index, facts, run, seed_inputs
from eqsat.models.noisy import FRESH
from eqsat.term import (
    Add,
    AddI,
    Decode,
    Dense,
    Encode,
    Ext,
    ExtI,
    Ins,
    Mask,
    Mul,
    MulI,
    Neg,
    NegI,
    Num,
    NumF,
    Place,
    Rot,
    Splat,
    Sub,
    SubI,
    T,
)

__all__ = ["ANALYSIS_FUNCTIONS", "NoiseFacts", "eclass_index", "facts", "noise_analysis", "run", "seed_inputs"]


def _min(old: i64, new: i64) -> i64:
    return old.min(new)


def _max(old: i64, new: i64) -> i64:
    return old.max(new)


@function(egg_fn="noise_bits", merge=_min)
def noise_bits(t: T) -> i64:  # type: ignore[empty-body]
    """Fewest noise bits of a secret class without management (the article's model)."""


@function(egg_fn="mul_depth", merge=_min)
def mul_depth(t: T) -> i64:  # type: ignore[empty-body]
    """Smallest ciphertext x ciphertext depth of a secret class (BGV levels)."""


@function(egg_fn="ckks_depth", merge=_min)
def ckks_depth(t: T) -> i64:  # type: ignore[empty-body]
    """Smallest depth counting every secret multiplication (CKKS rescales = levels)."""


@function(egg_fn="plain_bits", merge=_max)
def plain_bits(t: T) -> i64:  # type: ignore[empty-body]
    """Defined for plaintext-realizable classes: a lower bound on ceil(log2 max|value|)."""


@function(egg_fn="plain_val", merge=lambda old, new: old)
def plain_val(t: T) -> i64:  # type: ignore[empty-body]
    """The integer in every slot of a plaintext splat that folds from constants."""


# egglog names of the analysis functions, as they appear in the serialized e-graph
_GUARD = 1 << 30  # fold products only below this magnitude (no i64 overflow)

noise_analysis = ruleset(name="noise-analysis")

Fn = Callable[[T], i64]


def _plain_rules(a: T, b: T, v: i64, w: i64, n: i64, k: i64, s: String, x: f64) -> Iterator[RewriteOrRule]:
    # exact integer splats
    yield rule(Num(v, n), name="na-pval-num").then(set_(plain_val(Num(v, n))).to(v))
    for nm, ctor, fold in (("add", Add, lambda p, q: p + q), ("sub", Sub, lambda p, q: p - q),
                           ("mul", Mul, lambda p, q: p * q), ("addi", AddI, lambda p, q: p + q),
                           ("subi", SubI, lambda p, q: p - q), ("muli", MulI, lambda p, q: p * q)):
        yield rule(
            ctor(a, b), plain_val(a) == v, plain_val(b) == w,
            v < _GUARD, v > -_GUARD, w < _GUARD, w > -_GUARD, name=f"na-pval-{nm}",
        ).then(set_(plain_val(ctor(a, b))).to(fold(v, w)))
    yield rule(Neg(a), plain_val(a) == v, name="na-pval-neg").then(set_(plain_val(Neg(a))).to(i64(0) - v))
    yield rule(NegI(a), plain_val(a) == v, name="na-pval-negi").then(set_(plain_val(NegI(a))).to(i64(0) - v))
    yield rule(Rot(a, k), plain_val(a) == v, name="na-pval-rot").then(set_(plain_val(Rot(a, k))).to(v))
    yield rule(Ext(a, k), plain_val(a) == v, name="na-pval-ext").then(set_(plain_val(Ext(a, k))).to(v))
    yield rule(ExtI(a, k), plain_val(a) == v, name="na-pval-exti").then(set_(plain_val(ExtI(a, k))).to(v))
    yield rule(Splat(a, n), plain_val(a) == v, name="na-pval-splat").then(set_(plain_val(Splat(a, n))).to(v))
    # scale bits from exact values: ceil(log2 |v|) = floor(log2(|v| - 1)) + 1 for |v| >= 2
    yield rule(plain_val(a) == v, v > 1, name="na-pbits-positive").then(
        set_(plain_bits(a)).to(i64(1) + (v - 1).log2()))
    yield rule(plain_val(a) == v, v < -1, name="na-pbits-negative").then(
        set_(plain_bits(a)).to(i64(1) + (i64(0) - v - 1).log2()))
    yield rule(plain_val(a) == v, v <= 1, v >= -1, name="na-pbits-unit").then(set_(plain_bits(a)).to(i64(0)))
    # other plaintexts: known to be plaintext, magnitude lower bound 0
    zero = i64(0)
    yield rule(NumF(x, n), name="na-pbits-numf").then(set_(plain_bits(NumF(x, n))).to(zero))
    yield rule(Dense(s, n), name="na-pbits-dense").then(set_(plain_bits(Dense(s, n))).to(zero))
    yield rule(Mask(s, n), name="na-pbits-mask").then(set_(plain_bits(Mask(s, n))).to(zero))
    yield rule(Decode(a), name="na-pbits-decode").then(set_(plain_bits(Decode(a))).to(zero))
    for nm, ctor2 in (("add", Add), ("sub", Sub), ("mul", Mul), ("addi", AddI), ("subi", SubI), ("muli", MulI)):
        yield rule(ctor2(a, b), plain_bits(a) == v, plain_bits(b) == w, name=f"na-pbits-{nm}").then(
            set_(plain_bits(ctor2(a, b))).to(zero))
    for nm, un in _unary(k, n):
        yield rule(un(a), plain_bits(a) == v, name=f"na-pbits-{nm}").then(set_(plain_bits(un(a))).to(zero))
    yield rule(Ins(a, b, k), plain_bits(a) == v, plain_bits(b) == w, name="na-pbits-ins").then(
        set_(plain_bits(Ins(a, b, k))).to(zero))


def _unary(k: i64, n: i64) -> list[tuple[str, Callable[[T], T]]]:
    """Ops that keep their single operand's noise and depth."""
    return [
        ("neg", Neg),
        ("negi", NegI),
        ("rot", lambda t: Rot(t, k)),
        ("ext", lambda t: Ext(t, k)),
        ("exti", lambda t: ExtI(t, k)),
        ("splat", lambda t: Splat(t, n)),
        ("place", lambda t: Place(t, k, n)),
    ]


def _secret_rules(
    tag: str, fn: Fn, fresh: i64, a: T, b: T, v: i64, w: i64, n: i64, k: i64, s: String,
    *, add: Callable[[i64, i64], i64], mul: Callable[[i64, i64], i64], scale: Callable[[i64, i64], i64],
    add_plain: Callable[[i64, i64], i64], neg: Callable[[i64], i64] | None = None,
) -> Iterator[RewriteOrRule]:
    """The rules of one secret-value analysis ``fn``; the callables combine operand facts.

    ``add``/``mul``: two secret operands; ``add_plain``/``scale``: a secret operand's fact
    and the plaintext operand's ``plain_bits``.
    """
    # inputs: set per program by ``run`` (a plaintext argument is an ``In`` too)
    yield rule(Encode(a), name=f"{tag}-encode").then(set_(fn(Encode(a))).to(fresh))
    for nm, ctor in (("add", Add), ("sub", Sub), ("addi", AddI), ("subi", SubI)):
        yield rule(ctor(a, b), fn(a) == v, fn(b) == w, name=f"{tag}-{nm}").then(
            set_(fn(ctor(a, b))).to(add(v, w)))
        yield rule(ctor(a, b), fn(a) == v, plain_bits(b) == w, name=f"{tag}-{nm}-pt").then(
            set_(fn(ctor(a, b))).to(add_plain(v, w)))
        yield rule(ctor(a, b), plain_bits(a) == w, fn(b) == v, name=f"{tag}-pt-{nm}").then(
            set_(fn(ctor(a, b))).to(add_plain(v, w)))
    for nm, mk in (("mul", Mul), ("muli", MulI)):
        yield rule(mk(a, b), fn(a) == v, fn(b) == w, name=f"{tag}-{nm}").then(set_(fn(mk(a, b))).to(mul(v, w)))
        yield rule(mk(a, b), fn(a) == v, plain_bits(b) == w, name=f"{tag}-{nm}-pt").then(
            set_(fn(mk(a, b))).to(scale(v, w)))
        yield rule(mk(a, b), plain_bits(a) == w, fn(b) == v, name=f"{tag}-pt-{nm}").then(
            set_(fn(mk(a, b))).to(scale(v, w)))
    for nm, un in _unary(k, n):
        res = neg(v) if neg is not None and nm in ("neg", "negi") else v
        yield rule(un(a), fn(a) == v, name=f"{tag}-{nm}").then(set_(fn(un(a))).to(res))
    yield rule(Ins(a, b, k), fn(a) == v, fn(b) == w, name=f"{tag}-ins").then(
        set_(fn(Ins(a, b, k))).to(v.max(w)))
    yield rule(Ins(a, b, k), fn(a) == v, plain_bits(b) == w, name=f"{tag}-ins-pt").then(
        set_(fn(Ins(a, b, k))).to(v))
    yield rule(Ins(a, b, k), plain_bits(a) == w, fn(b) == v, name=f"{tag}-pt-ins").then(
        set_(fn(Ins(a, b, k))).to(v))


NOISE_CAP = 1 << 40


@noise_analysis.register
def _rules(a: T, b: T, v: i64, w: i64, n: i64, k: i64, s: String, x: f64) -> Iterator[RewriteOrRule]:
    yield from _plain_rules(a, b, v, w, n, k, s, x)
    yield from _secret_rules(
        "na-noise", noise_bits, i64(FRESH), a, b, v, w, n, k, s,
        # saturated at NOISE_CAP: chained squarings double the bits each time (12 * 2^60
        # overflows i64); a capped bound is still a lower bound, and far over any budget
        add=lambda p, q: (p.max(q) + 1).min(i64(NOISE_CAP)), mul=lambda p, q: (p + q).min(i64(NOISE_CAP)),
        # a plaintext operand is encoded first (a fresh ciphertext) and -x is 0 - x, as printed
        scale=lambda p, q: (p + FRESH).min(i64(NOISE_CAP)), add_plain=lambda p, q: (p + 1).min(i64(NOISE_CAP)),
        neg=lambda p: (p + 1).min(i64(NOISE_CAP)),
    )
    yield from _secret_rules(
        "na-depth", mul_depth, i64(0), a, b, v, w, n, k, s,
        add=lambda p, q: p.max(q), mul=lambda p, q: p.max(q) + 1, scale=lambda p, q: p,
        add_plain=lambda p, q: p,
    )
    yield from _secret_rules(
        "na-ckks", ckks_depth, i64(0), a, b, v, w, n, k, s,
        add=lambda p, q: p.max(q), mul=lambda p, q: p.max(q) + 1, scale=lambda p, q: p + 1,
        add_plain=lambda p, q: p,
    )
