"""A linear slot map (the IR's ``linmap`` op) realized at load: the ``linmap`` rules applied in Python.

In: the load tables (``eqsat.egraph.tables.Tables``), the node id of the map's operand, its
handle (``eqsat.algebra.linmap``) and slot count. Out: the node id of its realization, or
None when no rule takes the map apart (the caller then loads the ``LinMap`` summary).

Every step is one rule of ``rules/linmap.py`` with that rule's own oracles
(``eqsat.rulespec.linmap_oracles``) and conditions: ``lm-plan`` (pin the cost-chosen plan),
``lm-halves`` (half of the giant steps, or of the terms), ``lm-giant`` (one giant step as a
rotation of an inner map), ``lm-term*`` (one diagonal: a plaintext product and a rotation)
and ``lm-uniform`` (a shift-invariant map as a ``LinRot``, which the ``slots`` rules factor).
Where several rules apply to one map, all their right sides are unioned, as saturation
would. What is left out are the ``LinMap`` nodes themselves, which extraction never picks.

Why at load: through saturation the realization of an n x n matvec is a tree of about 2n
``LinMap`` nodes, each matched by the rules with several oracle calls through egglog's
``py-call``; at n = 4096 that took more than the default limits allowed (no realization
existed when they stopped) and 69 s with raised limits. Here the same tree costs one pass
of the oracles, and the e-graph holds only the realization.
"""

from __future__ import annotations

from eqsat.egraph.tables import Tables
from eqsat.rulespec import linmap_oracles as o


def realize(t: Tables, v: int, h: str, n: int) -> int | None:
    """Node id of a class holding every realization the ``linmap`` rules give ``LinMap(v, h, n)``."""
    memo: dict[str, int | None] = {}
    return _realize(t, v, h, n, memo)


def _realize(t: Tables, v: int, h: str, n: int, memo: dict[str, int | None]) -> int | None:
    if h in memo:
        return memo[h]
    alts: list[int] = []
    p = o.plan_handle(h, n, 0)  # lm-plan
    if p:
        r = _realize(t, v, p, n, memo)
        if r is not None:
            alts.append(r)
    a, b = o.half(h, n, 0), o.half(h, n, 1)  # lm-halves
    if a:
        ra, rb = _realize(t, v, a, n, memo), _realize(t, v, b, n, memo)
        if ra is not None and rb is not None:
            alts.append(t.node("Add", ra, rb))
    inner = o.giant_inner(h, n)  # lm-giant
    if inner:
        r = _realize(t, v, inner, n, memo)
        if r is not None:
            alts.append(t.node("Rot", r, o.giant_offset(h, n)))
    c = o.single_coef(h, n)
    if o.single_at(h, n, 0) == "y":  # lm-term, lm-term-ones
        rot = t.node("Rot", v, o.single_offset(h, n))
        alts.append(rot if c == "ones" else t.node("Mul", t.node("Dense", c, n), rot))
    if o.single_at(h, n, 1) == "y":  # lm-term-0, lm-term-id
        alts.append(v if c == "ones" else t.node("Mul", t.node("Dense", c, n), v))
    k = o.uniform_key(h, n)  # lm-uniform
    if k:
        alts.append(t.node("LinRot", v, k, n))
    out = alts[0] if alts else None
    for other in alts[1:]:
        t.unions.append((out, other))  # type: ignore[arg-type]
    memo[h] = out
    return out
