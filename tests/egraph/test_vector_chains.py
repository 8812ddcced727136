"""Insertion chains that load as their vector form with the source inert (``eqsat.egraph.vector_chains``).

Checked: a stencil chain (Roberts cross: squared differences of four reads, wrapping) is
planned, loads no live ``Ins``/``Ext`` for its slots, and optimizes to the known 3 rotations;
an element something else reads stays live; a chain with more distinct products than slots
is not planned, nor is a short zero-padded stencil (a long zero-padded product chain is, not
summarized); and a property test on random stencil chains -- random width, random
weighted reads and squared differences, wrap-around or zero padding, every slot written or
some left to the base, an insert chain or ``from_elements`` -- that the optimized program computes what the
source computes.
"""

from __future__ import annotations

import random

import pytest

from eqsat.egraph.loader import Loader
from eqsat.ir import Builder, Program, Type
from eqsat.pipeline import optimize
from eqsat.testing.equivalence import equal_on_random_inputs

T = 65537


def roberts_cross(w: int) -> Program:
    """out[x][y] = (img[x-1][y-1] - img[x][y])^2 + (img[x-1][y] - img[x][y-1])^2, wrapping."""
    n = w * w
    b = Builder("roberts")
    ty = Type((n,), "i16", True)
    img = b.arg("img", ty)
    out = img
    for x in range(w):
        for y in range(w):
            def at(i: int, j: int) -> int:
                return b.extract(img, (i * w + j) % n)

            d1 = b.binary("sub", at(x - 1, y - 1), at(x, y))
            d2 = b.binary("sub", at(x - 1, y), at(x, y - 1))
            out = b.insert(b.binary("add", b.binary("mul", d1, d1), b.binary("mul", d2, d2)), out, (x * w + y) % n)
    return b.finish([out])


def test_stencil_chain_loads_as_its_vector_form() -> None:
    prog = roberts_cross(4)
    loader = Loader(prog)
    loader.load()
    assert list(loader.vector_chains) == [prog.results[0]]
    assert not loader.rows["Ins"], "no live insert of the chain"
    assert not loader.rows["Ext"], "no live slot read of the chain"
    assert loader.rows["ExtI"] and loader.rows["MulI"], "the source is there, inert"
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("rotate", 0) == 3 and ops.get("extract", 0) == 0 and ops.get("insert", 0) == 0, ops
    assert equal_on_random_inputs(prog, res.program)


def test_an_element_read_elsewhere_stays_live() -> None:
    n = 8
    b = Builder("shared")
    ty = Type((n,), "i16", True)
    x = b.arg("x", ty)
    out = b.empty(ty)
    elems = [b.binary("add", b.extract(x, i), b.extract(x, (i + 1) % n)) for i in range(n)]
    for i in range(n):
        out = b.insert(elems[i], out, i)
    prog = b.finish([out, elems[3]])
    loader = Loader(prog)
    loader.load()
    assert prog.results[0] in loader.vector_chains
    assert elems[3] not in loader.vector_chains[prog.results[0]] and elems[3] in loader.name
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


def test_a_chain_of_distinct_products_is_not_planned() -> None:
    n = 8
    b = Builder("scattered")
    ty = Type((n,), "i16", True)
    x = b.arg("x", ty)
    out = b.empty(ty)
    for i in range(n):  # reads at offsets that differ per slot: no shared template
        e = b.binary("add", b.binary("mul", b.extract(x, (2 * i) % n), b.extract(x, (3 * i + 1) % n)),
                     b.extract(x, (5 * i + 2) % n))
        out = b.insert(e, out, i)
    prog = b.finish([out])
    loader = Loader(prog)
    loader.load()
    assert not loader.vector_chains
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


def random_stencil(seed: int) -> Program:
    return stencil_case(seed)[0]


def stencil_case(seed: int) -> tuple[Program, bool]:
    """A random 2-D stencil chain over a ``h x w`` image (see the module docstring), and
    whether its reads wrap around (else: zero padding)."""
    rng = random.Random(seed)
    h, w = rng.randint(2, 5), rng.randint(2, 6)
    n = h * w
    wrap = rng.random() < 0.5
    taps = [(rng.randint(-1, 1), rng.randint(-1, 1), rng.choice([1, 1, 2, -1, -2])) for _ in range(rng.randint(1, 4))]
    squares = [((rng.randint(-1, 1), rng.randint(-1, 1)), (rng.randint(-1, 1), rng.randint(-1, 1)))
               for _ in range(rng.randint(0, 2))]
    b = Builder(f"stencil_{seed}")
    ty = Type((n,), "i16", True)
    img = b.arg("img", ty)
    zero = b.const(0, Type((), "i16", False))

    def at(x: int, y: int) -> int | None:
        if wrap:
            return b.extract(img, (x * w + y) % n)
        if 0 <= x < h and 0 <= y < w:
            return b.extract(img, x * w + y)
        return None  # zero padding: the read is left out

    written = list(range(n)) if rng.random() < 0.6 else [p for p in range(n) if rng.random() < 0.85] or [0]
    elems: dict[int, int] = {}
    for p in written:
        x, y = divmod(p, w)
        acc = zero
        for dx, dy, c in taps:
            r = at(x + dx, y + dy)
            if r is not None:
                term = r if c == 1 else b.binary("mul", r, b.const(c, Type((), "i16", False)))
                acc = b.binary("add", acc, term)
        for (ax, ay), (cx, cy) in squares:
            r1, r2 = at(x + ax, y + ay), at(x + cx, y + cy)
            if r1 is not None and r2 is not None:
                d = b.binary("sub", r1, r2)
                acc = b.binary("add", acc, b.binary("mul", d, d))
        elems[p] = acc
    if len(written) == n and rng.random() < 0.5:
        return b.finish([b.from_elements([elems[p] for p in range(n)], ty)]), wrap
    out = img if rng.random() < 0.5 else b.empty(ty)
    for p in rng.sample(written, len(written)):
        out = b.insert(elems[p], out, p)
    return b.finish([out]), wrap


@pytest.mark.parametrize("seed", range(12))
def test_random_stencil_chains_stay_equivalent(seed: int) -> None:
    prog = random_stencil(seed)
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program), seed
    before, after = res.report["before"], res.report["after"]  # type: ignore[index]
    assert after["cost"] <= before["cost"]  # type: ignore[index,operator]


def test_random_stencils_exercise_the_planner() -> None:
    """The property test above covers the class: its wrapping stencils that write every slot
    or start from zero are planned, its zero-padded ones -- per-slot coefficients at the
    edges -- are left live."""
    planned = 0
    for seed in range(12):
        prog, wrap = stencil_case(seed)
        loader = Loader(prog)
        loader.load()
        planned += bool(loader.vector_chains)
        assert wrap or not loader.vector_chains, seed
    assert planned >= 5, planned


def test_a_planned_chain_whose_form_fails_loads_live(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback: when the vector form is not built after all, the chain's source is
    emitted live (``_uncover``) and unioned with the inert one."""
    from eqsat.egraph.vectorize import ChainVectorizer

    monkeypatch.setattr(ChainVectorizer, "_vector_form", lambda self, top: None)
    prog = roberts_cross(3)
    loader = Loader(prog)
    loader.load()
    assert not loader.vector_chains, "the plan was dropped"
    assert loader.rows["Ext"] and loader.rows["MulI"], "live slot reads beside the inert twin"
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


def zero_padded_products(n: int) -> Program:
    """out[i] = x[i-1] * x[i+1] + y[i] with zero padding: the two edge slots are ``y[i]``
    alone, linear forms; the other ``n - 2`` are products."""
    b = Builder(f"padded_products_{n}")
    ty = Type((n,), "i16", True)
    x, y = b.arg("x", ty), b.arg("y", ty)
    out = b.empty(ty)
    for i in range(n):
        e = b.extract(y, i)
        if 0 < i < n - 1:
            e = b.binary("add", b.binary("mul", b.extract(x, i - 1), b.extract(x, i + 1)), e)
        out = b.insert(e, out, i)
    return b.finish([out])


def test_a_long_zero_padded_product_chain_loads_as_its_vector_form() -> None:
    """Above ``SUMMARY_CHAIN_SLOTS`` product elements, a chain whose edges are linear forms
    is not summarized (that kept its products live, for the slot rules to lift one slot at a
    time: slot-uniform seed 273385957 ran out of time), but loads as its vector form with
    per-slot coefficients; at 16 slots the source stays live for the slot rules."""
    from eqsat.egraph.summaries import SUMMARY_CHAIN_SLOTS

    long, short = zero_padded_products(SUMMARY_CHAIN_SLOTS + 16), zero_padded_products(16)
    loader = Loader(long)
    loader.load()
    assert list(loader.vector_chains) == long.results and not loader.summarized_chains
    assert not loader.rows["Ext"] and not loader.rows["Ins"]
    loader = Loader(short)
    loader.load()
    assert not loader.vector_chains and loader.rows["Ext"]
    res = optimize(long)
    assert equal_on_random_inputs(long, res.program)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("rotate", 0) == 2 and ops.get("extract", 0) == 0 and ops.get("insert", 0) == 0, ops


def test_per_slot_data_is_a_coefficient_that_differs_between_slots() -> None:
    """Zero padding deletes monomials (a read past the border is 0) and keeps every other
    coefficient and the constant term; per-slot data (a dense tensor read at the slot, a
    per-slot constant) changes a coefficient or the constant from slot to slot."""
    from eqsat.egraph.vector_chains import _per_slot_data

    a, b = ("r", 1, 1), ("r", 1, 3)
    edges = {0: {(a,): 2, (): -4}, 1: {(a,): 2, (b,): -1, (): -4}, 2: {(b,): -1, (): -4}}
    assert not _per_slot_data(edges)
    assert _per_slot_data({**edges, 3: {(a,): 5, (b,): -1, (): -4}})  # a dense coefficient
    assert _per_slot_data({**edges, 3: {(a,): 2, (b,): -1, (): 7}})  # a per-slot constant
    assert _per_slot_data({**edges, 3: {(a,): 2, (b,): -1}})  # no constant in one slot
