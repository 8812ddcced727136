"""The product lower bound (``eqsat.algebra.product_bound``): exact values where the answer is
known, and -- since it claims to hold for every program -- checked against every program this
project produces: the select-tree candidates of the layout search on random trees, and the
optimizer's results on random programs and on the published kernels."""

from __future__ import annotations

import random

import pytest

import eqsat
from eqsat.algebra.product_bound import OutputBound, min_products, product_bounds
from eqsat.ir import Program
from eqsat.layouts_sched import counts, select_candidates
from eqsat.testing.kernels import coyote_max_5, max_tree, sort_tree


def _moves(prog: Program) -> int:
    """Every op that may move a value between slots, counted generously (a bigger count only
    weakens the bound the tests compare with): a rotation, a slot read or write, one per
    element of a vector built from scalars, a replication or a linear map by its slots."""
    n = 0
    for node in prog.nodes:
        if node.op in ("rotate", "extract", "insert"):
            n += 1
        elif node.op in ("from_elements", "splat", "linmap"):
            n += max(node.type.slots, len(node.args))
    return n


def _products(prog: Program) -> int:
    return counts(prog)[1]


def test_inner_product_needs_one_product_per_term() -> None:
    """``sum x_i y_i`` with both secret: the y_i are independent and 1 is not in their span, so
    D = n -- the classical multiplicative complexity of an inner product."""
    n = 5

    @eqsat.program(x=eqsat.secret_vector(n), y=eqsat.secret_vector(n))
    def inner(x, y):  # type: ignore[no-untyped-def]
        s = x[0] * y[0]
        for i in range(1, n):
            s = s + x[i] * y[i]
        return s

    (b,) = product_bounds(inner) or []
    assert b.dimension == n and len(b.linear) == n
    assert [b.products(r) for r in range(4)] == [5, 3, 2, 1]


def test_linear_program_needs_no_product() -> None:
    @eqsat.program(x=eqsat.secret_vector(4), w=eqsat.plain_vector(4))
    def lin(x, w):  # type: ignore[no-untyped-def]
        return x[0] * w[0] + x[1] * w[1] + 3 * x[2] - x[3]

    assert min_products(lin, 0) == 0


def test_products_ceil_by_lanes() -> None:
    b = OutputBound((0, 0), (), 23)
    assert [b.products(r) for r in range(6)] == [23, 12, 6, 3, 2, 1]


def test_sort_trees_need_a_product_per_leaf_but_one() -> None:
    """The sort of n as a decision tree with its n! outputs as leaves: the leaves' path
    polynomials are independent and sum to one, D = n! - 1. For 4 values, one rotation needs 12
    products, so no program has 1 rotation and 10 products (the per-count best of CHEHAB and
    Coyote); the layout search's front attains 12."""
    (b3,) = product_bounds(sort_tree(3)) or []
    assert b3.dimension == 5 and b3.products(1) == 3
    prog = sort_tree(4)
    (b4,) = product_bounds(prog) or []
    assert b4.dimension == 23 and len(b4.linear) == 24
    assert b4.products(1) == 12 > 10
    assert (1, 12) in [counts(c.program) for c in select_candidates(prog)]


@pytest.mark.parametrize("build", [lambda: max_tree(4), lambda: max_tree(5), coyote_max_5])
def test_max_trees(build) -> None:  # type: ignore[no-untyped-def]
    """Max of n: the n values are the affine inputs, D = n - 1 (a weak bound: the tree's depth
    is the real limit)."""
    prog = build()
    bounds = product_bounds(prog) or []
    n = sum(1 for b in bounds for _ in b.linear)
    assert [b.dimension for b in bounds] == [n - 1]


def _random_tree(seed: int) -> Program:
    """A random select tree with distinct or repeated leaves and reused bits."""
    import inspect

    rng = random.Random(seed)
    bits = [f"c{i}" for i in range(rng.randint(2, 5))]
    leaves = [f"x{i}" for i in range(rng.randint(3, 9))]

    def body(**v):  # type: ignore[no-untyped-def]
        def node(depth: int):  # type: ignore[no-untyped-def]
            if depth >= 4 or (depth > 0 and rng.random() < 0.2 * depth):
                return v[rng.choice(leaves)]
            c = v[rng.choice(bits)]
            a, b = node(depth + 1), node(depth + 1)
            return c * a + (1 - c) * b if rng.random() < 0.5 else b + c * (a - b)

        return node(0)

    body.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in bits + leaves])
    return eqsat.trace(body, {n: eqsat.secret_scalar() for n in bits + leaves}, name=f"tree_{seed}")


@pytest.mark.parametrize("seed", range(12))
def test_every_tree_candidate_respects_the_bound(seed: int) -> None:
    """Every program the layout search builds for a random tree, and the optimizer's result,
    has at least the bound's products for its moves: a program below it would refute the
    bound (or expose a wrong result)."""
    prog = _random_tree(seed)
    bounds = product_bounds(prog)
    assert bounds is not None
    programs = [c.program for c in select_candidates(prog)]
    programs.append(eqsat.optimize(prog, "bgv", layouts="auto").program)
    for p in programs:
        assert _products(p) >= max(b.products(_moves(p)) for b in bounds), (seed, counts(p))


def _bilinear(seed: int) -> tuple[Program, int]:
    """``x^T A y`` for two secret n-vectors and a random sparse integer matrix ``A``; and the
    rank of ``A`` modulo the plaintext modulus, which is ``D``."""
    from eqsat.algebra.product_bound import _rank
    from eqsat.interp import PLAINTEXT_MODULUS

    rng = random.Random(seed)
    n = rng.choice((3, 4))
    a = [[rng.choice((0, 0, 0, 1, -1, 2)) for _ in range(n)] for _ in range(n)]
    if not any(any(r) for r in a):
        a[0][0] = 1

    @eqsat.program(x=eqsat.secret_vector(n), y=eqsat.secret_vector(n))
    def bilinear(x, y):  # type: ignore[no-untyped-def]
        terms = [a[i][j] * (x[i] * y[j]) for i in range(n) for j in range(n) if a[i][j]]
        s = terms[0]
        for t in terms[1:]:
            s = s + t
        return s

    return bilinear, _rank([[v % PLAINTEXT_MODULUS for v in r] for r in a], PLAINTEXT_MODULUS)


@pytest.mark.parametrize("seed", range(5))
def test_bilinear_forms_and_their_optimized_programs(seed: int) -> None:
    """``x^T A y``: D is the rank of A (the classical bound for bilinear forms); the optimizer's
    result, which vectorizes the products and sums with rotations, stays above the bound for
    its rotations."""
    prog, rank = _bilinear(seed)
    (b,) = product_bounds(prog) or []
    assert b.dimension == rank
    opt = eqsat.optimize(prog, "bgv").program
    assert _products(opt) >= b.products(_moves(opt)), (seed, counts(opt), rank)


def test_float_programs_are_not_measured() -> None:
    @eqsat.program(x=eqsat.secret_vector(4, "f32"))
    def f(x):  # type: ignore[no-untyped-def]
        return x[0] * x[1]

    assert product_bounds(f) is None and min_products(f, 0) is None
