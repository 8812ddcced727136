"""The extraction MILP's cost covers (eqsat.milp_cover): every acyclic program of a class pays at
least a cover's K within its items (brute force over random problems, also when a cycle's sweeps
are cut short), the roots' bound is at most the optimum, the optimum is the same with and without
the covers, and a chain of additions is bounded by the sum of its extractions."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_milp_cuts import acyclic_picks, brute_force, pruned_small
from test_milp_reduce import dag_cost, problems, same_solve_without

from eqsat import milp, milp_bnb, milp_cover
from eqsat.milp import Cand, Problem, solve


def paid(pb: Problem, program: dict[int, int], items: frozenset[int]) -> float:
    """What ``program`` (class -> candidate) pays within ``items`` (classes and groups)."""
    n = pb.num_classes
    chosen = set(program.values())
    total = sum(pb.cands[j].cost for c, j in program.items() if c in items)
    return total + sum(cost for g, (cost, members) in enumerate(pb.setups)
                       if n + g in items and chosen.intersection(members))


def check(pb: Problem) -> None:
    pr = pruned_small(pb)
    if pr is None:
        return
    usable, classes = pr
    covers = milp_cover.cover(pb, usable, classes)
    assert covers is not None  # the random costs are non-negative
    options: list[list[int | None]] = [[None, *usable[c]] for c in range(pb.num_classes)]
    for d, made in covers.of.items():
        assert len(made) == len(milp_cover.EXCLUSIONS)
        for program in acyclic_picks(pb, options, [d]):
            for mask, k in made:
                items = covers.items(mask)
                assert paid(pb, program, items) >= k - 1e-9, (d, sorted(items), k, program)
    best = min((dag_cost(pb, p) for p in acyclic_picks(pb, options, list(pb.roots))), default=math.inf)
    assert covers.roots_bound(pb.roots) <= best + 1e-9


@settings(max_examples=200, deadline=None)
@given(problems())
def test_every_program_pays_its_cover(pb: Problem) -> None:
    check(pb)


@settings(max_examples=100, deadline=None)
@given(problems())
def test_covers_hold_after_one_sweep(pb: Problem) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(milp_cover, "SWEEPS", 1)  # a cycle's covers before they settle
        check(pb)


@settings(max_examples=150, deadline=None)
@given(problems(), st.integers(0, 2**16))
def test_same_optimum_with_and_without_covers(pb: Problem, seed: int) -> None:
    got = same_solve_without(pb, seed, milp_cover, "cover", lambda *_a: None)
    if got.status == "optimal":
        assert got.info["objective"] == pytest.approx(brute_force(pb), abs=1e-6)


def _chain() -> Problem:
    """r = a + e3, a = e1 + e2 (1 each), e_k = ext_k(x) (5) or ext_0(rot_k x) (rot: 3 + a
    setup of 2 shared by the rotations of x): optimum 2 + 3 * 3 + 2 = 13, the longest chain 8."""
    x, e1, e2, e3, a, r, r1, r2, r3 = range(9)
    cands = [Cand(x, 0.0, (), "plain", 0.0, 0)]
    for e, rot in ((e1, r1), (e2, r2), (e3, r3)):
        cands.append(Cand(e, 5.0, (x,), "plain", 0.0, len(cands)))
        cands.append(Cand(e, 0.0, (rot,), "plain", 0.0, len(cands)))
        cands.append(Cand(rot, 3.0, (x,), "plain", 0.0, len(cands)))
    cands.append(Cand(a, 1.0, (e1, e2), "plain", 0.0, len(cands)))
    cands.append(Cand(r, 1.0, (a, e3), "plain", 0.0, len(cands)))
    rots = tuple(j for j, cd in enumerate(cands) if cd.cls in (r1, r2, r3))
    return Problem(9, [True] * 9, cands, [r], [(2.0, rots)])


def test_a_chain_pays_every_extraction() -> None:
    """The path bound of eqsat.milp_reduce follows one child (8); the cover sums the extractions
    of disjoint items, the shared setup counted once: the optimum 13, proven without a solve."""
    pb = _chain()
    usable, classes = milp._prune(pb) or ([], [])
    covers = milp_cover.cover(pb, usable, classes)
    assert covers is not None and covers.roots_bound(pb.roots) == 13.0 == brute_force(pb)
    warm = {cd.cls: j for j, cd in enumerate(pb.cands)}  # the last candidate of each class: the rotations
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(milp, "BNB_MAX_CLASSES", 0)  # not the exact search, which asks for the bound late
        sol = solve(pb, with_noise=False, warm=warm)
    assert sol.status == "optimal" and sol.info["objective"] == 13.0 and sol.info["solver"] == "bound"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(milp_bnb, "FLOOR_AFTER", 1)  # the search, asking for the bound at once
        sol = solve(pb, with_noise=False, warm=warm)
    assert sol.info["objective"] == 13.0 and sol.info["solver"] == "bnb" and sol.info["bnb_nodes"] == 1


def test_negative_costs_give_no_cover() -> None:
    pb = Problem(2, [True, True], [Cand(0, 0.0, (), "plain", 0.0, 0), Cand(1, -1.0, (0,), "plain", 0.0, 1)], [1])
    usable, classes = milp._prune(pb) or ([], [])
    assert milp_cover.cover(pb, usable, classes) is None
