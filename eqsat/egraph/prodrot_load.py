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

from eqsat.egraph.tables import Tables
from eqsat.rulespec import slot_oracles as o

#: at most this many rows per realization (as ``eqsat.egraph.linrot_load.MAX_ROWS``)
MAX_ROWS = 20_000


class ProdRealizer:
    """The ``slots`` product rules at load, over the offset sets of one slot count ``n``;
    remembers each ``ProdRot(base, key)`` it made and whether it is realized."""

    def __init__(self, t: Tables, n: int) -> None:
        self.t = t
        self.n = n
        self.memo: dict[tuple[int, str], int] = {}
        self.done: dict[int, bool] = {}  # a ProdRot row -> realized (False while in progress)
        self.rows = 0

    def _node(self, op: str, *args: int | str) -> int:
        self.rows += 1
        return self.t.node(op, *args)

    def prodrot(self, v: int, p: str) -> tuple[int, bool]:
        """The row of ``ProdRot(v, p)``, realized (memoized by base and key), and whether it is."""
        got = self.memo.get((v, p))
        if got is not None:
            return got, self.done.get(got, False)
        row = self._node("ProdRot", v, p, self.n)
        return row, self.realize(row, v, p)

    def realize(self, row: int, v: int, p: str) -> bool:
        """Realize the row ``row`` = ``ProdRot(v, p)``; whether it is realized."""
        n = self.n
        if row in self.done:
            return self.done[row]
        self.memo[(v, p)] = row
        self.done[row] = False  # a cycle through ``row`` realizes nothing
        if self.rows > MAX_ROWS:
            return False  # saturation takes the rest
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
        ok = False
        for alt, alt_ok in alts:
            ok = ok or alt_ok
            if alt != row:
                self.t.unions.append((row, alt))
        self.done[row] = ok
        return ok
