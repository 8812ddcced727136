"""The loader's faster paths (helper 56) write what the plain code wrote.

* ``Tables.node`` derives a row's facts from a rule per constructor (``tables._FACT_RULES``):
  the same facts as the earlier code (kept here) on random rows;
* ``linrot_load.steps`` and ``prodrot_load.steps`` ask the oracles about a key at once, memoized:
  a realization through them writes the rows and unions the earlier realizations (kept here,
  asking the oracles one by one) wrote, on random keys;
* ``Summaries._read_through`` walks a tree once per load and checks only the covered bases
  again: its answers follow the covered set as the plain walk's did.
"""

from __future__ import annotations

import random

import pytest

from eqsat.algebra import rotpoly
from eqsat.egraph import linrot_load, prodrot_load
from eqsat.egraph.loader import Loader
from eqsat.egraph.tables import _DERIVED, _N_COLUMN, _UNKNOWN, _VARIES_LEAF, LOAD_COLUMNS, Arg, Tables
from eqsat.ir import Builder, Type
from eqsat.rulespec import slot_oracles as o


# -- Tables.node's facts ---------------------------------------------------------------------
def ref_facts(facts: dict[Arg, tuple[Arg, int]], op: str, args: tuple[Arg, ...]) -> tuple[Arg, int]:
    """The facts of a row ``op(args)`` as ``Tables.node`` derived them before ``_FACT_RULES``."""
    derived = _DERIVED.get(op)
    if derived is None:
        return args[_N_COLUMN[op]], _VARIES_LEAF.get(op, -1)
    child, varying = derived
    get = facts.get
    n = get(args[child], _UNKNOWN)[0] if child is not None else 1 if op[:3] == "Ext" else args[_N_COLUMN[op]]
    if len(varying) == 1:
        return n, get(args[0], _UNKNOWN)[1]
    v0, v1 = get(args[0], _UNKNOWN)[1], get(args[1], _UNKNOWN)[1]
    return n, -1 if v0 < 0 or v1 < 0 else max(v0, v1)


@pytest.mark.parametrize("seed", range(20))
def test_node_facts_equal_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    t = Tables(0)
    ids: list[int] = [-5]  # a node id with no facts (unknown)
    for _ in range(300):
        op = rng.choice(list(LOAD_COLUMNS))
        args: list[Arg] = []
        for c in LOAD_COLUMNS[op]:
            args.append(rng.choice(ids) if c == "T" else rng.choice([1, 4, 8, 16]) if c == "I" else
                        0.5 if c == "F" else "k")
        want = ref_facts(t.facts, op, tuple(args))
        at = t.node(op, *args)
        assert t.facts[at] == want
        assert t.rows[op][-1] == (at, *args, *want)
        ids.append(at)


# -- the realizations' oracle steps ----------------------------------------------------------
class RefRealizer(linrot_load.Realizer):
    """``Realizer.realize`` before ``linrot_load.steps``: the oracles asked one by one."""

    def realize(self, lin: int, v: int, p: str) -> bool:
        n = self.n
        known = self._begin(lin, v, p)
        if known is not None:
            return known
        alts: list[tuple[int, bool]] = []
        if p == o.mono(0, 1, n):
            alts.append((v, True))
        k = o.single_offset(p, n)
        if o.single_is(p, n, 1) and k != 0:
            alts.append((self._node("Rot", v, k), True))
        if o.single_is(p, n, -1):
            one, ok = self.linrot(v, o.mono(k, 1, n))
            alts.append((self._node("Neg", one), ok))
        c = o.single_abs_coef(p, n)
        if c > 1 and o.single(p, n):
            one, ok = self.linrot(v, o.mono(k, 1, n))
            scaled = self._node("Mul", one, self._node("Num", c, n))
            alts.append((scaled if o.single_sign(p, n) else self._node("Neg", scaled), ok))
        if o.splits(p, n):
            a = o.half(p, n, 0)
            if a:
                (x, xo), (y, yo) = self.linrot(v, a), self.linrot(v, o.half(p, n, 1))
                alts.append((self._node("Add", x, y), xo and yo))
        if o.canonical(p, n):
            full = o.complement(p, n, 0)
            if full:
                (x, xo), (y, yo) = self.linrot(v, full), self.linrot(v, o.complement(p, n, 1))
                alts.append((self._node("Add", x, y), xo and yo))
            for j in (0, 1):
                f = o.factor_inner(p, n, j)
                if not f or (j == 1 and o.progression(p, n)):
                    continue
                inner, inner_ok = self.linrot(v, f)
                outer, outer_ok = self.linrot(inner, o.factor_outer(p, n, j))
                alts.append((outer, inner_ok and outer_ok))
        return self._settle(lin, alts)


class RefProdRealizer(prodrot_load.ProdRealizer):
    """``ProdRealizer.realize`` before ``prodrot_load.steps``."""

    def realize(self, row: int, v: int, p: str) -> bool:
        n = self.n
        known = self._begin(row, v, p)
        if known is not None:
            return known
        alts: list[tuple[int, bool]] = []
        if p == o.mono(0, 1, n):
            alts.append((v, True))
        k = o.single_offset(p, n)
        if o.single_is(p, n, 1) and k != 0:
            alts.append((self._node("Rot", v, k), True))
        if o.canonical(p, n):
            a = o.half(p, n, 0)
            if a:
                (x, xo), (y, yo) = self.prodrot(v, a), self.prodrot(v, o.half(p, n, 1))
                alts.append((self._node("Mul", x, y), xo and yo))
            for j in (0, 1):
                f = o.ones_factor_inner(p, n, j)
                if not f:
                    continue
                inner, inner_ok = self.prodrot(v, f)
                outer, outer_ok = self.prodrot(inner, o.ones_factor_outer(p, n, j))
                alts.append((outer, inner_ok and outer_ok))
        return self._settle(row, alts)


def _keys() -> list[tuple[bool, int, str]]:
    rng = random.Random(56)
    out: list[tuple[bool, int, str]] = []
    for n in (4, 6, 8, 16, 32, 64):
        out.append((False, n, rotpoly.key(dict.fromkeys(range(n), 1), n)))
        out.append((True, n, rotpoly.key(dict.fromkeys(range(n), 1), n)))
        out.append((False, n, rotpoly.key(dict.fromkeys(range(n), 1) | {1: 0, 2: 3}, n)))  # a complement
        for c in (1, -1, 3, -2):
            out.append((False, n, rotpoly.key({rng.randrange(n): c}, n)))  # monomials
        for _ in range(8):
            p = {rng.randrange(n): rng.choice([1, 1, -1, 2]) for _ in range(rng.randint(1, n))}
            if rotpoly.normalize(p, n):
                out.append((False, n, rotpoly.key(p, n)))
            s = {rng.randrange(n): 1 for _ in range(rng.randint(1, n))}
            out.append((True, n, rotpoly.key(s, n)))
    return out


@pytest.mark.parametrize(("product", "n", "key"), _keys())
def test_steps_realize_what_the_oracles_one_by_one_did(product: bool, n: int, key: str) -> None:
    new_cls, ref_cls = ((prodrot_load.ProdRealizer, RefProdRealizer) if product
                        else (linrot_load.Realizer, RefRealizer))
    got, want = Tables(0), Tables(0)
    for t in (got, want):
        t.node("In", "x", n)
    assert new_cls(got, n).row(0, key) == ref_cls(want, n).row(0, key)
    assert got.rows == want.rows and got.unions == want.unions and got.facts == want.facts
    assert (prodrot_load.steps if product else linrot_load.steps)(key, n) is not None  # memoized by value


# -- the walk through a tree of rotations, once per load -----------------------------------------
def test_read_through_follows_the_covered_bases() -> None:
    b = Builder("rt")
    v = b.arg("v", Type((8,), "i16", True))
    r1, r2 = b.rotate(v, 1), b.rotate(v, 2)
    s = b.add(r1, r2)
    prog = b.finish([b.extract(s, 0)])
    ld = Loader(prog)
    want = ({(v, 1): 1, (v, 2): 1}, [s, r1, r2])
    got = ld._read_through(s, 0)
    assert got is not None and got[0] == want[0] and sorted(got[1]) == sorted(want[1])
    ld.covered.add(v)
    assert ld._read_through(s, 0) is None  # a covered base: asked again, not from the memo
    ld.covered.discard(v)
    assert ld._read_through(s, 0) == got
    assert ld._read_through(v, 0) is None  # no tree
    walks: list[tuple[int, int]] = []
    plain = Loader._walk_through
    ld2 = Loader(prog)
    ld2._walk_through = lambda vec, j: walks.append((vec, j)) or plain(ld2, vec, j)  # type: ignore[method-assign]
    for _ in range(3):
        assert ld2._read_through(s, 0) == got
    assert walks == [(s, 0)]  # walked once per load


def test_table_text_in_one_format_is_the_lines_joined() -> None:
    """``tables._text`` formats every value at once: values holding ``%`` stay as they are,
    and a row of another length goes line by line (where ``_line`` refuses a wrong count)."""
    from eqsat.egraph import tables

    rows: list[tuple[Arg, ...]] = [(5, "x%s", 3), (6, "100%", -4), (7, "%d%%", 0), (8, "", 2**70)]
    assert tables._text(rows, "TSI") == "".join(tables._line(r, "TSI") for r in rows)
    assert tables._text([], "TSI") == ""
    with pytest.raises(ValueError):
        tables._text([(1, "a"), (2, "b", 3)], "TSI")


@pytest.mark.parametrize("seed", range(10))
def test_nodes_writes_what_node_writes(seed: int) -> None:
    """``Tables.nodes`` (``DryRun.replay``'s rows at once) writes the rows and facts of one
    ``node`` call per row, with the next fresh node ids."""
    rng = random.Random(seed)
    one, many = Tables(3), Tables(3)
    for t in (one, many):
        t.node("In", "x", 8, at=0)
    ids: list[int] = [0, -5]
    batch: list[tuple[str, tuple[Arg, ...]]] = []
    for i in range(200):
        op = rng.choice(list(LOAD_COLUMNS))
        args = tuple(rng.choice(ids) if c == "T" else rng.choice([1, 4, 8]) if c == "I" else 0.5 if c == "F" else "k"
                     for c in LOAD_COLUMNS[op])
        batch.append((op, args))
        ids.append(3 + i)
    for op, args in batch:
        one.node(op, *args)
    assert many.nodes(batch) == one._next == 3 + len(batch)
    assert many.rows == one.rows and many.facts == one.facts
