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

from eqsat.egraph.linrot_load import RowRealizer
from eqsat.rulespec import slot_oracles as o


class ProdRealizer(RowRealizer):
    """The ``slots`` product rules at load, over the offset sets of one slot count ``n``;
    remembers each ``ProdRot(base, key)`` it made and whether it is realized."""

    OP = "ProdRot"

    def prodrot(self, v: int, p: str) -> tuple[int, bool]:
        """The row of ``ProdRot(v, p)``, realized (memoized by base and key), and whether it is."""
        return self.row(v, p)

    def realize(self, row: int, v: int, p: str) -> bool:
        """Realize the row ``row`` = ``ProdRot(v, p)``; whether it is realized."""
        n = self.n
        known = self._begin(row, v, p)
        if known is not None:
            return known
        alts: list[tuple[int, bool]] = []
        if p == o.mono(0, 1, n):  # prod-one
            alts.append((v, True))
        k = o.single_offset(p, n)
        if o.single_is(p, n, 1) and k != 0:  # prod-mono
            alts.append((self._node("Rot", v, k), True))
        if o.canonical(p, n):
            a = o.half(p, n, 0)
            if a:  # prod-split
                (x, xo), (y, yo) = self.prodrot(v, a), self.prodrot(v, o.half(p, n, 1))
                alts.append((self._node("Mul", x, y), xo and yo))
            for j in (0, 1):  # prod-factor, prod-factor-1
                f = o.ones_factor_inner(p, n, j)
                if not f:
                    continue
                inner, inner_ok = self.prodrot(v, f)
                outer, outer_ok = self.prodrot(inner, o.ones_factor_outer(p, n, j))
                alts.append((outer, inner_ok and outer_ok))
        return self._settle(row, alts)
