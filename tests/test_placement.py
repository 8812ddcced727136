"""BGV/CKKS management placement: HEIR's relinearization cases, levels, the checker."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from eqsat import placement as P
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Builder, Program, Type

CT = Type((8,), "i16", True)


def build(body: Callable[[Builder, list[int]], int], name: str = "f") -> Program:
    b = Builder(name)
    xs = [b.arg(f"x{i}", CT) for i in range(6)]
    return b.finish([body(b, xs)])


def two_products(b: Builder, x: list[int]) -> int:
    return b.add(b.mul(x[0], x[1]), b.mul(x[2], x[3]))


def six_products(b: Builder, x: list[int]) -> int:
    ps = [b.mul(x[i], x[j]) for i in range(4) for j in range(i + 1, 4)]
    acc = ps[0]
    for p in ps[1:]:
        acc = b.add(acc, p)
    return acc


def power_chain(b: Builder, x: list[int]) -> int:
    acc = x[0]
    for _ in range(5):
        acc = b.mul(acc, x[0])
    return acc


def mul_mul_rotate_add(b: Builder, x: list[int]) -> int:
    return b.add(b.rotate(b.mul(x[0], x[1]), 1), b.mul(x[2], x[3]))


def shared_sum(b: Builder, x: list[int]) -> int:
    # m feeds two sums that are both multiplied again: relinearizing m once beats
    # relinearizing lazily at each sum
    m = b.mul(x[0], x[1])
    s1, s2 = b.add(m, x[2]), b.add(m, x[3])
    return b.mul(b.mul(s1, x[4]), b.mul(s2, x[5]))


@pytest.mark.parametrize(
    "body,expected",
    [(two_products, 1), (six_products, 1), (power_chain, 5), (mul_mul_rotate_add, 2), (shared_sum, 4)],
)
def test_heir_relinearization_counts(body: Callable[[Builder, list[int]], int], expected: int) -> None:
    prog = build(body)
    out = P.place_relinearize(prog)
    assert P.count(out, "relinearize") == expected
    eager = sum(1 for i in prog.live() if prog.nodes[i].op == "mul")
    assert P.count(out, "relinearize") <= eager
    for scheme in ("bgv", "ckks"):
        managed = P.manage(prog, scheme)
        assert P.count(managed, "relinearize") == expected
        rep = P.check(managed, scheme, P.levels_needed(prog, scheme))
        assert rep.legal, rep.errors
        inputs = random_inputs(prog, 0)
        assert results_equal(evaluate(prog, inputs, 65537), evaluate(managed, inputs, 65537), 65537)


def test_checker_finds_errors() -> None:
    prog = build(power_chain)
    rep = P.check(prog, "bgv", 5)
    assert not rep.legal and any("relinearization" in e for e in rep.errors)
    # relinearized but not rescaled: CKKS rejects, BGV (levels only) accepts
    relin = P.place_relinearize(prog)
    assert P.check(relin, "bgv", 5).legal
    assert not P.check(relin, "ckks", 5).legal
    # too few levels for the managed program
    managed = P.manage(prog, "bgv")
    assert not P.check(managed, "bgv", 2).legal


def test_levels_are_matched() -> None:
    # x0^2 * x1: x1 must be switched down to x0^2's level
    prog = build(lambda b, x: b.mul(b.mul(x[0], x[0]), x[1]))
    for scheme, op in (("bgv", "modswitch"), ("ckks", "rescale")):
        managed = P.manage(prog, scheme)
        assert P.check(managed, scheme, 2).legal
        assert P.count(managed, op) >= 2
    ms = P.manage(prog, "bgv")
    assert P.check(ms, "bgv", 2).min_level == 0


def test_infeasible_levels_and_bootstrap() -> None:
    prog = build(power_chain)
    with pytest.raises(P.PlacementError):
        P.manage(prog, "bgv", max_level=3)
    with pytest.raises(P.PlacementError):
        P.manage(prog, "ckks", max_level=3)
    boot = P.manage(prog, "bgv", max_level=3, bootstrap=True)
    assert P.count(boot, "bootstrap") >= 1
    assert P.check(boot, "bgv", 3).legal
    inputs = random_inputs(prog, 1)
    assert results_equal(evaluate(prog, inputs, 65537), evaluate(boot, inputs, 65537), 65537)


def test_existing_management_is_replaced() -> None:
    prog = build(two_products)
    eager = P.insert_after(prog, {i for i in prog.live() if prog.nodes[i].op == "mul"}, "relinearize")
    assert P.count(eager, "relinearize") == 2
    assert P.count(P.place_relinearize(eager), "relinearize") == 1
