"""Linear slot maps: a ``LinMap`` summary taken apart into its realizations, one step per rule.

In: nothing.  Out: ``FAMILY`` and its egglog ruleset ``linmap``.

``LinMap(v, h, n) = sum_d D_d * rot(v, d)`` (``eqsat.algebra.linmap``; the diagonals stay
in the handle registry).  ``lm-plan`` unions it with the same map pinned to a plan (the
cost-chosen baby-step/giant-step, or direct when no split saves rotations); a pinned map splits into ``lm-halves``
(half of its giant steps each), a single giant step is ``lm-giant`` (one rotation of an
inner map whose plaintext diagonals are pre-rotated), and a single diagonal is a product
with a plaintext vector (``lm-term*``).  A shift-invariant map is a ``LinRot``
(``lm-uniform``), which the ``slots`` rules factor (a 2x2 sum pool: 2 rotations).
Extraction chooses among the realizations by the full cost.
"""

from __future__ import annotations

from eqsat.rulespec import MapKey, N, RuleFamily, Term
from eqsat.rulespec import linmap_oracles as o

FAMILY = RuleFamily("linmap")
r = FAMILY.rule


@r("lm-plan")
def _(L, v: Term, h: MapKey, n: N):
    """LinMap(v, h) = LinMap(v, h pinned to its plan)  (same map: the best baby-step/giant-step split, or direct)"""
    p = L.call(o.plan_handle, h, n, 0)
    return L.LinMap(v, h, n), L.LinMap(v, p, n), [L.eq(L.slots(v), n), L.ne(p, "")]


@r("lm-halves")
def _(L, v: Term, h: MapKey, n: N):
    """LinMap(v, A + B) = LinMap(v, A) + LinMap(v, B)  (A, B: halves of the giant steps or terms)"""
    a, b = L.call(o.half, h, n, 0), L.call(o.half, h, n, 1)
    return L.LinMap(v, h, n), L.Add(L.LinMap(v, a, n), L.LinMap(v, b, n)), [L.eq(L.slots(v), n), L.ne(a, "")]


@r("lm-giant")
def _(L, v: Term, h: MapKey, n: N):
    """sum_s D_(g+s) * rot(v, g + s) = rot(sum_s rot(D_(g+s), -g) * rot(v, s), g)"""
    inner = L.call(o.giant_inner, h, n)
    g = L.call_int(o.giant_offset, h, n)
    return L.LinMap(v, h, n), L.Rot(L.LinMap(v, inner, n), g), [L.eq(L.slots(v), n), L.ne(inner, "")]


@r("lm-term")
def _(L, v: Term, h: MapKey, n: N):
    """LinMap(v, D * rho^s) = D * rot(v, s)  (s != 0)"""
    c = L.call(o.single_coef, h, n)
    s = L.call_int(o.single_offset, h, n)
    return (L.LinMap(v, h, n), L.Mul(L.Dense(c, n), L.Rot(v, s)),
            [L.eq(L.slots(v), n), L.eq(L.call(o.single_at, h, n, 0), "y"), L.ne(c, "ones")])


@r("lm-term-ones")
def _(L, v: Term, h: MapKey, n: N):
    """LinMap(v, rho^s) = rot(v, s)  (s != 0)"""
    c = L.call(o.single_coef, h, n)
    s = L.call_int(o.single_offset, h, n)
    return (L.LinMap(v, h, n), L.Rot(v, s),
            [L.eq(L.slots(v), n), L.eq(L.call(o.single_at, h, n, 0), "y"), L.eq(c, "ones")])


@r("lm-term-0")
def _(L, v: Term, h: MapKey, n: N):
    """LinMap(v, D * rho^0) = D * v"""
    c = L.call(o.single_coef, h, n)
    return (L.LinMap(v, h, n), L.Mul(L.Dense(c, n), v),
            [L.eq(L.slots(v), n), L.eq(L.call(o.single_at, h, n, 1), "y"), L.ne(c, "ones")])


@r("lm-term-id")
def _(L, v: Term, h: MapKey, n: N):
    """LinMap(v, rho^0) = v"""
    c = L.call(o.single_coef, h, n)
    return (L.LinMap(v, h, n), v,
            [L.eq(L.slots(v), n), L.eq(L.call(o.single_at, h, n, 1), "y"), L.eq(c, "ones")])


@r("lm-uniform")
def _(L, v: Term, h: MapKey, n: N):
    """LinMap(v, sum_d c_d rho^d) = LinRot(v, sum_d c_d rho^d)  (every diagonal one integer repeated)"""
    k = L.call(o.uniform_key, h, n)
    return L.LinMap(v, h, n), L.LinRot(v, k, n), [L.eq(L.slots(v), n), L.ne(k, "")]
