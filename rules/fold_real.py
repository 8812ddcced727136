"""Identities with real (CKKS) constants: the ``NumF`` counterparts of ``ring``'s.

In: nothing.  Out: ``FAMILY`` (``RuleFamily``, ruleset ``fold-real``).

``ring`` folds and simplifies integer splats (``Num``), exactly, hence modulo any
plaintext modulus t (BGV, and the noisy dialect, whose add/sub/mul load as the same
terms).  Programs over ``f64`` carry ``NumF`` constants, which need their own rules:
the identities below with the literals 0.0, 1.0 and -1.0 are exact over the reals.
``a - a`` is ``ring``'s ``sub-self`` (its integer 0 is emitted as 0.0 in a real
program).  Folding two arbitrary real constants is left out: a rule needs a variable of sort
``f64``, which ``eqsat.rulespec`` does not offer (no sampler, and ``check_sound``
compares exactly, which rounding would break).
"""

from __future__ import annotations

from eqsat.rulespec import N, RuleFamily, Term

FAMILY = RuleFamily("fold-real")
r = FAMILY.rule


@r("fadd-zero")
def _(L, a: Term, n: N):
    """a + 0.0 = a"""
    return L.Add(a, L.NumF(0.0, n)), a, [L.eq(L.slots(a), n)]


@r("fzero-add")
def _(L, a: Term, n: N):
    """0.0 + a = a"""
    return L.Add(L.NumF(0.0, n), a), a, [L.eq(L.slots(a), n)]


@r("fsub-zero")
def _(L, a: Term, n: N):
    """a - 0.0 = a"""
    return L.Sub(a, L.NumF(0.0, n)), a, [L.eq(L.slots(a), n)]


@r("fzero-sub")
def _(L, a: Term, n: N):
    """0.0 - a = -a"""
    return L.Sub(L.NumF(0.0, n), a), L.Neg(a), [L.eq(L.slots(a), n)]


@r("fmul-one")
def _(L, a: Term, n: N):
    """a * 1.0 = a"""
    return L.Mul(a, L.NumF(1.0, n)), a, [L.eq(L.slots(a), n)]


@r("fone-mul")
def _(L, a: Term, n: N):
    """1.0 * a = a"""
    return L.Mul(L.NumF(1.0, n), a), a, [L.eq(L.slots(a), n)]


@r("fmul-zero")
def _(L, a: Term, n: N):
    """a * 0.0 = 0.0"""
    return L.Mul(a, L.NumF(0.0, n)), L.NumF(0.0, n), [L.eq(L.slots(a), n)]


@r("fmul-neg-one")
def _(L, a: Term, n: N):
    """a * -1.0 = -a"""
    return L.Mul(a, L.NumF(-1.0, n)), L.Neg(a), [L.eq(L.slots(a), n)]

