"""The extraction MILP's cycle inequalities (eqsat.milp_cuts) and its proof budget (eqsat.milp):
exact optima against brute force, the LP bound of a 2-cycle, a stalled proof never called optimal."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator

import highspy
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_milp_reduce import dag_cost, problems, reachable_pick, tree_start

from eqsat import milp, milp_cuts
from eqsat.milp import Cand, Problem, solve, topo_order


def acyclic_picks(pb: Problem, options: list[list[int | None]], roots: list[int]) -> Iterator[dict[int, int]]:
    """Every acyclic program for ``roots``, as class -> candidate: each choice of one option
    (None: no candidate) per class, kept when the roots reach only chosen classes and no cycle."""
    for pick in itertools.product(*options):
        chosen = {c: j for c, j in enumerate(pick) if j is not None}
        reached: dict[int, int] = {}
        stack = list(roots)
        ok = True
        while stack:
            c = stack.pop()
            if c in reached:
                continue
            if c not in chosen:
                ok = False
                break
            reached[c] = chosen[c]
            stack.extend(pb.cands[chosen[c]].children)
        if ok and topo_order(reached, pb) is not None:
            yield reached


def pruned_small(pb: Problem) -> tuple[list[list[int]], list[int]] | None:
    """``milp._prune``'s usable candidates and classes, when every program can be enumerated
    (at most 5,000 combinations of options); else None."""
    pr = milp._prune(pb)
    if pr is None or math.prod(1 + len(pr[0][c]) for c in range(pb.num_classes)) > 5_000:
        return None
    return pr


def brute_force(pb: Problem) -> float:
    """The least cost of an acyclic program for the roots (``acyclic_picks`` over every candidate)."""
    options: list[list[int | None]] = [[None] + [j for j, cd in enumerate(pb.cands) if cd.cls == c]
                                       for c in range(pb.num_classes)]
    return min((dag_cost(pb, reached) for reached in acyclic_picks(pb, options, list(pb.roots))), default=math.inf)


def simple_cycle_sets(succ: dict[int, list[int]]) -> set[frozenset[int]]:
    """The class sets of all simple cycles, by trying every ordering of every subset."""
    nodes = sorted(succ)
    out: set[frozenset[int]] = set()
    for r in range(1, len(nodes) + 1):
        for sub in itertools.combinations(nodes, r):
            for order in itertools.permutations(sub[1:]):
                cyc = (sub[0], *order)
                if all(cyc[(i + 1) % r] in succ[cyc[i]] for i in range(r)):
                    out.add(frozenset(cyc))
    return out


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 6), st.data())
def test_cycle_sets_list_every_cycle_when_complete(n: int, data: st.DataObject) -> None:
    # no self-loops: a candidate that is its own class's child never reaches the model
    succ = {c: sorted(set(data.draw(st.lists(st.integers(0, n - 1), max_size=3))) - {c}) for c in range(n)}
    comp = {c: 0 for c in range(n)}  # one component holding all (the listing reads only its edges)
    sets, complete = milp_cuts.cycle_sets(succ, comp)[0]
    want = {s for s in simple_cycle_sets(succ) if len(s) > 1}
    assert complete  # n <= MAX_CYCLE, few sets: the listing is complete
    assert want <= set(sets)
    assert set(sets) <= want | {frozenset(range(n))}


@settings(max_examples=150, deadline=None)
@given(problems(), st.integers(0, 2**16))
def test_exact_optimum_with_cycle_inequalities(pb: Problem, seed: int) -> None:
    """Against brute force: cycles occur in the random problems; components whose cycles are all
    listed have no ordering variables, so the inequalities alone keep the program acyclic."""
    if math.prod(1 + sum(cd.cls == c for cd in pb.cands) for c in range(pb.num_classes)) > 20_000:
        return
    best = brute_force(pb)
    for warm in (None, tree_start(pb, seed) or None):
        sol = solve(pb, with_noise=False, warm=warm, proof_stall_s=math.inf)
        if not math.isfinite(best):
            assert sol.status == "infeasible"
            continue
        assert sol.status == "optimal" and sol.info["proven"] is True
        chosen = reachable_pick(pb, sol.pick)
        assert topo_order(chosen, pb) is not None
        assert dag_cost(pb, chosen) == pytest.approx(best, abs=1e-6)


def _lp_bound(pb: Problem) -> float:
    """The LP relaxation of the model ``solve`` builds (captured before HiGHS runs)."""
    seen: list[milp.Milp] = []
    real = milp.Milp.solve

    def capture(self: milp.Milp, *args: object, **kw: object) -> object:
        seen.append(self)
        return real(self, *args, **kw)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(milp.Milp, "solve", capture)
        solve(pb, with_noise=False)
    m = seen[0]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(_lp(m))
    h.run()
    return float(h.getInfo().objective_function_value)


def _lp(m: milp.Milp) -> highspy.HighsLp:
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = len(m.lb), len(m.row_lo)
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = np.array(m.cost), np.array(m.lb), np.array(m.ub)
    lp.row_lower_, lp.row_upper_ = np.array(m.row_lo), np.array(m.row_hi)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.array(m.starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(m.index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(m.value)
    return lp


def test_two_cycle_is_not_half_paid() -> None:
    """a = b + r or a = s (dear), b = a - r: the big-M ordering let the LP take a at 1/2 from b
    and b at 1/2 from a (bound 2.5 here); the cycle inequality leaves only a = s."""
    x, r, a, b, s = range(5)
    cands = [Cand(x, 0.0, (), "plain", 0.0, 0), Cand(r, 2.0, (x,), "plain", 0.0, 1),
             Cand(a, 1.0, (b, r), "plain", 0.0, 2), Cand(a, 1.0, (s,), "plain", 0.0, 3),
             Cand(b, 1.0, (a, r), "plain", 0.0, 4), Cand(s, 9.0, (x,), "plain", 0.0, 5)]
    pb = Problem(5, [True] * 5, cands, [a])
    assert _lp_bound(pb) == pytest.approx(10.0)
    sol = solve(pb, with_noise=False)
    assert sol.status == "optimal" and sol.info["objective"] == pytest.approx(10.0)


def _shared_sums(n: int, seed: int) -> tuple[Problem, dict[int, int]]:
    """A problem whose proof needs the branch-and-bound search: ``n`` classes over one input,
    each the combination of two lower classes or a rotation-like step of the input (the steps
    share a cost), and a start built bottom-up."""
    rnd = random.Random(seed)
    cands: list[Cand] = [Cand(0, 0.0, (), "plain", 0.0, 0)]
    steps: list[int] = []
    for c in range(1, n):
        for _ in range(2):
            kids = (rnd.randrange(c), rnd.randrange(c))
            cands.append(Cand(c, float(rnd.randint(1, 3)), kids, "plain", 0.0, len(cands)))
        steps.append(len(cands))
        cands.append(Cand(c, float(rnd.randint(8, 12)), (0,), "plain", 0.0, len(cands)))
    pb = Problem(n, [True] * n, cands, [n - 1, n - 2, n - 3], [(10.0, tuple(steps))])
    return pb, tree_start(pb, seed)


def test_proof_budget_stops_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(milp, "BNB_MAX_CLASSES", 0)  # the MILP's proof budget, not the exact search's
    pb, warm = _shared_sums(60, 1)
    full = solve(pb, with_noise=False, warm=warm, proof_stall_s=math.inf)
    quick = solve(pb, with_noise=False, warm=warm, proof_stall_s=0.0)
    assert full.status == "optimal" and full.info["proven"] is True and full.info["gap"] == 0.0
    assert quick.status == "stalled" and quick.info["proven"] is False and quick.info["gap"] > 0.0
    assert quick.info["objective"] >= full.info["objective"] - 1e-6
    assert topo_order(reachable_pick(pb, quick.pick), pb) is not None


@settings(max_examples=60, deadline=None)
@given(problems(), st.integers(0, 2**16))
def test_a_stalled_proof_is_never_called_optimal(pb: Problem, seed: int) -> None:
    """With no proof budget at all (0 s), a solve that is not finished by presolve stops at its
    first chance: it is then "stalled", not proven, and its program is still a valid one no
    cheaper than the optimum; a proven one is the optimum."""
    warm = tree_start(pb, seed)
    full = solve(pb, with_noise=False, warm=warm or None, proof_stall_s=math.inf)
    quick = solve(pb, with_noise=False, warm=warm or None, proof_stall_s=0.0)
    assert quick.status in ("optimal", "stalled", "infeasible")
    if full.status != "optimal":
        return
    chosen = reachable_pick(pb, quick.pick)
    assert topo_order(chosen, pb) is not None
    if quick.status == "optimal":
        assert quick.info["proven"] is True
        assert dag_cost(pb, chosen) == pytest.approx(full.info["objective"], abs=1e-6)
    else:
        assert quick.info["proven"] is False and quick.info["gap"] >= 0.0
        assert dag_cost(pb, chosen) >= full.info["objective"] - 1e-6
