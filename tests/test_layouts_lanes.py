"""Select-tree lanes (``eqsat.layouts_lanes``): which programs give candidates, the Pareto
front of (rotations, ct*ct muls) they span, and that each candidate computes the tree."""

from __future__ import annotations

from pathlib import Path

import eqsat
from eqsat.interp import evaluate
from eqsat.ir import Program
from eqsat.layouts import check_packed, pack_inputs, unpack_results
from eqsat.layouts_lanes import lanes
from eqsat.testing.kernels import dot, max_tree, sort_tree

ROOT = Path(__file__).resolve().parents[1]


def _counts(prog: Program) -> tuple[int, int]:
    rot = sum(1 for n in prog.nodes if n.op == "rotate")
    mul = sum(1 for n in prog.nodes if n.op == "mul" and all(prog.nodes[a].type.secret for a in n.args))
    return rot, mul


def test_front_of_the_max_of_5() -> None:
    """Rotate at every level: 4 products, 3 rotations; split the levels below the root into
    separate vectors instead: one rotation, more products."""
    cands = lanes(max_tree(5))
    assert [_counts(c.program) for c in cands] == [(1, 7), (2, 5), (3, 4)]
    for c in cands:
        assert check_packed(max_tree(5), c)
        assert all(lay.name == "select-lanes" for lay in c.args.values())


def test_sort_3_one_rotation_three_products() -> None:
    (cand,) = lanes(sort_tree(3))
    assert _counts(cand.program) == (1, 3)


def test_vector_arguments_and_the_mux_form() -> None:
    """Coyote's packed form: the bits and the leaves are elements of two vectors, the select
    written ``b + c*(a-b)``; each level's leaves come from one ciphertext per argument."""
    (prog,) = eqsat.parse_mlir((ROOT / "experiments/kernels/max_tree_4/unrolled.mlir").read_text())
    cands = lanes(prog)
    assert cands and _counts(cands[0].program)[1] <= 3
    inputs = {"x": [3, 9, 4, 1], "cmp": [0, 1, 0]}
    got = evaluate(cands[0].program, pack_inputs(inputs, cands[0].args))
    assert unpack_results(got, cands[0].results) == evaluate(prog, inputs)


def test_no_candidate_for_other_shapes() -> None:
    assert lanes(dot(4)) == []

    @eqsat.program(c=eqsat.secret_scalar(), a=eqsat.secret_scalar(), b=eqsat.secret_scalar())
    def one(c, a, b):  # type: ignore[no-untyped-def]
        return c * a + (1 - c) * b

    assert lanes(one) == []  # a single select: nothing side by side

    @eqsat.program(c=eqsat.secret_scalar(), a=eqsat.secret_scalar(), b=eqsat.secret_scalar())
    def not_select(c, a, b):  # type: ignore[no-untyped-def]
        return c * a + (2 - c) * b

    assert lanes(not_select) == []


def _deep(levels: int, split_every_level: bool) -> Program:
    """A tree that descends ``levels`` deep: each level's select has the next one as ``a`` and
    either a leaf or a one-select subtree as ``b``."""
    names = [f"c{i}" for i in range(levels)] + [f"x{i}" for i in range(levels + 2)]

    def body(**v):  # type: ignore[no-untyped-def]
        def cond(c, a, b):  # type: ignore[no-untyped-def]
            return c * a + (1 - c) * b

        node = v[f"x{levels}"]
        for i in reversed(range(levels)):
            other = cond(v[f"c{i}"], v[f"x{i}"], v[f"x{i + 1}"]) if split_every_level else v[f"x{i}"]
            node = cond(v[f"c{i}"], node, other)
        return node

    import inspect

    body.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in names])
    return eqsat.trace(body, {n: eqsat.secret_scalar() for n in names}, name="deep")


def test_deep_trees_stay_bounded() -> None:
    """A chain of 600 selects is over the size bound; a tree that splits at each of 30 levels
    would need 2^29 lanes when rotated everywhere: such assignments are skipped, not built."""
    assert lanes(_deep(600, False)) == []
    for cand in lanes(_deep(30, True)):
        assert all(lay.slots <= 4096 for lay in cand.args.values())
