"""A product over rotations (``ProdRot``) realized at load: the ``slots`` product rules applied in Python.

In: the load tables (``eqsat.egraph.tables.Tables``), the base ``v`` of a product, the key of
its offset set ``S`` (an all-ones polynomial, ``eqsat.algebra.rotpoly``) and the slot count
``n``. Out: rows and unions that put every realization those rules give into the class of the
row ``ProdRot(v, S, n)``, and whether one of them is made of ciphertext ops only (rotations and
products), taking ``v`` as such.

Every step is one rule of ``rules/slots.py`` with that rule's own oracles and conditions
(``eqsat.rulespec.slot_oracles``): ``prod-one`` (``ProdRot(v, {0}) = v``), ``prod-mono`` (one
rotation), ``prod-split`` (two halves of a small canonical set) and ``prod-factor``/
``prod-factor-1`` (``ProdRot(v, A + B) = ProdRot(ProdRot(v, A), B)``). The ``ProdRot`` nodes
stay, so saturation's rules see them and find their right sides present already.

Why at load: through saturation a product of the 16 slots of one vector written as a loop of
scalar products was merged one pair per iteration and then factored: 28 iterations and 910
e-nodes, for the four rotations the factorization states at once
(``eqsat.egraph.linrot_load`` does the same for sums).
"""

from __future__ import annotations

from functools import cache

from eqsat.egraph.linrot_load import RowRealizer
from eqsat.rulespec import slot_oracles as o


@cache
def steps(p: str, n: int) -> tuple[bool, int, tuple[str, str] | None, tuple[tuple[str, str], ...]]:
    """What ``ProdRealizer.realize`` asks the oracles about the offset set ``p`` of ``n`` slots,
    in one answer: whether it is ``{0}`` (``prod-one``), the offset of its one rotation
    (``prod-mono``; 0: none), its two halves (``prod-split``; None: none) and its (inner, outer)
    factor pairs (``prod-factor``, ``prod-factor-1``). The oracles are asked what ``realize``
    asked them one by one, under the same conditions, so their caches (which saturation's
    rules read) fill as before; memoized by value: a key is realized over many bases in one
    load (the 32-slot sum-and-product: 200 realizations of fewer distinct keys, each asking
    about 12 oracles)."""
    one = p == o.mono(0, 1, n)
    k = o.single_offset(p, n)
    mono = k if o.single_is(p, n, 1) and k != 0 else 0
    halves: tuple[str, str] | None = None
    pairs: list[tuple[str, str]] = []
    if o.canonical(p, n):
        a = o.half(p, n, 0)
        if a:
            halves = (a, o.half(p, n, 1))
        for j in (0, 1):
            f = o.ones_factor_inner(p, n, j)
            if f:
                pairs.append((f, o.ones_factor_outer(p, n, j)))
    return one, mono, halves, tuple(pairs)


class ProdRealizer(RowRealizer):
    """The ``slots`` product rules at load, over the offset sets of one slot count ``n``;
    remembers each ``ProdRot(base, key)`` it made and whether it is realized."""

    OP = "ProdRot"

    def prodrot(self, v: int, p: str) -> tuple[int, bool]:
        """The row of ``ProdRot(v, p)``, realized (memoized by base and key), and whether it is."""
        return self.row(v, p)

    def realize(self, row: int, v: int, p: str) -> bool:
        """Realize the row ``row`` = ``ProdRot(v, p)``; whether it is realized."""
        known = self._begin(row, v, p)
        if known is not None:
            return known
        one, mono, halves, pairs = steps(p, self.n)
        alts: list[tuple[int, bool]] = []
        if one:  # prod-one
            alts.append((v, True))
        if mono:  # prod-mono
            alts.append((self._node("Rot", v, mono), True))
        if halves is not None:  # prod-split (canonical, small)
            (x, xo), (y, yo) = self.row(v, halves[0]), self.row(v, halves[1])
            alts.append((self._node("Mul", x, y), xo and yo))
        for f, outer_key in pairs:  # prod-factor, prod-factor-1 (canonical)
            inner, inner_ok = self.row(v, f)
            outer, outer_ok = self.row(inner, outer_key)
            alts.append((outer, inner_ok and outer_ok))
        return self._settle(row, alts)
