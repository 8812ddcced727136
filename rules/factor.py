"""Factoring (distributivity read right to left), with bounded growth.

In: nothing. Out: ``FAMILY`` (``RuleFamily``, ruleset ``factor``).

A common factor is only pulled out when it is *syntactically shared* (the same e-class
in both products) and is an input ``x`` or a sum of two inputs ``x + y`` (kinds ``in``,
``inadd``; one rule per kind, the kind is part of the rule name).  The factor is matched
through the leaf-key analysis, so a class merged with a constant never qualifies:

* constant factors made factoring explode: every doubling of a mul-to-add chain is also
  ``e * 2``, so ``2`` is shared by hundreds of products and pulling it out of every
  sub-sum enumerates subsets (random 2,000-op program: 4.5k matches of one rule in the
  third iteration, then out of memory);
* product and sum factors matched structurally (``Mul(p, q)``) also match the class of
  0, which holds ``a * 0`` for every ``a``: 80k matches of one rule in one iteration.

Skipping over a sum level (a limited associativity, what balanced sums need) comes in
two forms: over a constant, with an input factor on the left of both products (Horner:
``x c1 + x (x c2) + ...`` becomes ``c1 + x (c2 + ...)``: ``factor-skip-left`` moves the
constant term of an inner Horner sum out of the way, ``factor-skip-right`` the constant
that the loader sorts last), and over any term only for a shared sum of two inputs (the
six pairwise products: ``(a (b + c) + y) + (b + c) d``).  Without commutativity each
other rule comes in the four operand orders of its two products (``l``: the shared
factor is the left operand).

The e-graph keeps both sides of every factoring, so only a product the source wrote
factored lacks its distributed form.  Distribution by a constant (``x (b + k) = x b +
x k``, ``k (x + c) = k x + k c``, even restricted to an input ``x``) is left out: it fed
mul-to-add and ring's ``add-const-assoc`` new constant products and sums every iteration
(random 500-op program, ``all`` schedule: 41k nodes, 2.9 GB and a 47 s iteration after
23 iterations with it; 18.5k nodes after 40 iterations, 0.1 s each, without).  The
``all`` schedule still does not saturate on random programs: ``add-const-assoc`` keeps
adding a few hundred nodes per iteration (numbers: ``experiments/out/arith_scale.csv``).

All rules are identities of commutative rings (sound modulo any t, and over the reals).
"""

from __future__ import annotations

from typing import Any

from eqsat.rulespec import Int, N, Name, RuleFamily, Term

FAMILY = RuleFamily("factor")
r = FAMILY.rule

def _in(L: Any, fs: Any, fn: Any) -> Any:
    """The shared factor ``in``: an input."""
    return L.In(fs, fn)


def _inadd(L: Any, fs: Any, fn: Any, ft: Any) -> Any:
    """The shared factor ``inadd``: a sum of two inputs."""
    return L.Add(L.In(fs, fn), L.In(ft, fn))


def _prod(L: Any, a: Any, b: Any, side: str) -> Any:
    """``a * b`` (``side == "l"``: the shared factor is the left operand) or ``b * a``."""
    return L.Mul(a, b) if side == "l" else L.Mul(b, a)


# Distribution backwards, ``name-KIND-s1s2``: one rule per shared-factor kind and operand
# order of each product (``l``: the shared factor is the left operand).  They are written
# out one by one so that every rule's name can be found by searching for it.
@r("factor-add-in-ll")
def _(L, b: Term, c: Term, fs: Name, fn: N):
    """a b + a c = a (b + c)  (shared factor: in)"""
    a = _in(L, fs, fn)
    return L.Add(_prod(L, a, b, "l"), _prod(L, a, c, "l")), _prod(L, a, L.Add(b, c), "l")

@r("factor-add-in-lr")
def _(L, b: Term, c: Term, fs: Name, fn: N):
    """a b + a c = a (b + c)  (shared factor: in)"""
    a = _in(L, fs, fn)
    return L.Add(_prod(L, a, b, "l"), _prod(L, a, c, "r")), _prod(L, a, L.Add(b, c), "l")

@r("factor-add-in-rl")
def _(L, b: Term, c: Term, fs: Name, fn: N):
    """a b + a c = a (b + c)  (shared factor: in)"""
    a = _in(L, fs, fn)
    return L.Add(_prod(L, a, b, "r"), _prod(L, a, c, "l")), _prod(L, a, L.Add(b, c), "r")

@r("factor-add-in-rr")
def _(L, b: Term, c: Term, fs: Name, fn: N):
    """a b + a c = a (b + c)  (shared factor: in)"""
    a = _in(L, fs, fn)
    return L.Add(_prod(L, a, b, "r"), _prod(L, a, c, "r")), _prod(L, a, L.Add(b, c), "r")

@r("factor-add-inadd-ll")
def _(L, b: Term, c: Term, fs: Name, fn: N, ft: Name):
    """a b + a c = a (b + c)  (shared factor: inadd)"""
    a = _inadd(L, fs, fn, ft)
    return L.Add(_prod(L, a, b, "l"), _prod(L, a, c, "l")), _prod(L, a, L.Add(b, c), "l")

@r("factor-add-inadd-lr")
def _(L, b: Term, c: Term, fs: Name, fn: N, ft: Name):
    """a b + a c = a (b + c)  (shared factor: inadd)"""
    a = _inadd(L, fs, fn, ft)
    return L.Add(_prod(L, a, b, "l"), _prod(L, a, c, "r")), _prod(L, a, L.Add(b, c), "l")

@r("factor-add-inadd-rl")
def _(L, b: Term, c: Term, fs: Name, fn: N, ft: Name):
    """a b + a c = a (b + c)  (shared factor: inadd)"""
    a = _inadd(L, fs, fn, ft)
    return L.Add(_prod(L, a, b, "r"), _prod(L, a, c, "l")), _prod(L, a, L.Add(b, c), "r")

@r("factor-add-inadd-rr")
def _(L, b: Term, c: Term, fs: Name, fn: N, ft: Name):
    """a b + a c = a (b + c)  (shared factor: inadd)"""
    a = _inadd(L, fs, fn, ft)
    return L.Add(_prod(L, a, b, "r"), _prod(L, a, c, "r")), _prod(L, a, L.Add(b, c), "r")

@r("factor-sub-in-ll")
def _(L, b: Term, c: Term, fs: Name, fn: N):
    """a b - a c = a (b - c)  (shared factor: in)"""
    a = _in(L, fs, fn)
    return L.Sub(_prod(L, a, b, "l"), _prod(L, a, c, "l")), _prod(L, a, L.Sub(b, c), "l")

@r("factor-sub-in-lr")
def _(L, b: Term, c: Term, fs: Name, fn: N):
    """a b - a c = a (b - c)  (shared factor: in)"""
    a = _in(L, fs, fn)
    return L.Sub(_prod(L, a, b, "l"), _prod(L, a, c, "r")), _prod(L, a, L.Sub(b, c), "l")

@r("factor-sub-in-rl")
def _(L, b: Term, c: Term, fs: Name, fn: N):
    """a b - a c = a (b - c)  (shared factor: in)"""
    a = _in(L, fs, fn)
    return L.Sub(_prod(L, a, b, "r"), _prod(L, a, c, "l")), _prod(L, a, L.Sub(b, c), "r")

@r("factor-sub-in-rr")
def _(L, b: Term, c: Term, fs: Name, fn: N):
    """a b - a c = a (b - c)  (shared factor: in)"""
    a = _in(L, fs, fn)
    return L.Sub(_prod(L, a, b, "r"), _prod(L, a, c, "r")), _prod(L, a, L.Sub(b, c), "r")

@r("factor-sub-inadd-ll")
def _(L, b: Term, c: Term, fs: Name, fn: N, ft: Name):
    """a b - a c = a (b - c)  (shared factor: inadd)"""
    a = _inadd(L, fs, fn, ft)
    return L.Sub(_prod(L, a, b, "l"), _prod(L, a, c, "l")), _prod(L, a, L.Sub(b, c), "l")

@r("factor-sub-inadd-lr")
def _(L, b: Term, c: Term, fs: Name, fn: N, ft: Name):
    """a b - a c = a (b - c)  (shared factor: inadd)"""
    a = _inadd(L, fs, fn, ft)
    return L.Sub(_prod(L, a, b, "l"), _prod(L, a, c, "r")), _prod(L, a, L.Sub(b, c), "l")

@r("factor-sub-inadd-rl")
def _(L, b: Term, c: Term, fs: Name, fn: N, ft: Name):
    """a b - a c = a (b - c)  (shared factor: inadd)"""
    a = _inadd(L, fs, fn, ft)
    return L.Sub(_prod(L, a, b, "r"), _prod(L, a, c, "l")), _prod(L, a, L.Sub(b, c), "r")

@r("factor-sub-inadd-rr")
def _(L, b: Term, c: Term, fs: Name, fn: N, ft: Name):
    """a b - a c = a (b - c)  (shared factor: inadd)"""
    a = _inadd(L, fs, fn, ft)
    return L.Sub(_prod(L, a, b, "r"), _prod(L, a, c, "r")), _prod(L, a, L.Sub(b, c), "r")

# Skipping over a constant: Horner's form.  The loader sorts constants last in a sum, and
# factoring ``x c1 + x (x c2)`` leaves ``c1 + x c2``, so a constant sits next to the
# product that shares the factor.  Only the ``ll`` order: the source's monomials and the
# loader's sorted products put the variable first, and the other three orders cost a
# third of each late iteration's time without adding a single node.
@r("factor-skip-right-in-ll")
def _(L, b: Term, c: Term, k: Int, n: N, fs: Name, fn: N):
    """a b + (a c + k) = a (b + c) + k  (shared factor: in)"""
    a, y = _in(L, fs, fn), L.Num(k, n)
    lhs = L.Add(L.Mul(a, b), L.Add(L.Mul(a, c), y))
    return lhs, L.Add(L.Mul(a, L.Add(b, c)), y), [L.eq(L.slots(a), n), L.ne(k, 0)]


@r("factor-skip-left-in-ll")
def _(L, b: Term, c: Term, k: Int, n: N, fs: Name, fn: N):
    """(k + a b) + a c = k + a (b + c)  (shared factor: in)"""
    a, y = _in(L, fs, fn), L.Num(k, n)
    lhs = L.Add(L.Add(y, L.Mul(a, b)), L.Mul(a, c))
    return lhs, L.Add(y, L.Mul(a, L.Add(b, c))), [L.eq(L.slots(a), n), L.ne(k, 0)]


# Skipping over any term, only for a shared sum of two inputs (what the six pairwise
# products need: ``(a (b + c) + y) + (b + c) d``); with an input as the shared factor, a
# free ``y`` lets factoring regroup every subset of a sum.  Only the ``rl`` order: the
# loader sorts products by their first factor, so the sums factored out of left-shared
# products (``a (b + c)``) come before those factored out of right-shared ones
# (``(b + c) d``); the other orders grew a random 500-op program 1.6x faster.
@r("factor-skip-inadd-rl")
def _(L, b: Term, c: Term, y: Term, fs: Name, fn: N, ft: Name):
    """(a b + y) + a c = a (b + c) + y  (shared factor: inadd)"""
    a = _inadd(L, fs, fn, ft)
    return L.Add(L.Add(L.Mul(b, a), y), L.Mul(a, c)), L.Add(L.Mul(L.Add(b, c), a), y)


# Collecting like terms lives here, not in ``ring``, and only for an input: with
# mul-to-add's doublings (``e + e`` inside every chain), ``mul-const-assoc`` and
# ``neg-mul``, ``a + a = 2a`` for any ``a`` closes each value under its small multiples
# (default schedule, random 2,000-op program: 890k nodes in 14 iterations with it in
# ``ring``; the ``all`` schedule: 456k nodes in 13 iterations, 1.6M ``neg-mul`` matches).
@r("add-self")
def _(L, s: Name, n: N):
    """x + x = x * 2  for an input x"""
    x = L.In(s, n)
    return L.Add(x, x), L.Mul(x, L.Num(2, n))
