"""Long insertion chains and long sums of slots load as summaries beside an inert source.

The loader (``eqsat.egraph.Loader._plan_summaries``) turns a chain of more than
``SUMMARY_CHAIN_SLOTS`` slots whose elements are linear forms of extracted slots into
gathers of ``LinRot`` polynomials, and keeps the source chain with inert twins (``AddI``
...) that no rule rewrites.  These tests check that the summaries are right (the optimized
program equals the source on random inputs and encrypted), that the inert source is a
fallback when no summary can be realized, and that elements the summary cannot express
(non-linear, another slot count) are loaded as they are.
"""

from __future__ import annotations

import random

import pytest

from eqsat.backend import run_program
from eqsat.egraph.loader import Loader
from eqsat.egraph.session import Session
from eqsat.egraph.summaries import SUMMARY_CHAIN_SLOTS
from eqsat.egraph.view import EGraphView
from eqsat.interp import random_inputs
from eqsat.ir import Builder, Program, Type
from eqsat.pipeline import optimize
from eqsat.testing.equivalence import equal_on_random_inputs

T = 65537


def summary_rows(loader: Loader, op: str) -> list[tuple[object, ...]]:
    """The rows of ``op`` the summaries wrote (the vector forms of ``eqsat.egraph.vectorize``
    are numbered after them)."""
    return [row for row in loader.rows[op] if int(row[0]) < loader.vector_first_id]  # type: ignore[call-overload]


def gathered_linrots(loader: Loader) -> set[tuple[object, ...]]:
    """The (base, polynomial) of each ``LinRot`` row a summary's ``Gather`` reads (the rows
    of its realization at load, ``eqsat.egraph.linrot_load``, are not counted)."""
    lin = {row[0]: row[1:3] for row in loader.rows["LinRot"]}
    return {lin[row[1]] for row in summary_rows(loader, "Gather") if row[1] in lin}


def stencil_chain(n: int, offsets: dict[int, int], name: str = "stencil") -> Program:
    """out[i] = sum_k c_k x[i + k] written as an insertion chain of scalar code."""
    b = Builder(name)
    x = b.arg("x", Type((n,), "i16", True))
    out = b.empty(Type((n,), "i16", True))
    for i in range(n):
        acc = None
        for k, c in offsets.items():
            e = b.extract(x, (i + k) % n)
            if c == -1:
                e = b.neg(e)
            elif c != 1:
                e = b.mul(e, b.const(c, Type((), "i16", False)))
            acc = e if acc is None else b.add(acc, e)
        out = b.insert(acc, out, i)  # type: ignore[arg-type]
    return b.finish([out])


def test_stencil_chain_loads_as_one_gather_and_vectorizes() -> None:
    prog = stencil_chain(96, {-1: 1, 0: 2, 1: 1})
    loader = Loader(prog)
    loader.load()
    assert loader.summarized_chains, "a 64-slot chain of linear forms is summarized"
    # every slot shares one relative polynomial: one Gather of one LinRot
    assert len(gathered_linrots(loader)) == 1
    assert len(summary_rows(loader, "Gather")) == 1
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("rotate", 0) == 2 and ops.get("insert", 0) == 0 and ops.get("extract", 0) == 0, ops
    assert equal_on_random_inputs(prog, res.program)


def test_short_chains_are_not_summarized() -> None:
    prog = stencil_chain(SUMMARY_CHAIN_SLOTS, {0: 1, 1: 1})
    loader = Loader(prog)
    loader.load()
    assert not loader.summarized_chains
    # it loads as its vector form instead, the source inert beside it (``eqsat.egraph.vector_chains``)
    assert list(loader.vector_chains) == [max(prog.results)]


def test_two_sources_and_edges_make_masked_groups() -> None:
    """out[i] = x[i + 1] - y[i] inside, x[i] at the last slot: three groups, masks where partial."""
    n = 80
    b = Builder("two_sources")
    ty = Type((n,), "i16", True)
    x, y = b.arg("x", ty), b.arg("y", ty)
    out = b.empty(ty)
    for i in range(n):
        v = b.extract(x, i) if i == n - 1 else b.sub(b.extract(x, i + 1), b.extract(y, i))
        out = b.insert(v, out, i)  # type: ignore[arg-type]
    prog = b.finish([out])
    loader = Loader(prog)
    loader.load()
    assert len(summary_rows(loader, "Gather")) == 3  # x shifted (79 slots), -y (79 slots), x at slot 79
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("extract", 0) == 0 and ops.get("insert", 0) == 0, ops


def test_non_linear_and_foreign_elements_load_as_they_are() -> None:
    """Squares and slots of a vector with another slot count stay in the chain unsummarized."""
    n = 80
    b = Builder("mixed")
    ty = Type((n,), "i16", True)
    x = b.arg("x", ty)
    z = b.arg("z", Type((8,), "i16", True))
    out = b.empty(ty)
    for i in range(n):
        if i % 5 == 0:
            e = b.extract(x, i)
            v = b.mul(e, e)  # not linear
        elif i % 5 == 1:
            v = b.extract(z, i % 8)  # another slot count
        else:
            v = b.add(b.extract(x, (i + 1) % n), b.extract(x, i))
        out = b.insert(v, out, i)  # type: ignore[arg-type]
    prog = b.finish([out])
    loader = Loader(prog)
    loader.load()
    assert loader.summarized_chains
    non_linear = [i for i, nd in enumerate(prog.nodes) if nd.op == "mul"]
    assert all(i not in loader.linear for i in non_linear)
    assert not any(prog.nodes[e].op == "extract" and prog.nodes[prog.nodes[e].args[0]].type.slots == 8
                   for e in loader.linear)
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


def test_inert_source_is_the_fallback_when_no_summary_realizes() -> None:
    """Dense random linear forms (more terms than any realization takes, no factorization):
    the summaries stay unrealized and extraction reads the inert source as the program."""
    n = 66
    rng = random.Random(5)
    b = Builder("dense")
    ty = Type((n,), "i16", True)
    x = b.arg("x", ty)
    out = b.empty(ty)
    for i in range(n):
        acc = None
        for j in range(n):
            e = b.mul(b.extract(x, j), b.const(rng.randrange(2, 9), Type((), "i16", False)))
            acc = e if acc is None else b.add(acc, e)
        out = b.insert(acc, out, i)  # type: ignore[arg-type]
    prog = b.finish([out])
    s = Session(prog)
    view = EGraphView(s.serialize())
    assert {n.op for n in view.nodes} >= {"Add", "Ext", "Mul"}  # the inert twins, as read back
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


def test_long_sum_of_slots_loads_realized_without_an_inert_tree() -> None:
    """A full reduction is realized at load (``eqsat.egraph.linrot_load``: rotate-and-reduce,
    one factor per halving): no inert twin, and saturation has nothing left to find."""
    n = 64
    b = Builder("sum64")
    x = b.arg("x", Type((n,), "i16", True))
    acc = b.extract(x, 0)
    for i in range(1, n):
        acc = b.add(acc, b.extract(x, i))
    prog = b.finish([acc])
    loader = Loader(prog)
    loader.load()
    assert loader.summarized_sums
    assert not loader.rows["ExtI"] and not loader.rows["AddI"]
    assert [row[2] for row in loader.rows["Ext"]] == [0]  # only the summary's Ext(.., 0)
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("rotate", 0) == 6, ops
    assert res.report["egraph"]["iterations"] <= 2  # type: ignore[index]
    assert equal_on_random_inputs(prog, res.program)


def test_unrealized_signed_sum_keeps_an_inert_tree() -> None:
    """A signed sum of 40 slots with random signs (no factorization, no complement, too many
    terms to split): no realization at load, so the inert source is loaded beside it."""
    n = 64
    rng = random.Random(3)
    b = Builder("signed40")
    x = b.arg("x", Type((n,), "i16", True))
    acc = b.extract(x, 0)
    for i in range(1, 40):
        e = b.extract(x, i)
        acc = b.add(acc, e) if rng.random() < 0.5 else b.sub(acc, e)
    prog = b.finish([acc])
    loader = Loader(prog)
    loader.load()
    assert loader.summarized_sums
    assert len(loader.rows["ExtI"]) == 40
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


@pytest.mark.parametrize("offsets", [{-1: 1, 0: 1, 1: 1}, {0: 3, 2: -1}])
def test_summarized_chain_runs_encrypted(offsets: dict[int, int]) -> None:
    prog = stencil_chain(72, offsets)
    res = optimize(prog)
    enc = run_program(res.program, random_inputs(prog, 7), "bgv", insecure=True, seed=7)
    assert enc["match"], f"encrypted run does not match: {enc['outputs']} != {enc['reference']}"


def test_weighted_stencil_with_shared_products_and_zero_start() -> None:
    """HEIR's loop shape: each slot's sum starts at 0 and adds x[j] * w with the weight read from
    a constant matrix; the builder shares x[j] * w between neighbouring slots."""
    n = 96
    b = Builder("gx_like")
    ty = Type((n,), "i16", True)
    x = b.arg("x", ty)
    weights = b.from_elements([b.const(c, Type((), "i16", False)) for c in (-1, 0, 1)], Type((3,), "i16", False))
    out = x
    for i in range(n):
        acc = b.const(0, Type((), "i16", False))
        for k in range(3):
            w = b.extract(weights, k)
            acc = b.add(acc, b.mul(b.extract(x, (i + k - 1) % n), w))
        out = b.insert(acc, out, i)
    prog = b.finish([out])
    loader = Loader(prog)
    loader.load()
    assert loader.summarized_chains and len(gathered_linrots(loader)) == 1
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("extract", 0) == 0 and ops.get("insert", 0) == 0 and ops.get("rotate", 0) <= 2, ops
    assert equal_on_random_inputs(prog, res.program)


def test_nonzero_constant_terms_become_a_plaintext_vector() -> None:
    n = 72
    b = Builder("affine")
    ty = Type((n,), "i16", True)
    x = b.arg("x", ty)
    out = b.empty(ty)
    for i in range(n):
        v = b.add(b.add(b.extract(x, i), b.extract(x, (i + 1) % n)), b.const(i % 3, Type((), "i16", False)))
        out = b.insert(v, out, i)
    prog = b.finish([out])
    loader = Loader(prog)
    loader.load()
    assert loader.rows["Dense"], "the constants are one plaintext vector of the summary"
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


def _sum_of_terms(n: int, term, name: str = "terms") -> Program:  # type: ignore[no-untyped-def]
    b = Builder(name)
    ty = Type((n,), "i16", True)
    x, y = b.arg("x", ty), b.arg("y", ty)
    acc = b.const(0, Type((), "i16", False))  # a loop's sum starts at 0
    for i in range(n):
        acc = b.add(acc, term(b, x, y, i))
    return b.finish([acc])


def test_sum_of_squared_differences_loads_as_one_template_reduction() -> None:
    """Hamming-style ``sum (x[i] - y[i])^2``: the terms share one template relative to their
    slot, so the sum is the reduction of ``(x - y)^2`` (``_realized_template_sum``), realized
    at load; the terms are not loaded, and one iteration confirms saturation."""
    def sq(b, x, y, i):  # type: ignore[no-untyped-def]
        d = b.sub(b.extract(x, i), b.extract(y, i))
        return b.mul(d, d)

    prog = _sum_of_terms(64, sq)
    loader = Loader(prog)
    loader.load()
    assert not loader.rows["Ext"][1:] and len(loader.rows["Mul"]) == 1  # one product of vectors
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("mul", 0) == 1 and ops.get("rotate", 0) == 6 and ops.get("extract", 0) == 0, ops
    assert res.report["egraph"]["iterations"] <= 2  # type: ignore[index]
    assert res.report["before"]["ops"].get("relinearize") == 1  # type: ignore[index]  # the ILP's answer
    assert equal_on_random_inputs(prog, res.program)


def test_template_sum_without_one_anchor_per_term_loads_its_terms() -> None:
    """Terms ``x[i] * x[i + 1 mod n]`` and again ``x[i] * y[i]``: two terms per smallest slot,
    so no template reduction; the terms load as before and the result is still right."""
    def two(b, x, y, i):  # type: ignore[no-untyped-def]
        return b.add(b.mul(b.extract(x, i), b.extract(x, (i + 1) % 40)), b.mul(b.extract(x, i), b.extract(y, i)))

    prog = _sum_of_terms(40, two, "two_terms")
    loader = Loader(prog)
    loader.load()
    assert len(loader.rows["Mul"]) >= 40  # the terms, loaded
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


@pytest.mark.parametrize("n", [3, 8, 32])
def test_small_dot_product_loads_as_its_template_reduction(n: int) -> None:
    """A dot product of 3..32 slots (at most ``BALANCED_ONLY_LEAVES`` terms, whose trees load
    live beside their balanced form) is one template reduction too: its source terms and
    partial sums are not loaded, and saturation has nothing to climb (an 8-slot dot product
    took 17 iterations, adding one slot per ``lin-add``)."""
    def prod(b, x, y, i):  # type: ignore[no-untyped-def]
        return b.mul(b.extract(x, i), b.extract(y, i))

    prog = _sum_of_terms(n, prod)
    loader = Loader(prog)
    loader.load()
    assert len(loader.rows["Mul"]) == 1  # one product of vectors, no product of slots
    assert not [r for r in loader.rows["Ext"] if r[2] != 0]  # no slot read but the result's
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("mul", 0) == 1 and ops.get("extract", 0) == 0, ops
    if n in (8, 32):  # a reduction over a power of two is realized whole at load
        assert res.report["egraph"]["iterations"] <= 2  # type: ignore[index]
    assert equal_on_random_inputs(prog, res.program)


def test_small_sums_sharing_a_term_load_it_once_when_no_template_applies() -> None:
    """Two small scalar sums that read one product (``p + a + a``, ``p - a - a``): no slot
    reads, so no template; the product is covered under both sums' plans but listed under
    one, and the other sum's fallback must load it first (a KeyError before)."""
    for pad in range(8):  # which sum's plan lists the product depends on node numbers
        b = Builder("shared")
        ty = Type((), "i16", True)
        a, c = b.arg("a", ty), b.arg("c", ty)
        for k in range(pad):
            b.const(100 + k, Type((), "i16", False))  # dead: numbers the sums later
        p = b.mul(a, c)
        s1 = b.add(b.add(b.add(p, a), a), a)
        s2 = b.sub(b.sub(b.sub(p, c), c), c)
        prog = b.finish([s1, s2])
        res = optimize(prog)
        assert equal_on_random_inputs(prog, res.program)


def test_sum_with_a_scaled_partial_sum_loads_as_one_reduction() -> None:
    """``(x0 + x1) * 2 + x3 + ... + x7 + x2`` (HEIR's rotate_and_reduce
    @not_supported_mixed_op_non_tensor_operands): the scaled partial sum is a linear form of
    slots read by the sum alone, so the whole sum is one polynomial ``2 + 2r + r^2 + ... +
    r^7`` realized at load; no scalar slot read or product is loaded."""
    b = Builder("scaled")
    x = b.arg("x", Type((8,), "i16", True))
    two = b.const(2, Type((), "i16", False))
    acc = b.mul(b.add(b.extract(x, 0), b.extract(x, 1)), two)
    for i in (3, 4, 5, 6, 7, 2):
        acc = b.add(acc, b.extract(x, i))
    prog = b.finish([acc])
    loader = Loader(prog)
    loader.load()
    assert [r for r in loader.rows["LinRot"] if r[2] == "-3..-1/1*1,0*2,1*2,2..4/1*1"]
    assert not [r for r in loader.rows["Ext"] if r[2] != 0]  # no slot read but the result's
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("rotate", 0) == 3 and ops.get("extract", 0) == 0, ops
    assert equal_on_random_inputs(prog, res.program)


def test_scaled_partial_sum_read_twice_is_not_absorbed() -> None:
    """The same partial sum also returned on its own: it is not the sum's alone, so the
    sum keeps its terms (no summary over it) and both results stay right."""
    b = Builder("shared_scaled")
    x = b.arg("x", Type((8,), "i16", True))
    two = b.const(2, Type((), "i16", False))
    part = b.mul(b.add(b.extract(x, 0), b.extract(x, 1)), two)
    acc = part
    for i in (3, 4, 5, 6, 7, 2):
        acc = b.add(acc, b.extract(x, i))
    prog = b.finish([acc, part])
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


def test_sum_reading_a_slot_of_a_rotation_sum_loads_as_one_reduction() -> None:
    """HEIR's rotate_and_reduce @sum_mixed: ``x0 + (rot(v, 1) + rot(v, 2))[0] + x3 + ... +
    x7``; the slot read of the single-use rotation sum is ``v[1] + v[2]`` (``_read_through``),
    so the sum is the full reduction, realized at load (13 iterations and 141 e-nodes before)."""
    b = Builder("mixed")
    v = b.arg("v", Type((8,), "i32", True))
    pair = b.add(b.rotate(v, 1), b.rotate(v, 2))
    acc = b.add(b.extract(v, 0), b.extract(pair, 0))
    for i in range(3, 8):
        acc = b.add(acc, b.extract(v, i))
    prog = b.finish([acc])
    res = optimize(prog)
    assert res.report["after"]["ops"].get("rotate") == 3  # type: ignore[index, union-attr]
    assert res.report["egraph"]["iterations"] <= 2  # type: ignore[index]
    assert equal_on_random_inputs(prog, res.program)


@pytest.mark.parametrize("seed", range(16))
def test_random_sums_of_slot_reads_through_rotation_trees_stay_right(seed: int) -> None:
    """Random sums of plain slot reads, scaled partial sums and slot reads of small trees of
    rotations, additions, subtractions and negations of one or two vectors (some trees also
    returned, so not read through): the optimized program equals the source."""
    rng = random.Random(seed)
    n = rng.choice([4, 8, 16])
    b = Builder(f"rand{seed}")
    xs = [b.arg(nm, Type((n,), "i16", True)) for nm in ("x", "y")[: 1 if seed % 4 else 2]]
    extra: list[int] = []

    def tree(depth: int) -> int:
        if depth == 0 or rng.random() < 0.3:
            return b.rotate(rng.choice(xs), rng.randrange(n)) if rng.random() < 0.7 else rng.choice(xs)
        op = rng.choice(["add", "add", "add", "sub", "neg", "rotate"])
        if op == "neg":
            return b.neg(tree(depth - 1))
        if op == "rotate":
            return b.rotate(tree(depth - 1), rng.randrange(1, n))
        return b.add(tree(depth - 1), tree(depth - 1)) if op == "add" else b.sub(tree(depth - 1), tree(depth - 1))

    terms: list[int] = []
    for _ in range(rng.randrange(3, 9)):
        kind = rng.random()
        if kind < 0.3:
            terms.append(b.extract(rng.choice(xs), rng.randrange(n)))
        elif kind < 0.4:
            s = b.add(b.extract(rng.choice(xs), rng.randrange(n)), b.extract(rng.choice(xs), rng.randrange(n)))
            terms.append(b.mul(s, b.const(rng.choice([-3, 2, 5]), Type((), "i16", False))))
        else:
            t = tree(rng.randrange(1, 4))
            if rng.random() < 0.2:
                extra.append(t)  # read twice: not read through
            terms.append(b.extract(t, rng.randrange(n)))
    acc = terms[0]
    for t in terms[1:]:
        acc = b.add(acc, t) if rng.random() < 0.9 else b.sub(acc, t)
    prog = b.finish([acc, *extra])
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


def test_short_sum_of_two_templates_keeps_its_terms_under_arith_rules() -> None:
    """Fuzz seed 10018 (CKKS, ``--rules arith``): ``0 + (x[0] - y[3]) + (x[2] - y[1])`` has
    two templates at its anchors; as a template reduction it needed ``Gather`` masks that only
    the slots rules realize, and with its terms not loaded no finite program was left."""
    from eqsat.testing.fuzz import run_case

    assert run_case(10018)["status"] == "ok"


def test_short_sum_inside_a_chain_element_leaves_the_chain_vectorizable() -> None:
    """Slot-uniform seed 6520024: each element ``(x[i+3] x[i] - (x[i-1] - x[i+2])) * ...`` holds
    a short sum; covered as a template sum, its terms hid the element from the chain's vector
    form and 200 slot reads were left. Short template sums are results only."""
    import eqsat
    from eqsat.testing.slot_uniform import generate

    case = generate(6520024, max_size=256)
    prog = eqsat.parse_mlir(case.mlir, "<seed 6520024>")[0]
    ops = eqsat.optimize(prog).report["after"]["ops"]  # type: ignore[index]
    assert ops.get("extract", 0) == 0 and ops.get("rotate", 0) <= case.distinct_reads, ops


def test_slot_read_of_a_deeply_shared_tree_is_bounded_and_right() -> None:
    """``v`` doubled 60 times (``x + x``) and rotated, then read in a sum: walked as a tree the
    read has 2^60 paths; ``_read_through`` gives up after ``READ_THROUGH_STEPS`` and the sum
    loads its terms as before (it hung without the bound)."""
    from eqsat.egraph.summaries import READ_THROUGH_STEPS

    b = Builder("doubled")
    v = b.arg("v", Type((8,), "i16", True))
    x = v
    for _ in range(60):
        x = b.add(x, x)
    r = b.rotate(x, 1)
    acc = b.add(b.add(b.extract(r, 0), b.extract(v, 2)), b.extract(v, 3))
    prog = b.finish([acc])
    loader = Loader(prog)
    assert loader._read_through(r, 0) is None and READ_THROUGH_STEPS < 2**60
    loader.load()
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)
