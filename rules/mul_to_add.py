"""Multiplication by a constant as an addition-subtraction chain, beside the multiplication.

In: nothing.  Out: ``FAMILY`` (``RuleFamily``, ruleset ``mul-to-add``), using the summary
constructor ``eqsat.term.ChainElem``.

``x * c`` (``c`` an integer splat, ``|c| >= 2``) is unioned with the chain of
``eqsat.rulespec.arith_oracles.chain_of(c)``: ``ChainElem(x, c, i, n)`` stands for element ``i``
of that chain times ``x`` (element 0 is ``x`` itself), and each element is unioned with
the addition, subtraction or negation of two earlier elements *of the same chain*.  So
the e-graph holds the multiplication and exactly one realization of the shortest chain
next to each other, sharing every element; extraction chooses by the cost table
(``mul_plain`` against the chain's ``add``/``sub``/``neg`` count).  The MLIR tutorial's
greedy PowerOfTwoExpand/PeelFromMul becomes one choice among others: ``9x`` is
``((2x)2)2 + x`` (three doublings, one addition), ``255x = 256x - x``.

``ChainElem`` is a summary (never extracted: ``EGraphView`` skips unknown ops).  Keying
elements by ``(c, i)`` instead of using ``Mul(x, Num(e))`` for each element ``e``
matters: a class ``e * x`` would collect the realizations of every chain through ``e``,
and a greedy extractor then mixes incompatible prefixes (for ~40% of ``c < 1024``,
longer than optimal).  In the soundness semantics ``ChainElem(x, c, i, n)`` means
``x * elem_value(c, i)``.
"""

from __future__ import annotations

from typing import Any

from eqsat.rulespec import Int, N, RuleFamily, Term
from eqsat.rulespec import arith_oracles as ao

FAMILY = RuleFamily("mul-to-add")
r = FAMILY.rule


def elem(L: Any, a: Any, c: Any, i: Any, n: Any) -> Any:
    """``ChainElem(a, c, i, n)``: element ``i`` of the chain for ``c``, times ``a``."""
    return L.ChainElem(a, c, i, n)


@r("m2a-enter")
def _(L, a: Term, c: Int, n: N):
    """a * c = chain_c(a), the last element of the chain for c"""
    k = L.call_int(ao.chain_length, c)
    return L.Mul(a, L.Num(c, n)), elem(L, a, c, k, n), [L.eq(L.slots(a), n), L.lt(0, k)]


@r("m2a-enter-left")
def _(L, a: Term, c: Int, n: N):
    """c * a = chain_c(a), the last element of the chain for c"""
    k = L.call_int(ao.chain_length, c)
    return L.Mul(L.Num(c, n), a), elem(L, a, c, k, n), [L.eq(L.slots(a), n), L.lt(0, k)]


@r("m2a-base")
def _(L, a: Term, c: Int, n: N):
    """element 0 of every chain is 1: chain_c(a)[0] = a"""
    return elem(L, a, c, 0, n), a, [L.eq(L.slots(a), n)]


@r("m2a-add")
def _(L, a: Term, c: Int, i: Int, n: N):
    """e_i = e_j + e_k  =>  e_i a = e_j a + e_k a"""
    j, k = L.call_int(ao.step_j, c, i), L.call_int(ao.step_k, c, i)
    rhs = L.Add(elem(L, a, c, j, n), elem(L, a, c, k, n))
    return elem(L, a, c, i, n), rhs, [L.eq(L.call(ao.step_op, c, i), "add")]


@r("m2a-sub")
def _(L, a: Term, c: Int, i: Int, n: N):
    """e_i = e_j - e_k  =>  e_i a = e_j a - e_k a"""
    j, k = L.call_int(ao.step_j, c, i), L.call_int(ao.step_k, c, i)
    rhs = L.Sub(elem(L, a, c, j, n), elem(L, a, c, k, n))
    return elem(L, a, c, i, n), rhs, [L.eq(L.call(ao.step_op, c, i), "sub")]


@r("m2a-neg")
def _(L, a: Term, c: Int, i: Int, n: N):
    """e_i = -e_j  =>  e_i a = -(e_j a)"""
    j = L.call_int(ao.step_j, c, i)
    return elem(L, a, c, i, n), L.Neg(elem(L, a, c, j, n)), [L.eq(L.call(ao.step_op, c, i), "neg")]
