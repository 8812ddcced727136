"""Encrypted selects: ``c*a + (1-c)*b`` (two ct*ct products) is ``b + c*(a-b)`` (one).

In: nothing.  Out: ``FAMILY`` (``RuleFamily``, ruleset ``select``).

A decision tree on secret comparison bits (the max and sort kernels of Coyote and CHEHAB)
writes each node as ``cond(c, a, b) = c*a + (1-c)*b``: two ciphertext products, while
``b + c*(a-b)`` needs one.  Both sides are the same polynomial in ``a``, ``b`` and ``c``
(an identity of commutative rings: nothing assumes ``c`` is a bit), so the rewrite is sound
modulo any plaintext modulus t (BGV) and over the reals (CKKS, with the literal 1.0).

The e-graph has no raw commutativity: the loader sorts the leaves of a sum and of a
product, so the two products of the sum and the operands of each product may come in
either order.  The rules below cover the orders the select's own shape allows: the product
with the bit first or second (``c*a`` / ``a*c``, ``(1-c)*b`` / ``b*(1-c)``) and either product
first in the sum; the name says which (``cl``: ``c`` is the left factor; ``first``/``second``:
the product with ``c`` itself comes first or second).  The integer literal is the ``Num`` 1,
the real one ``NumF`` 1.0 (``fselect-*``).
"""

from __future__ import annotations

from typing import Any

from eqsat.rulespec import N, RuleFamily, Term

FAMILY = RuleFamily("select")
r = FAMILY.rule


def _prod(L: Any, x: Any, y: Any, left: bool) -> Any:
    """``x * y`` when ``left`` (``x`` is the left factor), else ``y * x``."""
    return L.Mul(x, y) if left else L.Mul(y, x)


def _select(L: Any, c: Any, a: Any, b: Any, one: Any, cl: bool, nl: bool, first: bool) -> tuple[Any, Any]:
    """The sum ``c*a + (1-c)*b`` in one operand order, and ``b + c*(a-b)``."""
    pa = _prod(L, c, a, cl)
    pb = _prod(L, L.Sub(one, c), b, nl)
    lhs = L.Add(pa, pb) if first else L.Add(pb, pa)
    return lhs, L.Add(b, L.Mul(c, L.Sub(a, b)))


# integer selects: ``select-{cl|cr}-{nl|nr}-{first|second}``
@r("select-cl-nl-first")
def _(L, c: Term, a: Term, b: Term, n: N):
    """c*a + (1-c)*b = b + c*(a-b)"""
    return _select(L, c, a, b, L.Num(1, n), True, True, True)


@r("select-cl-nl-second")
def _(L, c: Term, a: Term, b: Term, n: N):
    """(1-c)*b + c*a = b + c*(a-b)"""
    return _select(L, c, a, b, L.Num(1, n), True, True, False)


@r("select-cl-nr-first")
def _(L, c: Term, a: Term, b: Term, n: N):
    """c*a + b*(1-c) = b + c*(a-b)"""
    return _select(L, c, a, b, L.Num(1, n), True, False, True)


@r("select-cl-nr-second")
def _(L, c: Term, a: Term, b: Term, n: N):
    """b*(1-c) + c*a = b + c*(a-b)"""
    return _select(L, c, a, b, L.Num(1, n), True, False, False)


@r("select-cr-nl-first")
def _(L, c: Term, a: Term, b: Term, n: N):
    """a*c + (1-c)*b = b + c*(a-b)"""
    return _select(L, c, a, b, L.Num(1, n), False, True, True)


@r("select-cr-nl-second")
def _(L, c: Term, a: Term, b: Term, n: N):
    """(1-c)*b + a*c = b + c*(a-b)"""
    return _select(L, c, a, b, L.Num(1, n), False, True, False)


@r("select-cr-nr-first")
def _(L, c: Term, a: Term, b: Term, n: N):
    """a*c + b*(1-c) = b + c*(a-b)"""
    return _select(L, c, a, b, L.Num(1, n), False, False, True)


@r("select-cr-nr-second")
def _(L, c: Term, a: Term, b: Term, n: N):
    """b*(1-c) + a*c = b + c*(a-b)"""
    return _select(L, c, a, b, L.Num(1, n), False, False, False)


# real selects (CKKS): the same orders with the literal 1.0
@r("fselect-cl-nl-first")
def _(L, c: Term, a: Term, b: Term, n: N):
    """c*a + (1.0-c)*b = b + c*(a-b)"""
    return _select(L, c, a, b, L.NumF(1.0, n), True, True, True)


@r("fselect-cl-nl-second")
def _(L, c: Term, a: Term, b: Term, n: N):
    """(1.0-c)*b + c*a = b + c*(a-b)"""
    return _select(L, c, a, b, L.NumF(1.0, n), True, True, False)


@r("fselect-cl-nr-first")
def _(L, c: Term, a: Term, b: Term, n: N):
    """c*a + b*(1.0-c) = b + c*(a-b)"""
    return _select(L, c, a, b, L.NumF(1.0, n), True, False, True)


@r("fselect-cl-nr-second")
def _(L, c: Term, a: Term, b: Term, n: N):
    """b*(1.0-c) + c*a = b + c*(a-b)"""
    return _select(L, c, a, b, L.NumF(1.0, n), True, False, False)


@r("fselect-cr-nl-first")
def _(L, c: Term, a: Term, b: Term, n: N):
    """a*c + (1.0-c)*b = b + c*(a-b)"""
    return _select(L, c, a, b, L.NumF(1.0, n), False, True, True)


@r("fselect-cr-nl-second")
def _(L, c: Term, a: Term, b: Term, n: N):
    """(1.0-c)*b + a*c = b + c*(a-b)"""
    return _select(L, c, a, b, L.NumF(1.0, n), False, True, False)


@r("fselect-cr-nr-first")
def _(L, c: Term, a: Term, b: Term, n: N):
    """a*c + b*(1.0-c) = b + c*(a-b)"""
    return _select(L, c, a, b, L.NumF(1.0, n), False, False, True)


@r("fselect-cr-nr-second")
def _(L, c: Term, a: Term, b: Term, n: N):
    """b*(1.0-c) + a*c = b + c*(a-b)"""
    return _select(L, c, a, b, L.NumF(1.0, n), False, False, False)
