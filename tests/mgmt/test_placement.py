"""BGV/CKKS management placement: HEIR's relinearization cases, levels, the checker."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest

from eqsat import mgmt as P
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


# -- bootstraps chosen by an ILP --------------------------------------------------------------
def random_mul_dag(seed: int, n_ops: int = 9) -> Program:
    """A small random DAG of ct x ct muls, adds and plaintext muls over two inputs."""
    rng = random.Random(seed)
    b = Builder(f"d{seed}")
    vals = [b.arg(f"x{i}", CT) for i in range(2)]
    for _ in range(n_ops):
        x, y = rng.choice(vals[-4:]), rng.choice(vals)
        r = rng.random()
        if r < 0.55:
            vals.append(b.mul(x, y))
        elif r < 0.75:
            vals.append(b.mul(x, b.const(3, CT.with_secret(False))))
        else:
            vals.append(b.add(x, y))
    return b.finish([vals[-1]])


def fits_with(prog: Program, scheme: str, max_level: int, boots: tuple[int, ...]) -> bool:
    """Does the program with bootstraps after ``boots`` level-check within ``max_level``?"""
    placed = P.insert_after(prog, set(boots), "bootstrap")
    try:
        fn = P.place_modswitch if scheme == "bgv" else P.place_rescale
        leveled = fn(placed, max_level, fixed_bootstraps=True)
    except P.PlacementError:
        return False
    relin = P.insert_after(leveled, P.relinearize_points(leveled), "relinearize")
    return P.check(relin, scheme, max_level).legal


def brute_min_bootstraps(prog: Program, scheme: str, max_level: int) -> int:
    secret = [i for i in prog.live() if prog.nodes[i].type.secret and prog.nodes[i].op != "input"]
    for k in range(len(secret) + 1):
        if any(fits_with(prog, scheme, max_level, boots) for boots in itertools.combinations(secret, k)):
            return k
    raise AssertionError("no placement at all")


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
@pytest.mark.parametrize("seed", range(8))
def test_bootstrap_count_is_minimal(scheme: str, seed: int) -> None:
    prog = random_mul_dag(seed, n_ops=10)
    need = P.levels_needed(prog, scheme)
    max_level = max(1, need // 2)
    managed = P.manage(prog, scheme, max_level, bootstrap=True)
    assert P.check(managed, scheme, max_level).legal
    got = P.count(managed, "bootstrap")
    assert got == brute_min_bootstraps(prog, scheme, max_level)
    assert (got > 0) == (need > max_level)
    inputs = random_inputs(prog, seed)
    assert results_equal(evaluate(prog, inputs, 65537), evaluate(managed, inputs, 65537), 65537)


def test_deep_chain_minimum_bootstraps() -> None:
    # x^(2^9) by 9 squarings within 2 levels: one bootstrap every 2 squarings after the first 2 -> 4
    b = Builder("sq")
    acc = b.arg("x", CT)
    for _ in range(9):
        acc = b.mul(acc, acc)
    prog = b.finish([acc])
    for scheme in ("bgv", "ckks"):
        managed = P.manage(prog, scheme, 2, bootstrap=True)
        assert P.count(managed, "bootstrap") == 4
        assert P.check(managed, scheme, 2).legal


def test_no_bootstrap_means_located_error() -> None:
    prog = build(power_chain)
    with pytest.raises(P.PlacementError, match=r"value %\d+ \(mul\) needs 4 levels"):
        P.manage(prog, "bgv", max_level=3)
    assert P.bootstrap_points(prog, "bgv", 5) == set()


# -- CKKS lazy rescale ----------------------------------------------------------------------
def dot4(b: Builder, x: list[int]) -> int:
    return b.add(b.add(b.mul(x[0], x[1]), b.mul(x[2], x[3])), b.add(b.mul(x[4], x[5]), b.mul(x[0], x[5])))


def sum_of_products_then_square(b: Builder, x: list[int]) -> int:
    s = b.add(b.mul(x[0], x[1]), b.mul(x[2], b.const(2, CT.with_secret(False))))
    return b.mul(s, s)


def mixed_sum(b: Builder, x: list[int]) -> int:
    # a product added to a fresh value must be rescaled first: lazy == eager here
    return b.add(b.mul(x[0], x[1]), x[2])


@pytest.mark.parametrize(
    "body,lazy,eager",
    [(dot4, 1, 4), (six_products, 1, 6), (sum_of_products_then_square, 2, 3), (mixed_sum, 1, 1),
     (power_chain, 5, 5)],
)
def test_lazy_rescale(body: Callable[[Builder, list[int]], int], lazy: int, eager: int) -> None:
    prog = build(body)
    lv = P.levels_needed(prog, "ckks")
    lazy_prog = P.manage(prog, "ckks")
    eager_prog = P.manage(prog, "ckks", lazy_rescale=False)
    assert (P.count(lazy_prog, "rescale"), P.count(eager_prog, "rescale")) == (lazy, eager)
    for managed in (lazy_prog, eager_prog):
        rep = P.check(managed, "ckks", lv)
        assert rep.legal, rep.errors
        inputs = random_inputs(prog, 0)
        assert results_equal(evaluate(prog, inputs, 65537), evaluate(managed, inputs, 65537), 65537)


def test_checker_rejects_unequal_scales() -> None:
    prog = build(mixed_sum)
    relin = P.place_relinearize(prog)  # no rescale at all: x0*x1 at Delta^2 meets x2 at Delta
    rep = P.check(relin, "ckks", 1)
    assert any("different scales" in e for e in rep.errors)


def _ops_in_order(prog: Program) -> list[str]:
    return [prog.nodes[i].op for i in prog.live() if prog.nodes[i].op not in ("input",)]


def test_relinearize_comes_before_modswitch() -> None:
    """x^8 by squarings: every product is relinearized before its modulus is switched."""
    def pow8(b: Builder, x: list[int]) -> int:
        y = x[0]
        for _ in range(3):
            y = b.mul(y, y)
        return y

    prog = build(pow8)
    out = P.manage(prog, "bgv")
    for i in out.live():
        n = out.nodes[i]
        if n.op == "modswitch":
            assert out.nodes[n.args[0]].op != "mul", _ops_in_order(out)
    ops = _ops_in_order(out)
    assert ops.count("relinearize") == 3 and ops.count("mul") == 3
    assert P.check(out, "bgv", P.levels_needed(prog, "bgv")).legal
    inputs = random_inputs(prog, 1)
    assert results_equal(evaluate(prog, inputs, 65537), evaluate(out, inputs, 65537), 65537)


def test_relinearize_first_keeps_counts_and_values() -> None:
    b = Builder("f")
    x = b.arg("x", CT)
    m = b.mul(x, x)
    r = b.unary("relinearize", b.unary("modswitch", b.unary("modswitch", m)))
    prog = b.finish([b.add(r, x)])
    out = P.relinearize_first(prog)
    assert sorted(_ops_in_order(out)) == sorted(_ops_in_order(prog))
    relin = next(i for i in out.live() if out.nodes[i].op == "relinearize")
    assert out.nodes[out.nodes[relin].args[0]].op == "mul"
    inputs = random_inputs(prog, 2)
    assert results_equal(evaluate(prog, inputs, 65537), evaluate(out, inputs, 65537), 65537)
