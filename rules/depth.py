"""Multiplicative depth and multiplication count: squaring and rebalancing of products.

In: nothing. Out: ``FAMILY`` (``RuleFamily``, ruleset ``depth``).

The loader (``eqsat.egraph``) already unions every single-use product tree with a
balanced tree over sorted leaves, so ``x^8`` written as seven chained multiplications is
also ``((x x)(x x))((x x)(x x))``, which hash-consing shares into three squarings. These
rules do the same where intermediate powers are used elsewhere (the loader must keep
such chains): a repeated factor is regrouped into a square. They are guarded
associativity (a factor must repeat), so they never enumerate all bracketings; general
rebalancing of multi-use chains of distinct factors (``((a b) c) d = (a b)(c d)``) is
left out -- on random 2,000-op programs it filled the node limit in 5 iterations. Which
form wins -- fewer multiplications, less depth -- is the cost model's decision (depth
costs levels and relinearizations).
"""

from __future__ import annotations

from eqsat.rulespec import RuleFamily, Term

FAMILY = RuleFamily("depth")
r = FAMILY.rule


@r("square-regroup")
def _(L, x: Term, a: Term):
    """(x a) a = x (a a)"""
    return L.Mul(L.Mul(x, a), a), L.Mul(x, L.Mul(a, a))


@r("square-regroup-left")
def _(L, x: Term, a: Term):
    """a (a x) = (a a) x"""
    return L.Mul(a, L.Mul(a, x)), L.Mul(L.Mul(a, a), x)


@r("square-of-product")
def _(L, x: Term, a: Term):
    """(x a)(x a) = (x x)(a a)"""
    return L.Mul(L.Mul(x, a), L.Mul(x, a)), L.Mul(L.Mul(x, x), L.Mul(a, a))


@r("double-regroup")
def _(L, x: Term, a: Term):
    """(x + a) + a = x + (a + a)"""
    return L.Add(L.Add(x, a), a), L.Add(x, L.Add(a, a))
