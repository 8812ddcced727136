"""A rotation polynomial (``LinRot``) realized at load: the ``slots`` realization rules applied in Python.

In: the load tables (``eqsat.egraph.tables.Tables``), the node id of a ``LinRot(v, p, n)`` row,
the node id of its base ``v``, the polynomial's key ``p`` (``eqsat.algebra.rotpoly``) and the
slot count ``n``. Out: rows and unions that put every realization those rules give into the
``LinRot`` node's class; the return value is that node id.

Every step is one rule of ``rules/slots.py``, with that rule's own oracles
(``eqsat.rulespec.slot_oracles``) and conditions: ``lin-one`` (``LinRot(v, 1) = v``),
``lin-mono`` (one rotation), ``lin-neg-mono``, ``lin-scaled-mono`` and
``lin-scaled-mono-neg`` (one rotation times a constant), ``lin-split`` (two halves of a
small polynomial), ``lin-complement`` (a full reduction plus a few terms) and
``lin-factor-0``/``lin-factor-1`` (``LinRot(v, f g) = LinRot(LinRot(v, f), g)``). The
``LinRot`` nodes themselves stay, so saturation's rules see them and find their right sides
present already. Rules that need a context (``lin-shift-normal``, ``lin-centered``: an
enclosing ``Place`` or ``Gather``) are left to saturation.

Why at load: through saturation a full reduction of ``n`` slots is realized one halving
about every three iterations (factor, split the inner factor, factor the outer one on the
new base): a sum of 16,384 slots needed about 43 iterations, past the default limit of 40,
and came back unoptimized. Here it is one pass of the oracles over log2(n) levels.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from eqsat.egraph.tables import LOAD_COLUMNS, Arg, Tables
from eqsat.rulespec import slot_oracles as o

#: at most this many rows per realization: the rules at saturation are bounded by its limits,
#: this pass by this budget (a 16,384-slot reduction takes about 100)
MAX_ROWS = 20_000


def realize(t: Tables, lin: int, v: int, p: str, n: int) -> bool:
    """Union into the class of ``lin`` (the row ``LinRot(v, p, n)``) every realization the
    ``slots`` rules give it, recursively; whether one of them is made of ciphertext ops only
    (rotations, additions, products by constants: extraction can price it), taking the base
    ``v`` as such."""
    return Realizer(t, n).realize(lin, v, p)


class _Recording:
    """Scratch tables for a dry run (``DryRun``): each row is only remembered, in order, as its
    constructor and arguments; its node id is its index (the base of the dry run is -1)."""

    def __init__(self) -> None:
        self.log: list[tuple[str, tuple[Arg, ...]]] = []
        self.unions: list[tuple[int, int]] = []

    def node(self, op: str, *args: Arg) -> int:
        self.log.append((op, args))
        return len(self.log) - 1


@dataclass(frozen=True)
class DryRun:
    """A realization at load (``RowRealizer.row``) of one key over a stand-in base (-1), run
    without tables: its rows (constructor, arguments) in the order it made them, its unions,
    the node id of its row and whether it is realized.

    ``replay`` writes the same rows and unions into real tables over a real base, in the same
    order, without calling an oracle again: what a realization of that key over that base
    writes there (a ``Tables`` numbers every row afresh and never shares one, and what a
    realization does depends on its key, the oracles' answers for it and the identity of the
    rows it made, never on their numbers), so the loader decides whether a key is realized
    (the summaries' planning) and realizes it later (emission) without doing the work twice,
    and plans the same key once for every sum or tree that has it (a stencil's sums)."""

    log: tuple[tuple[str, tuple[Arg, ...]], ...]
    unions: tuple[tuple[int, int], ...]
    row: int
    ok: bool

    @staticmethod
    def of(cls: type[RowRealizer], n: int, key: str) -> DryRun:
        rec = _Recording()
        row, ok = cls(rec, n).row(-1, key)  # type: ignore[arg-type]
        return DryRun(tuple(rec.log), tuple(rec.unions), row, ok)

    def replay(self, t: Tables, base: int) -> int:
        """Write the rows and unions into ``t`` with ``base`` for -1; the node id of the row.
        (Every row gets ``t``'s next fresh node id, so row ``i`` of the log is ``first + i``.)"""
        first = t._next

        def resolved() -> Iterator[tuple[str, tuple[Arg, ...]]]:
            for op, args in self.log:
                refs = _REFS[op]
                if not refs:
                    yield op, args
                elif len(refs) == 1:  # LinRot, ProdRot, Rot, Neg, Gather... (their node id first)
                    a = args[0]
                    yield op, (base if a == -1 else first + a, *args[1:])  # type: ignore[operator]
                else:
                    a, b = args[0], args[1]
                    yield op, (base if a == -1 else first + a, base if b == -1 else first + b,  # type: ignore[operator]
                               *args[2:])

        end = t.nodes(resolved())
        assert end == first + len(self.log)
        t.unions.extend((base if a == -1 else first + a, base if b == -1 else first + b) for a, b in self.unions)
        return base if self.row == -1 else first + self.row


#: the columns of each constructor that hold node ids (``LOAD_COLUMNS``' T columns), for
#: ``DryRun.replay``: at most the first two, so it reads them in place
_REFS: dict[str, tuple[int, ...]] = {
    op: tuple(j for j, c in enumerate(cols) if c == "T") for op, cols in LOAD_COLUMNS.items()}
assert all(refs in ((), (0,), (0, 1)) for refs in _REFS.values())


class RowRealizer:
    """What the load-time realizations of one keyed constructor (``LinRot`` here, ``ProdRot`` in
    ``eqsat.egraph.prodrot_load``) share: the rows they make (counted against ``MAX_ROWS``), each
    ``OP(base, key)`` row memoized with whether it is realized, a cycle realizing nothing, and
    the alternatives unioned into the row.  A subclass gives ``OP`` and ``realize``."""

    OP = ""

    def __init__(self, t: Tables, n: int) -> None:
        self.t = t
        self.n = n
        self.memo: dict[tuple[int, str], int] = {}
        self.done: dict[int, bool] = {}  # a row -> realized (False while in progress)
        self.rows = 0

    def _node(self, op: str, *args: int | str) -> int:
        self.rows += 1
        return self.t.node(op, *args)

    def row(self, v: int, p: str) -> tuple[int, bool]:
        """The row of ``OP(v, p)``, realized (memoized by base and key), and whether it is."""
        got = self.memo.get((v, p))
        if got is not None:
            return got, self.done.get(got, False)
        self.rows += 1  # ``_node``, inline
        row = self.t.node(self.OP, v, p, self.n)
        return row, self.realize(row, v, p)

    def realize(self, row: int, v: int, p: str) -> bool:
        raise NotImplementedError

    def _begin(self, row: int, v: int, p: str) -> bool | None:
        """Whether ``row`` is realized already (or in progress: False), or None: realize it now."""
        if row in self.done:
            return self.done[row]
        self.memo[(v, p)] = row
        self.done[row] = False  # a cycle through ``row`` realizes nothing
        if self.rows > MAX_ROWS:
            return False  # saturation takes the rest
        return None

    def _settle(self, row: int, alts: list[tuple[int, bool]]) -> bool:
        """Union the alternatives (row, realized) into ``row``; whether one of them is realized."""
        ok = False
        for alt, alt_ok in alts:
            ok = ok or alt_ok
            if alt != row:
                self.t.unions.append((row, alt))
        self.done[row] = ok
        return ok


class Realizer(RowRealizer):
    """The ``slots`` realization rules at load, over the polynomials of one slot count ``n``;
    remembers each ``LinRot(base, key)`` it made and whether it is realized."""

    OP = "LinRot"

    def linrot(self, v: int, p: str) -> tuple[int, bool]:
        """The row of ``LinRot(v, p)``, realized (memoized by base and key), and whether it is."""
        return self.row(v, p)

    def gather(self, lin: int, v: int, p: str, k: int, sel: str) -> tuple[int, bool]:
        """``Gather(LinRot(v, p), k, sel)`` (``lin`` its ``LinRot`` row, not yet realized) with
        its realizations: ``lin-centered`` (the gather is its context), then ``gather-full``,
        ``gather-full-0``, ``gather-mask`` or ``gather-mask-0``; the row and whether it is realized."""
        n = self.n
        g = self._node("Gather", lin, k, sel, n)
        ok = self.realize(lin, v, p)
        s = o.centered_shift(p, n)
        if s != 0:  # lin-centered
            core, core_ok = self.linrot(v, o.centered_core(p, n))
            self.t.unions.append((lin, self._node("Rot", core, s)))
            ok = ok or core_ok
            ok = self._direct(lin, v, p) or ok
            self.done[lin] = ok
        rot = lin if k == 0 else self._node("Rot", lin, k)
        alt = rot if o.is_full(sel, n) else self._node("Mul", rot, self._node("Mask", sel, n))
        self.t.unions.append((g, alt))
        return g, ok

    def _direct(self, lin: int, v: int, p: str) -> bool:
        """Beside a core that must be rotated back (one more rotation): ``lin-split`` down to
        single terms, one rotation each, for a polynomial of up to ``MAX_DIRECT_TERMS`` terms
        (the vectorizer's direct sum, ``ChainVectorizer._linear_term``). ``lin-split``'s own
        guard refuses a shifted polynomial with no term at offset 0 (to bound the e-graph);
        here, one per gather, it is bounded. ``x[i-1] + x[i-3]`` on 66 slots, a summarized
        chain, took 3 rotations (``rot(rot(x, 1) + rot(x, -1), -2)``) instead of 2."""
        n = self.n
        if not o.half(p, n, 0):
            return False
        (x, xo), (y, yo) = self.linrot(v, o.half(p, n, 0)), self.linrot(v, o.half(p, n, 1))
        xo = xo or self._direct(x, v, o.half(p, n, 0))
        yo = yo or self._direct(y, v, o.half(p, n, 1))
        self.t.unions.append((lin, self._node("Add", x, y)))
        return xo and yo

    def realize(self, lin: int, v: int, p: str) -> bool:
        """Realize the row ``lin`` = ``LinRot(v, p)``; whether it is realized."""
        known = self._begin(lin, v, p)
        if known is not None:
            return known
        one, mono, neg_mono, scaled, halves, complement, pairs = steps(p, self.n)
        alts: list[tuple[int, bool]] = []
        if one:  # lin-one
            alts.append((v, True))
        if mono:  # lin-mono
            alts.append((self._node("Rot", v, mono), True))
        if neg_mono:  # lin-neg-mono
            one_row, ok = self.row(v, neg_mono)
            alts.append((self._node("Neg", one_row), ok))
        if scaled is not None:  # lin-scaled-mono, lin-scaled-mono-neg
            one_row, ok = self.row(v, scaled[0])
            row = self._node("Mul", one_row, self._node("Num", scaled[1], self.n))
            alts.append((row if scaled[2] else self._node("Neg", row), ok))
        if halves is not None:  # lin-split
            (x, xo), (y, yo) = self.row(v, halves[0]), self.row(v, halves[1])
            alts.append((self._node("Add", x, y), xo and yo))
        if complement is not None:  # lin-complement
            (x, xo), (y, yo) = self.row(v, complement[0]), self.row(v, complement[1])
            alts.append((self._node("Add", x, y), xo and yo))
        for f, outer_key in pairs:  # lin-factor-0, lin-factor-1
            inner, inner_ok = self.row(v, f)
            outer, outer_ok = self.row(inner, outer_key)
            alts.append((outer, inner_ok and outer_ok))
        return self._settle(lin, alts)


#: ``steps``: whether a key is 1, its rotation, the key of its negated or scaled monomial, its
#: halves, its complement's two parts, its factor pairs
Steps = tuple[bool, int, str, tuple[str, int, bool] | None, tuple[str, str] | None, tuple[str, str] | None,
              tuple[tuple[str, str], ...]]


@cache
def steps(p: str, n: int) -> Steps:
    """What ``Realizer.realize`` asks the oracles about the polynomial ``p`` of ``n`` slots, in
    one answer: whether it is 1 (``lin-one``), the offset of its one rotation (``lin-mono``; 0:
    none), the key of the monomial it negates (``lin-neg-mono``; "": none), that monomial's
    key, the scale and whether it is positive (``lin-scaled-mono``, ``lin-scaled-mono-neg``;
    None: none), its two halves (``lin-split``), its full reduction and remainder
    (``lin-complement``), its (inner, outer) factor pairs (``lin-factor-0``, ``lin-factor-1``).
    The oracles are asked what ``realize`` asked them one by one, under the same conditions, so
    their caches (which saturation's rules read) fill as before; memoized by value: a key is
    realized over many bases in one load."""
    one = p == o.mono(0, 1, n)
    k = o.single_offset(p, n)
    mono = k if o.single_is(p, n, 1) and k != 0 else 0
    neg_mono = o.mono(k, 1, n) if o.single_is(p, n, -1) else ""
    c = o.single_abs_coef(p, n)
    scaled = (o.mono(k, 1, n), c, bool(o.single_sign(p, n))) if c > 1 and o.single(p, n) else None
    halves: tuple[str, str] | None = None
    if o.splits(p, n):  # lin-split's own guard: canonical, or a term at offset 0
        a = o.half(p, n, 0)
        if a:
            halves = (a, o.half(p, n, 1))
    complement: tuple[str, str] | None = None
    pairs: list[tuple[str, str]] = []
    if o.canonical(p, n):
        full = o.complement(p, n, 0)
        if full:
            complement = (full, o.complement(p, n, 1))
        for j in (0, 1):  # the second not for progressions
            f = o.factor_inner(p, n, j)
            if f and not (j == 1 and o.progression(p, n)):
                pairs.append((f, o.factor_outer(p, n, j)))
    return one, mono, neg_mono, scaled, halves, complement, tuple(pairs)
