"""Goal tests for the ``select`` family: an encrypted select ``c*a + (1-c)*b`` costs one
ct*ct product (``b + c*(a-b)``), in every operand order a source may write, over BGV (mod t)
and CKKS (the literal 1.0), and the max decision trees of Coyote and CHEHAB drop from two
products per node to one (3 / 6 / 10 muls for the maximum of 3 / 4 / 5).

Each optimized program is checked against the source in the clear (``eqsat.interp``); the
trees also run encrypted with BGV.
"""

from __future__ import annotations

import inspect

import pytest

import eqsat
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Program
from eqsat.testing.kernels import max_tree, sort_tree

FORMS = {
    "c*a + (1-c)*b": lambda c, a, b: c * a + (1 - c) * b,
    "a*c + (1-c)*b": lambda c, a, b: a * c + (1 - c) * b,
    "c*a + b*(1-c)": lambda c, a, b: c * a + b * (1 - c),
    "a*c + b*(1-c)": lambda c, a, b: a * c + b * (1 - c),
    "(1-c)*b + c*a": lambda c, a, b: (1 - c) * b + c * a,
    "(1-c)*b + a*c": lambda c, a, b: (1 - c) * b + a * c,
    "b*(1-c) + c*a": lambda c, a, b: b * (1 - c) + c * a,
    "b*(1-c) + a*c": lambda c, a, b: b * (1 - c) + a * c,
}


def _traced(form, names: tuple[str, str, str], n: int) -> Program:  # type: ignore[no-untyped-def]
    def body(**v):  # type: ignore[no-untyped-def]
        return form(*(v[x] for x in names))

    body.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(x, inspect.Parameter.KEYWORD_ONLY) for x in names])
    kind = eqsat.secret_scalar() if n == 1 else eqsat.secret_vector(n)
    return eqsat.trace(body, {x: kind for x in names}, name="select")


def _same(prog: Program, res: object) -> None:
    for seed in range(3):
        inputs = random_inputs(prog, seed, bound=1000)
        got = evaluate(res.program, inputs, modulus=65537)  # type: ignore[attr-defined]
        assert results_equal(got, evaluate(prog, inputs, modulus=65537), modulus=65537)


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("names", [("c", "a", "b"), ("z", "b", "a")])
def test_one_product_per_select(form: str, names: tuple[str, str, str]) -> None:
    prog = _traced(FORMS[form], names, 1)
    res = eqsat.optimize(prog, "bgv")
    assert res.report["after"]["ops"].get("mul", 0) == 1, res.report["after"]["ops"]
    _same(prog, res)


def test_slotwise_select_on_vectors() -> None:
    prog = _traced(FORMS["c*a + (1-c)*b"], ("c", "a", "b"), 8)
    res = eqsat.optimize(prog, "bgv")
    ops = res.report["after"]["ops"]
    assert ops.get("mul", 0) == 1 and ops.get("rotate", 0) == 0, ops
    _same(prog, res)


def test_real_select_under_ckks() -> None:
    (prog,) = eqsat.parse_mlir(
        "func.func @sel(%c: f64, %a: f64, %b: f64) -> f64 {\n"
        "  %0 = arith.mulf %a, %c : f64\n"
        "  %one = arith.constant 1.0 : f64\n"
        "  %1 = arith.subf %one, %c : f64\n"
        "  %2 = arith.mulf %b, %1 : f64\n"
        "  %3 = arith.addf %2, %0 : f64\n"
        "  return %3 : f64\n}\n")
    res = eqsat.optimize(prog, "ckks")
    assert res.report["after"]["ops"].get("mul", 0) == 1, res.report["after"]["ops"]
    out = eqsat.run(res.program, {"c": 0.25, "a": 3.0, "b": -1.0}, "ckks", insecure=True)
    assert out["match"] and abs(out["outputs"][0] - 0.0) < 1e-3


def test_not_a_select_is_left_alone() -> None:
    """``c*a + (2-c)*b`` is no select: it keeps its two products."""
    prog = _traced(lambda c, a, b: c * a + (2 - c) * b, ("c", "a", "b"), 1)
    res = eqsat.optimize(prog, "bgv")
    assert res.report["after"]["ops"].get("mul", 0) == 2, res.report["after"]["ops"]
    _same(prog, res)


@pytest.mark.parametrize(("n", "selects"), [(3, 3), (4, 6), (5, 10)])
def test_max_trees_cost_one_product_per_select(n: int, selects: int) -> None:
    """The tree of ``max_tree(n)`` has ``selects`` distinct nodes (shared subtrees once)."""
    prog = max_tree(n)
    res = eqsat.optimize(prog, "bgv", layouts="fixed")
    ops = res.report["after"]["ops"]
    assert ops.get("mul", 0) == selects and ops.get("rotate", 0) == 0, ops
    _same(prog, res)
    inputs = random_inputs(prog, 1, bound=2)
    out = eqsat.run(res.program, inputs, "bgv", insecure=True)
    assert out["match"]


@pytest.mark.parametrize(("n", "selects"), [(3, 5), (4, 23)])
def test_sort_trees_cost_one_product_per_select(n: int, selects: int) -> None:
    prog = sort_tree(n)
    res = eqsat.optimize(prog, "bgv", layouts="fixed")
    ops = res.report["after"]["ops"]
    assert ops.get("mul", 0) == selects and ops.get("rotate", 0) == 0, ops
    _same(prog, res)
