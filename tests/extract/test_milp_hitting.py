"""The extraction MILP's hitting-set inequalities (eqsat.milp_hitting): every set listed for a
class meets every acyclic program of that class (brute force over random problems), also with LP
weights and when a cycle's sweeps are cut short; and the 8-slot-sum pattern yields its pair."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_milp_cuts import acyclic_picks, pruned_small
from test_milp_reduce import problems

from eqsat import milp, milp_contract, milp_hitting
from eqsat.milp import Cand, Problem


def programs(pb: Problem, usable: list[list[int]], d: int) -> list[frozenset[int]]:
    """The class sets of all acyclic programs of ``d`` over the usable candidates."""
    options: list[list[int | None]] = [[None, *usable[c]] for c in range(pb.num_classes)]
    return sorted({frozenset(reached) for reached in acyclic_picks(pb, options, [d])}, key=sorted)


def check(pb: Problem, weights: dict[int, float] | None) -> None:
    pr = pruned_small(pb)
    if pr is None:
        return
    usable, classes = pr
    sets = milp_hitting.hitting_sets(pb, usable, classes, weights)
    for d, family in sets.items():
        progs = programs(pb, usable, d)
        for s in family:
            assert d not in s or len(s) > 1
            for p in progs:
                assert s & p, (d, sorted(s), sorted(p))


@settings(max_examples=200, deadline=None)
@given(problems())
def test_every_set_meets_every_program(pb: Problem) -> None:
    check(pb, None)


@settings(max_examples=100, deadline=None)
@given(problems(), st.lists(st.floats(0.0, 1.0), min_size=8, max_size=8))
def test_with_weights_and_short_sweeps(pb: Problem, w: list[float]) -> None:
    saved = milp_hitting.MAX_SWEEPS, milp_hitting.MAX_SETS
    milp_hitting.MAX_SWEEPS, milp_hitting.MAX_SETS = 1, 3  # cycles settled from an unfinished iteration
    try:
        check(pb, {c: w[c % len(w)] for c in range(pb.num_classes)})
    finally:
        milp_hitting.MAX_SWEEPS, milp_hitting.MAX_SETS = saved


def test_slot_pair_of_a_sum() -> None:
    """r = a + b (vector) or s + t (scalars); a needs rot(x) and s = ext(rot(x)) or ext_k(x):
    every program holds rot(x) or s -- the pair the LP's fractional sharing violates."""
    x, rot, a, s, r = range(5)
    cands = [
        Cand(x, 0.0, (), "plain", 0.0, 0),
        Cand(rot, 17.0, (x,), "plain", 0.0, 1),
        Cand(a, 1.0, (x, rot), "plain", 0.0, 2),
        Cand(s, 0.0, (rot,), "plain", 0.0, 3),
        Cand(s, 19.0, (x,), "plain", 0.0, 4),
        Cand(r, 0.0, (a,), "plain", 0.0, 5),
        Cand(r, 1.0, (x, s), "plain", 0.0, 6),
    ]
    pb = Problem(5, [True] * 5, cands, [r])
    usable, classes = milp._prune(pb) or ([], [])
    assert frozenset({rot, s}) in milp_hitting.hitting_sets(pb, usable, classes)[r]


def _two_ways() -> Problem:
    """Classes x, r, a, s (positions 0-3); a = x + r (r = rot x, cost 5 + 1) or a = f(s)
    (s from x, cost 4 + 9): a tree without sharing, optimum 6."""
    x, r, a, s = range(4)
    cands = [
        Cand(x, 0.0, (), "plain", 0.0, 0),
        Cand(r, 5.0, (x,), "plain", 0.0, 1),
        Cand(a, 1.0, (x, r), "plain", 0.0, 2),
        Cand(a, 9.0, (s,), "plain", 0.0, 3),
        Cand(s, 4.0, (x,), "plain", 0.0, 4),
    ]
    return Problem(4, [True] * 4, cands, [a])


def test_a_relaxation_meeting_the_start_skips_the_search() -> None:
    """A tree without sharing: the LP is exact, so the greedy start's cost is proven by the
    relaxation and no branch-and-bound runs (``solver`` "lp"); the pick is the start's."""
    pb = _two_ways()
    x, r, a, s = range(4)
    sol = milp.solve(pb, with_noise=False, warm={x: 0, r: 1, a: 2, s: 4}, proof_stall_s=math.inf)
    assert sol.status == "optimal" and sol.info["proven"] is True
    assert sol.info["objective"] == 6.0 and sol.pick == {x: 0, r: 1, a: 2}


def test_cutoff_counts_only_cheaper_solutions() -> None:
    """min 2u + 3v + 2.5w, u + v + w >= 1, u + w <= 1: 2 (u); from the start v (3), a cutoff at
    2.2 finds u, one at 1.5 leaves nothing (HiGHS handed back the start, called optimal at 2)."""
    for cutoff, want in ((2.2, "optimal"), (1.5, "infeasible")):
        m = milp.Milp()
        u, v, w = m.var(0.0, 1.0, 2.0, True), m.var(0.0, 1.0, 3.0, True), m.var(0.0, 1.0, 2.5, True)
        m.row({u: 1.0, v: 1.0, w: 1.0}, 1.0, math.inf)
        m.row({u: 1.0, w: 1.0}, 0.0, 1.0)
        status, sol, obj, _ = m.solve(10.0, [0.0, 1.0, 0.0], cutoff=cutoff)
        assert status == want
        if want == "optimal":
            assert obj == 2.0 and sol is not None and sol[u] == 1.0
        else:
            assert sol is None
    assert m.feasible([1.0, 0.0, 0.0]) and not m.feasible([0.0, 0.0, 0.0]) and not m.feasible([0.5, 0.5, 0.0])


def test_a_cheaper_second_start_restarts_the_solve() -> None:
    """The second start is asked for only when the start is not proven without a search; a
    cheaper one restarts the solve from it (info ``second_start`` True), a dearer one does not,
    and the optimum is the same either way."""
    pb = _two_ways()
    x, r, a, s = range(4)
    best, worse = {x: 0, r: 1, a: 2}, {x: 0, a: 3, s: 4}
    asked: list[int] = []
    for warm, second, used in ((worse, best, True), (worse, worse, False), (best, worse, None)):
        asked.clear()

        def other(kept: set[int], second: dict[int, int] = second) -> dict[int, int]:
            assert set(second.values()) <= kept or second is worse  # the reductions keep the optimum
            asked.append(1)
            return second

        with pytest.MonkeyPatch.context() as mp:
            # on the model as built: the contraction merges r and s into a's two alternatives,
            # where dominance alone settles it (tests/extract/test_milp_contract.py)
            mp.setattr(milp_contract, "contract", lambda _pb: None)
            mp.setattr(milp, "BNB_MAX_CLASSES", 0)  # the MILP's second start, not the exact search
            sol = milp.solve(pb, with_noise=False, warm=warm, proof_stall_s=math.inf, second_start=other)
        assert sol.status == "optimal" and sol.info["objective"] == 6.0 and sol.pick == best
        assert sol.info.get("second_start") is used and len(asked) == (0 if used is None else 1)
