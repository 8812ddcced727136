"""Small sums and products of one vector's slots, and vector trees over its rotations, at load.

``eqsat.egraph.summaries``: a sum of 3 or more slots of one vector (with integer constants,
as a loop's initial 0) loads as its realization ``Ext(LinRot(v, p), 0) + c`` alone when the
load-time realization realizes it; a product of distinct slots as ``Ext(ProdRot(v, S), 0) *
c`` (``eqsat.egraph.prodrot_load``); a vector sum over rotations of one vector gets its
realized ``LinRot`` beside the source tree (``eqsat.egraph.rotation_trees``). These tests
check which form loads, that the results are right and that saturation has little left.
"""

from __future__ import annotations

from eqsat.egraph.loader import Loader
from eqsat.egraph.rotation_trees import rotation_tree
from eqsat.ir import Builder, Program, Type
from eqsat.pipeline import optimize
from eqsat.testing.equivalence import equal_on_random_inputs

T = 65537


def slot_loop(n: int, op: str, init: int, slots: list[int] | None = None) -> Program:
    """acc = init; for k: acc = x[k] op acc (HEIR's loops over tensor.extract)."""
    b = Builder(f"{op}{n}")
    x = b.arg("x", Type((n,), "i16", True))
    acc = b.const(init, Type((), "i16", False))
    for k in slots if slots is not None else range(n):
        e = b.extract(x, k)
        acc = b.add(e, acc) if op == "add" else b.mul(e, acc)
    return b.finish([acc])


def test_small_sum_from_zero_loads_realized_and_saturates_at_once() -> None:
    prog = slot_loop(8, "add", 0)
    loader = Loader(prog)
    loader.load()
    assert loader.summarized_sums
    assert [row[2] for row in loader.rows["Ext"]] == [0]  # the slots are not loaded one by one
    res = optimize(prog)
    assert res.report["after"]["ops"].get("rotate", 0) == 3  # type: ignore[index]
    assert res.report["egraph"]["iterations"] <= 2  # type: ignore[index]
    assert res.report["stop_reason"] == "saturated"
    assert equal_on_random_inputs(prog, res.program)


def test_sum_with_a_nonzero_constant_keeps_it() -> None:
    prog = slot_loop(8, "add", 5)
    res = optimize(prog)
    assert res.report["after"]["ops"].get("rotate", 0) == 3  # type: ignore[index]
    assert equal_on_random_inputs(prog, res.program)


def test_unrealizable_small_sum_loads_its_tree() -> None:
    """Three slots at 4, 11 and 15 of 16: no realization at load (not canonical, no term at
    offset 0), so the balanced tree loads live and the rules align its partial sums."""
    prog = slot_loop(16, "add", 0, [11, 15, 4])
    loader = Loader(prog)
    loader.load()
    assert not loader.summarized_sums
    res = optimize(prog)
    assert equal_on_random_inputs(prog, res.program)


def test_small_product_loads_as_a_realized_prodrot() -> None:
    prog = slot_loop(16, "mul", 1)
    loader = Loader(prog)
    loader.load()
    assert loader.summarized_prods
    assert loader.rows["ProdRot"]
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("rotate", 0) == 4 and ops.get("mul", 0) == 4, ops
    assert equal_on_random_inputs(prog, res.program)


def test_product_with_a_repeated_slot_is_not_a_prodrot() -> None:
    prog = slot_loop(8, "mul", 1, [0, 1, 1, 2])
    loader = Loader(prog)
    loader.load()
    assert not loader.summarized_prods
    assert equal_on_random_inputs(prog, optimize(prog).program)


def linear_chain(n: int, steps: int, op: str = "add") -> Program:
    """a = v; repeat: a = op(rot(a, 1), v) -- the sum (``op`` "add") or product ("mul") of
    ``steps + 1`` rotations of v."""
    b = Builder("chain")
    v = b.arg("v", Type((n,), "i16", True))
    a = v
    for _ in range(steps):
        a = getattr(b, op)(b.rotate(a, 1), v)
    return b.finish([a])


def test_rotation_tree_reads_a_linear_chain() -> None:
    prog = linear_chain(8, 4)
    uses = prog.uses()
    tree = rotation_tree(prog, prog.results[0], lambda i: uses.get(i, 0) == 1 and i not in prog.results,
                         product=False)
    assert tree is not None
    assert tree.terms == {0: 1, 1: 1, 2: 1, 3: 1, 4: 1}
    assert tree.rotations == 4


def test_linear_chain_gets_its_realized_linrot_beside_the_source() -> None:
    prog = linear_chain(8, 7)  # all 8 rotations: a full reduction
    loader = Loader(prog)
    loader.load()
    assert loader.rotation_trees
    assert loader.rows["Rot"]  # the source's own rotations stay
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("rotate", 0) == 3, ops
    assert equal_on_random_inputs(prog, res.program)


def test_sums_of_several_vectors_with_one_polynomial_reduce_their_sum() -> None:
    """sum(p) + sum(q) + sum(r): one reduction of p + q + r (HEIR's nested sum: 5 rotations
    instead of 5 per tensor), loaded at once."""
    n = 16
    b = Builder("nested")
    vs = [b.arg(name, Type((n,), "i16", True)) for name in "pqr"]
    acc = b.const(0, Type((), "i16", False))
    for v in vs:
        for k in range(n):
            acc = b.add(b.extract(v, k), acc)
    prog = b.finish([acc])
    loader = Loader(prog)
    loader.load()
    assert loader.summarized_sums
    res = optimize(prog)
    assert res.report["after"]["ops"].get("rotate", 0) == 4  # type: ignore[index]
    assert res.report["egraph"]["iterations"] <= 2  # type: ignore[index]
    assert equal_on_random_inputs(prog, res.program)


def test_sums_of_several_vectors_with_different_polynomials_load_as_before() -> None:
    n = 8
    b = Builder("mixed")
    p, q = b.arg("p", Type((n,), "i16", True)), b.arg("q", Type((n,), "i16", True))
    acc = b.add(b.add(b.extract(p, 0), b.extract(p, 1)), b.add(b.extract(q, 0), b.extract(q, 2)))
    prog = b.finish([acc])
    loader = Loader(prog)
    loader.load()
    assert not loader.summarized_sums
    assert equal_on_random_inputs(prog, optimize(prog).program)


def test_rotation_tree_reads_a_product_and_refuses_a_repeated_offset() -> None:
    b = Builder("prod")
    v = b.arg("v", Type((8,), "i16", True))
    r1 = b.rotate(v, 1)
    p = b.mul(b.mul(v, r1), b.rotate(r1, 1))  # v * rot(v, 1) * rot(v, 2)
    q = b.mul(p, b.rotate(v, 2))  # rot(v, 2) twice: a power, no offset set
    prog = b.finish([p, q])
    yes = rotation_tree(prog, p, lambda i: False, product=True)
    assert yes is not None and yes.terms == {0: 1, 1: 1, 2: 1}
    assert rotation_tree(prog, q, lambda i: False, product=True) is None


def test_product_chain_gets_its_realized_prodrot_beside_the_source() -> None:
    """The product's set and every step's set at load: the rules do not rebuild the chain one
    step per iteration (``prod-rot`` with ``prod-merge``)."""
    prog = linear_chain(8, 7, "mul")  # all 8 rotations: a full product
    loader = Loader(prog)
    loader.load()
    assert loader.rotation_trees and loader.product_trees
    assert len(loader.rows["ProdRot"]) > 7  # every step's offset set
    assert loader.rows["Rot"]  # the source's own rotations stay
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("rotate", 0) == 3, ops
    assert res.report["egraph"]["iterations"] <= 10  # type: ignore[index]  # (20 without the tree)
    assert equal_on_random_inputs(prog, res.program)
