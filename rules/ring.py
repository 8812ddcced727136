"""Ring arithmetic: identities and constant folding, with guarded reassociation.

In: nothing.  Out: ``FAMILY`` (``RuleFamily``) and its egglog ruleset ``ring``.
Every rule is an identity of commutative rings over the integers, hence sound modulo
any plaintext modulus t and (for the integer constants involved) over the reals.
Commutativity of + and * is kept (it at most doubles a class); associativity only
where it gathers constants, so sums and products never blow up.
"""

from __future__ import annotations

from eqsat.rulespec import Int, N, RuleFamily, Term

FAMILY = RuleFamily("ring")
r = FAMILY.rule
BIG = 2**31
SMALL = 2**16


@r("add-zero")
def _(L, a: Term, n: N):
    """a + 0 = a"""
    return L.Add(a, L.Num(0, n)), a, [L.eq(L.slots(a), n)]


@r("zero-add")
def _(L, a: Term, n: N):
    """0 + a = a"""
    return L.Add(L.Num(0, n), a), a, [L.eq(L.slots(a), n)]


@r("one-mul")
def _(L, a: Term, n: N):
    """1 * a = a"""
    return L.Mul(L.Num(1, n), a), a, [L.eq(L.slots(a), n)]


@r("sub-zero")
def _(L, a: Term, n: N):
    """a - 0 = a"""
    return L.Sub(a, L.Num(0, n)), a, [L.eq(L.slots(a), n)]


@r("zero-sub")
def _(L, a: Term, n: N):
    """0 - a = -a"""
    return L.Sub(L.Num(0, n), a), L.Neg(a), [L.eq(L.slots(a), n)]


@r("sub-self")
def _(L, a: Term, n: N):
    """a - a = 0"""
    return L.Sub(a, a), L.Num(0, n), [L.eq(L.slots(a), n)]


@r("mul-one")
def _(L, a: Term, n: N):
    """a * 1 = a"""
    return L.Mul(a, L.Num(1, n)), a, [L.eq(L.slots(a), n)]


@r("mul-zero")
def _(L, a: Term, n: N):
    """a * 0 = 0"""
    return L.Mul(a, L.Num(0, n)), L.Num(0, n), [L.eq(L.slots(a), n)]


@r("zero-mul")
def _(L, a: Term, n: N):
    """0 * a = 0"""
    return L.Mul(L.Num(0, n), a), L.Num(0, n), [L.eq(L.slots(a), n)]


@r("mul-neg-one")
def _(L, a: Term, n: N):
    """a * -1 = -a"""
    return L.Mul(a, L.Num(-1, n)), L.Neg(a), [L.eq(L.slots(a), n)]


@r("neg-neg")
def _(L, a: Term):
    """-(-a) = a"""
    return L.Neg(L.Neg(a)), a


@r("add-neg")
def _(L, a: Term, b: Term):
    """a + (-b) = a - b"""
    return L.Add(a, L.Neg(b)), L.Sub(a, b)


@r("sub-neg")
def _(L, a: Term, b: Term):
    """a - (-b) = a + b"""
    return L.Sub(a, L.Neg(b)), L.Add(a, b)


@r("fold-add")
def _(L, i: Int, j: Int, n: N):
    """c1 + c2 = (c1 + c2)"""
    return L.Add(L.Num(i, n), L.Num(j, n)), L.Num(i + j, n), [L.lt(i, BIG), L.lt(-BIG, i), L.lt(j, BIG), L.lt(-BIG, j)]


@r("fold-sub")
def _(L, i: Int, j: Int, n: N):
    """c1 - c2 = (c1 - c2)"""
    return L.Sub(L.Num(i, n), L.Num(j, n)), L.Num(i - j, n), [L.lt(i, BIG), L.lt(-BIG, i), L.lt(j, BIG), L.lt(-BIG, j)]


@r("fold-mul")
def _(L, i: Int, j: Int, n: N):
    """c1 * c2 = (c1 * c2)"""
    return L.Mul(L.Num(i, n), L.Num(j, n)), L.Num(i * j, n), [L.lt(i, BIG), L.lt(-BIG, i), L.lt(j, BIG), L.lt(-BIG, j)]


@r("fold-neg")
def _(L, i: Int, n: N):
    """-(c) = (-c)"""
    return L.Neg(L.Num(i, n)), L.Num(0 - i, n), [L.lt(i, BIG), L.lt(-BIG, i)]


@r("add-const-assoc")
def _(L, a: Term, i: Int, j: Int, n: N):
    """(a + c1) + c2 = a + (c1 + c2)"""
    return (
        L.Add(L.Add(a, L.Num(i, n)), L.Num(j, n)),
        L.Add(a, L.Num(i + j, n)),
        [L.lt(i, BIG), L.lt(-BIG, i), L.lt(j, BIG), L.lt(-BIG, j)],
    )


@r("mul-const-assoc")
def _(L, a: Term, i: Int, j: Int, n: N):
    """(a * c1) * c2 = a * (c1 * c2)  for small constants (bounded, so it cannot mint new ones forever)"""
    return (
        L.Mul(L.Mul(a, L.Num(i, n)), L.Num(j, n)),
        L.Mul(a, L.Num(i * j, n)),
        [L.lt(i, SMALL), L.lt(-SMALL, i), L.lt(j, SMALL), L.lt(-SMALL, j), L.lt(i * j, SMALL), L.lt(-SMALL, i * j)],
    )


@r("neg-mul")
def _(L, a: Term, b: Term):
    """(-a) * b = -(a * b)"""
    return L.Mul(L.Neg(a), b), L.Neg(L.Mul(a, b))


@r("decode-const")
def _(L, i: Int, n: N):
    """decode(c) = c: decoding a value the e-graph knows to be a constant is that constant"""
    return L.Decode(L.Num(i, n)), L.Num(i, n)
