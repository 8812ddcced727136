"""Relinearization without the ILP where its optimum is determined (``_cut_points``): forced
relinearizations, a unique minimum vertex cut, forest parts at their roots; the ILP elsewhere."""

from __future__ import annotations

import random

import pytest

from eqsat import mgmt as P
from eqsat.ir import Builder, Program, Type
from eqsat.mgmt import relinearize as R

CT = Type((8,), "i16", True)
PT = Type((8,), "i16", False)


def no_ilp(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(prog: Program, time_limit: float) -> set[int]:
        raise AssertionError("the ILP was built")

    monkeypatch.setattr(R, "_ilp_points", fail)


def reduce_add_and_mul(n: int = 4) -> tuple[Program, list[int], int]:
    """rr_reduce_add_and_mul_32's shape: a product chain where each product is rotated and
    multiplied again (forced), the last one added to a sum of rotations and extracted."""
    b = Builder("f")
    x = b.arg("x", CT)
    acc = b.add(b.rotate(x, 1), x)
    for k in (2, 4, 8):
        acc = b.add(acc, b.rotate(acc, k))
    p = b.mul(b.rotate(x, 1), x)
    forced = []
    for k in range(n):
        forced.append(p)
        p = b.mul(p, b.rotate(p, 2 ** (k + 1)))
    total = b.add(acc, p)
    return b.finish([b.extract(total, 0)]), forced, total


def test_forced_products_and_a_sum_without_the_ilp(monkeypatch: pytest.MonkeyPatch) -> None:
    prog, forced, total = reduce_add_and_mul()
    assert R._forest_points(prog) is None  # products read twice: not the forest case
    want = R._ilp_points(prog, 10.0)
    assert len(want) == len(forced) + 1
    no_ilp(monkeypatch)
    got = P.relinearize_points(prog)
    # the forced products, and the sum the last product reaches the extraction through (a tie
    # with the product itself, taken at the root as _forest_points does)
    assert got == set(forced) | {total}
    managed = P.manage(prog, "bgv")
    assert P.count(managed, "relinearize") == len(forced) + 1
    assert P.check(managed, "bgv", P.levels_needed(prog, "bgv")).legal


def test_unique_cut_is_the_ilps(monkeypatch: pytest.MonkeyPatch) -> None:
    # m = x0 * x1 rotated (forced); q = x2 * x3 read by two sums each multiplied again (one
    # relinearization of q, not one per sum); the two products added and rotated (one of the
    # sum, not one per product): each the only minimum cut, so the ILP's too
    b = Builder("f")
    x = [b.arg(f"x{i}", CT) for i in range(4)]
    m = b.mul(x[0], x[1])
    q = b.mul(x[2], x[3])
    s1, s2 = b.add(q, x[0]), b.add(q, x[1])
    out = b.add(b.mul(s1, x[2]), b.mul(s2, x[3]))
    prog = b.finish([b.add(b.rotate(out, 1), b.rotate(m, 1))])
    want = R._ilp_points(prog, 10.0)
    no_ilp(monkeypatch)
    assert R._cut_points(prog) == want == {m, q, out}


def test_ambiguous_part_that_is_no_forest_goes_to_the_ilp() -> None:
    # x^2 read by a plaintext product (on to the result) and by a modswitch (on to a product):
    # {x^2, p}, {x^2, result} and {modswitch, result} are all optimal, and x^2 is read twice
    b = Builder("f")
    x = b.arg("x", CT)
    sq = b.mul(x, x)
    p = b.mul(b.unary("modswitch", sq), b.unary("modswitch", x))
    prog = b.finish([b.add(b.mul(sq, b.const(3, PT)), p)])
    assert R._cut_points(prog) is None
    assert len(P.relinearize_points(prog)) == 2


def test_too_big_goes_to_the_ilp(monkeypatch: pytest.MonkeyPatch) -> None:
    prog, _, _ = reduce_add_and_mul()
    monkeypatch.setattr(R, "CUT_MAX_NODES", 1)
    assert R._cut_points(prog) is None


def test_too_long_a_search_goes_to_the_ilp(monkeypatch: pytest.MonkeyPatch) -> None:
    prog, _, _ = reduce_add_and_mul()
    assert R._cut_points(prog) is not None
    monkeypatch.setattr(R, "CUT_MAX_WORK", 2)
    assert R._cut_points(prog) is None
    assert len(P.relinearize_points(prog)) == 5  # the ILP's answer


def degrees_legal(prog: Program) -> bool:
    """No degree-3 value reaches a product, an op of NEEDS_LINEAR or a result."""
    deg3: set[int] = set()
    for i in prog.live():
        n = prog.nodes[i]
        if n.op == "relinearize" or not n.type.secret:
            continue
        hot = any(a in deg3 for a in n.args)
        if P.is_ct_mul(prog, i) or n.op in R.NEEDS_LINEAR:
            if hot:
                return False
            if P.is_ct_mul(prog, i):
                deg3.add(i)
        elif hot:
            deg3.add(i)
    return not deg3 & set(prog.results)


def random_program(rng: random.Random) -> Program:
    b = Builder("f")
    vals = [b.arg(f"x{i}", CT) for i in range(rng.randint(1, 3))]
    c = b.const(3, PT)
    for _ in range(rng.randint(2, 16)):
        x, y = rng.choice(vals), rng.choice(vals)
        r = rng.random()
        if r < 0.35:
            v = b.mul(x, y)
        elif r < 0.65:
            v = b.add(x, y)
        elif r < 0.72:
            v = b.sub(x, y)
        elif r < 0.8:
            v = b.mul(x, c)
        elif r < 0.88:
            v = b.rotate(x, rng.randint(1, 7))
        elif r < 0.92:
            v = b.neg(x)
        else:
            v = b.unary("modswitch", x)
        vals.append(v)
    tail = vals[-6:]
    return b.finish(rng.sample(tail, rng.randint(1, min(2, len(tail)))))


@pytest.mark.parametrize("seed", range(6))
def test_random_programs_match_the_ilp(seed: int) -> None:
    """Always as few relinearizations as the ILP, a legal placement, and the ILP's own set
    where the minimum cut is unique (no forest part left to the root rule)."""
    rng = random.Random(seed)
    decided = same = 0
    for _ in range(60):
        prog = random_program(rng)
        if rng.random() < 0.5:
            prog = P.place_modswitch(prog)
        if not any(P.is_ct_mul(prog, i) for i in prog.live()):
            continue
        cut = R._cut_points(prog)
        if cut is None:
            continue
        want = R._ilp_points(prog, 10.0)
        assert len(cut) == len(want)
        assert degrees_legal(P.insert_after(prog, cut, "relinearize"))
        decided += 1
        same += cut == want
    assert decided >= 30 and same >= decided // 2
