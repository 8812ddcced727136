"""The extraction MILP's safe reductions (eqsat.milp_reduce): same optimum, acyclic result."""

from __future__ import annotations

import heapq
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat import milp, milp_reduce
from eqsat.milp import Cand, Problem, Solution, solve, topo_order


def _no_reduction(pb, prune, **_kw):  # type: ignore[no-untyped-def]
    usable, classes = prune(frozenset())
    return milp_reduce.Reduction({}, -math.inf, 0, 0), usable, classes


@st.composite
def problems(draw: st.DrawFn, noisy: bool = False) -> Problem:
    """Random extraction problems: classes with 1-3 candidates whose children are any classes
    (so cycles occur), a leaf in some classes, costs 0-6, and shared costs: rotation-like (one
    group per class of candidates whose only child is that class) and one of any candidates."""
    k = draw(st.integers(2, 8))
    cands: list[Cand] = []
    kinds = ["max", "sum"]
    for c in range(k):
        if c == 0 or draw(st.booleans()):
            cands.append(Cand(c, float(draw(st.integers(0, 6))), (), "fresh" if noisy else "plain", 0.0, len(cands)))
        for _ in range(draw(st.integers(0 if c else 1, 3))):
            kids = tuple(draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=3)))
            kind = draw(st.sampled_from(kinds)) if noisy else "plain"
            inc = float(draw(st.integers(0, 3))) if noisy else 0.0
            cands.append(Cand(c, float(draw(st.integers(0, 6))), kids, kind, inc, len(cands)))
    groups: dict[int, list[int]] = {}
    for j, cd in enumerate(cands):
        if len(set(cd.children)) == 1 and cd.children[0] != cd.cls:
            groups.setdefault(cd.children[0], []).append(j)
    setups: list[tuple[float, tuple[int, ...]]] = []
    for members in groups.values():
        if len(members) >= 2 and draw(st.booleans()):
            s = min(cands[j].cost for j in members)
            if s > 0:
                for j in members:
                    cd = cands[j]
                    cands[j] = Cand(cd.cls, cd.cost - s, cd.children, cd.kind, cd.inc, cd.ref)
                setups.append((s, tuple(members)))
    if draw(st.booleans()):  # and a group of any candidates (no common child)
        members = sorted(set(draw(st.lists(st.integers(0, len(cands) - 1), min_size=2, max_size=4))))
        s = min(cands[j].cost for j in members)
        if len(members) >= 2 and s > 0:
            for j in members:
                cd = cands[j]
                cands[j] = Cand(cd.cls, cd.cost - s, cd.children, cd.kind, cd.inc, cd.ref)
            setups.append((s, tuple(members)))
    roots = sorted(set(draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=2))))
    return Problem(k, [True] * k, cands, roots, setups)


def tree_start(pb: Problem, seed: int) -> dict[int, int]:
    """An acyclic start, mostly not optimal: classes take a candidate bottom-up (each class the
    first of its candidates whose children all have one), in an order shuffled by ``seed``."""
    rnd = random.Random(seed)
    best: dict[int, tuple[float, int]] = {}
    heap = [(rnd.random(), j) for j, cd in enumerate(pb.cands) if not cd.children]
    heapq.heapify(heap)
    users: dict[int, list[int]] = {}
    for j, cd in enumerate(pb.cands):
        for ch in set(cd.children):
            users.setdefault(ch, []).append(j)
    while heap:
        v, j = heapq.heappop(heap)
        c = pb.cands[j].cls
        if c in best:
            continue
        best[c] = (v, j)
        for u in users.get(c, ()):
            cd = pb.cands[u]
            if cd.cls not in best and cd.cls not in cd.children and all(ch in best for ch in cd.children):
                heapq.heappush(heap, (v + rnd.random(), u))
    return {c: j for c, (_, j) in best.items()}


def reachable_pick(pb: Problem, pick: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    stack = list(pb.roots)
    while stack:
        c = stack.pop()
        if c not in out:
            out[c] = pick[c]
            stack.extend(pb.cands[pick[c]].children)
    return out


def dag_cost(pb: Problem, pick: dict[int, int]) -> float:
    used = set(pick.values())
    return sum(pb.cands[j].cost for j in used) + sum(s for s, ms in pb.setups if any(j in used for j in ms))


def same_solve_without(pb: Problem, seed: int, module: object, name: str, off: object) -> Solution:
    """Solve ``pb`` (without noise, from a random tree start) with ``module.name`` replaced by
    ``off`` (the step switched off) and as it is; assert both give the same status and, when
    optimal, the same objective, by an acyclic program that costs it. The solution as it is.
    Both solve with the MILP (the exact search of ``eqsat.milp_bnb`` off), whose steps these are."""
    warm = tree_start(pb, seed)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(milp, "BNB_MAX_CLASSES", 0)
        with pytest.MonkeyPatch.context() as step:
            step.setattr(module, name, off)
            plain = solve(pb, with_noise=False, warm=warm or None)
        got = solve(pb, with_noise=False, warm=warm or None)
    assert got.status == plain.status
    if plain.status == "optimal":
        assert got.info["objective"] == pytest.approx(plain.info["objective"], abs=1e-6)
        chosen = reachable_pick(pb, got.pick)
        assert topo_order(chosen, pb) is not None  # a cyclic e-graph never gives a cyclic program
        assert dag_cost(pb, chosen) == pytest.approx(plain.info["objective"], abs=1e-6)
    return got


@settings(max_examples=150, deadline=None)
@given(problems(), st.integers(0, 2**16))
def test_same_optimum_with_and_without_reduction(pb: Problem, seed: int) -> None:
    same_solve_without(pb, seed, milp_reduce, "reduce", _no_reduction)


@settings(max_examples=100, deadline=None)
@given(problems(noisy=True))
def test_same_optimum_with_noise(pb: Problem) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(milp_reduce, "reduce", _no_reduction)
        plain = solve(pb, with_noise=True, bounds=(0.0, 4.0))
    red = solve(pb, with_noise=True, bounds=(0.0, 4.0))
    assert red.status == plain.status
    if plain.status == "optimal":
        assert red.info["objective"] == pytest.approx(plain.info["objective"], abs=1e-6)
        assert topo_order(reachable_pick(pb, red.pick), pb) is not None


def test_dominated_sibling_is_dropped_and_the_start_follows() -> None:
    # class 2 = f(0, 1) at cost 3 or g(0) at cost 2: g dominates f
    cands = [Cand(0, 1.0, (), "plain", 0.0, 0), Cand(1, 1.0, (), "plain", 0.0, 1),
             Cand(2, 3.0, (0, 1), "plain", 0.0, 2), Cand(2, 2.0, (0,), "plain", 0.0, 3)]
    pb = Problem(3, [True] * 3, cands, [2])
    usable, classes = milp._prune(pb) or ([], [])
    assert milp_reduce.dominated(pb, usable, classes, with_noise=False) == {2: 3}
    sol = solve(pb, with_noise=False, warm={0: 0, 1: 1, 2: 2})
    assert sol.status == "optimal" and sol.pick[2] == 3 and sol.info["objective"] == 3.0


def test_noise_rule_blocks_dominance() -> None:
    # the cheaper sibling adds more noise: with noise it must stay an alternative
    cands = [Cand(0, 0.0, (), "fresh", 0.0, 0),
             Cand(1, 3.0, (0,), "max", 0.0, 1), Cand(1, 1.0, (0,), "max", 2.0, 2)]
    pb = Problem(2, [True, True], cands, [1])
    usable, classes = milp._prune(pb) or ([], [])
    assert milp_reduce.dominated(pb, usable, classes, with_noise=True) == {}
    assert milp_reduce.dominated(pb, usable, classes, with_noise=False) == {1: 2}


def test_start_meeting_the_bound_skips_the_solver() -> None:
    # a chain x -> r1 = rot(x) -> r2 = rot(r1): the start costs what the path bound says
    cands = [Cand(0, 0.0, (), "plain", 0.0, 0), Cand(1, 5.0, (0,), "plain", 0.0, 1),
             Cand(2, 5.0, (1,), "plain", 0.0, 2), Cand(2, 20.0, (0,), "plain", 0.0, 3)]
    pb = Problem(3, [True] * 3, cands, [2])
    sol = solve(pb, with_noise=False, warm={0: 0, 1: 1, 2: 2})
    assert sol.status == "optimal" and sol.info["solver"] == "bound" and sol.info["objective"] == 10.0
    assert sol.info["pruned"] == 1  # the direct rotation costs 20 > 10
    assert reachable_pick(pb, sol.pick) == {2: 2, 1: 1, 0: 0}


def test_bound_cut_keeps_the_optimum() -> None:
    # a candidate whose path bound exceeds the start is dropped; one that could be cheaper is not
    cands = [Cand(0, 0.0, (), "plain", 0.0, 0), Cand(1, 4.0, (0,), "plain", 0.0, 1),
             Cand(2, 1.0, (1, 0), "plain", 0.0, 2), Cand(2, 9.0, (0,), "plain", 0.0, 3),
             Cand(2, 2.0, (0,), "plain", 0.0, 4)]
    pb = Problem(3, [True] * 3, cands, [2])
    red, usable, _classes = milp_reduce.reduce(
        pb, lambda drop: milp._prune(pb, drop) or ([], []), with_noise=False, incumbent=5.0, keep={0, 1, 2})
    assert 3 in red.dropped and 3 not in usable[2] and 4 in usable[2]
    sol = solve(pb, with_noise=False, warm={0: 0, 1: 1, 2: 2})
    assert sol.status == "optimal" and sol.info["objective"] == 2.0 and sol.pick[2] == 4


def test_negative_costs_are_left_to_the_solver() -> None:
    # the path bound needs non-negative costs: with a negative one nothing is dropped or skipped
    cands = [Cand(0, 0.0, (), "plain", 0.0, 0), Cand(1, -2.0, (0,), "plain", 0.0, 1),
             Cand(2, 1.0, (0,), "plain", 0.0, 2), Cand(2, 1.0, (1,), "plain", 0.0, 3)]
    pb = Problem(3, [True] * 3, cands, [2])
    sol = solve(pb, with_noise=False, warm={0: 0, 1: 1, 2: 2})  # not the exact search either (eqsat.milp_bnb)
    assert sol.info["solver"] == "highs" and sol.info["pruned"] == 0 and sol.info["bound"] is None
    assert sol.info["objective"] == pytest.approx(-1.0) and sol.pick[2] == 3


def test_a_solution_handed_back_matches_its_objective() -> None:
    """Found by ``test_same_optimum_with_and_without_reduction``: with the greedy start given,
    HiGHS reported the optimum 0 but handed back the start (cost 1); the solve is then repeated
    without it."""
    def cand(cls: int, cost: float, children: tuple[int, ...], ref: int) -> Cand:
        return Cand(cls=cls, cost=cost, children=children, kind="plain", inc=0.0, ref=ref)

    pb = Problem(num_classes=8, secret=[True] * 8, roots=[7], setups=[], cands=[
        cand(0, 1.0, (), 0), cand(0, 0.0, (0,), 1), cand(1, 0.0, (0,), 2), cand(1, 0.0, (2,), 3),
        cand(2, 0.0, (), 4), cand(3, 0.0, (), 5), cand(4, 1.0, (3,), 6), cand(4, 0.0, (0,), 7),
        cand(7, 0.0, (0,), 8), cand(7, 0.0, (1,), 9), cand(7, 0.0, (4,), 10)])
    sol = solve(pb, with_noise=False, warm=tree_start(pb, 0))
    assert sol.status == "optimal" and sol.info["objective"] == pytest.approx(0.0)
    assert dag_cost(pb, reachable_pick(pb, sol.pick)) == pytest.approx(0.0)


def prune_from_scratch(pb: Problem, drop: frozenset[int] = frozenset()) -> tuple[list[list[int]], list[int]] | None:
    """``milp._prune`` computed in one pass, nothing kept (main's before ``milp._Pruner``): the reference."""
    k = pb.num_classes
    cands = pb.cands
    by_class: list[list[int]] = [[] for _ in range(k)]
    # productive classes: those with a finite program (worklist over missing children)
    missing = [0] * len(cands)
    users: list[list[int]] = [[] for _ in range(k)]
    stack: list[int] = []
    for j, cd in enumerate(cands):
        if j in drop or cd.cls in cd.children or not math.isfinite(cd.cost):
            continue
        by_class[cd.cls].append(j)
        kids = set(cd.children)
        missing[j] = len(kids)
        if not kids:
            stack.append(j)
        for ch in kids:
            users[ch].append(j)
    productive = [False] * k
    while stack:
        j = stack.pop()
        c = cands[j].cls
        if productive[c]:
            continue
        productive[c] = True
        for u in users[c]:
            missing[u] -= 1
            if missing[u] == 0:
                stack.append(u)
    if not all(productive[r] for r in pb.roots):
        return None
    usable = [[j for j in by_class[c] if all(productive[ch] for ch in cands[j].children)] for c in range(k)]
    seen: set[int] = set()
    stack = list(pb.roots)
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        for j in usable[c]:
            stack.extend(cands[j].children)
    return usable, sorted(seen)


@settings(max_examples=200, deadline=None)
@given(st.one_of(problems(), problems(noisy=True)), st.integers(0, 2**16))
def test_one_pruner_for_many_drop_sets(pb: Problem, seed: int) -> None:
    # milp._Pruner keeps what does not depend on the drop set: each call is _prune from scratch
    rnd = random.Random(seed)
    pruner = milp._Pruner(pb)
    drop: set[int] = set()
    for _ in range(4):
        assert pruner(frozenset(drop)) == prune_from_scratch(pb, frozenset(drop))
        drop |= {j for j in range(len(pb.cands)) if rnd.random() < 0.25}


@settings(max_examples=200, deadline=None)
@given(st.one_of(problems(), problems(noisy=True)), st.booleans())
def test_one_index_for_every_round(pb: Problem, with_noise: bool) -> None:
    # milp_reduce.Index, made once and shared, reads as the problem itself: the same dominance,
    # path bounds (in the same order) and reduction as with an index made per call
    pr = milp._prune(pb)
    if pr is None:
        return
    usable, classes = pr
    index = milp_reduce.Index(pb)
    extra = milp_reduce._shared_on_path(pb)
    assert index.extra == extra
    for j, cd in enumerate(pb.cands):
        assert set(index.kids[j]) == set(cd.children) and len(index.kids[j]) == len(set(cd.children))
    assert milp_reduce.dominated(pb, usable, classes, with_noise, index) == milp_reduce.dominated(
        pb, usable, classes, with_noise)
    shared = milp_reduce.path_bounds(pb, usable, classes, extra, index)
    fresh = milp_reduce.path_bounds(pb, usable, classes, extra)
    assert [list(d.items()) for d in shared] == [list(d.items()) for d in fresh]
    warm = tree_start(pb, 1)
    known = milp._warm_cost(pb, warm, usable) if warm else None
    incumbent = None if with_noise or known is None else known[0]

    def prune(drop: frozenset[int]) -> tuple[list[list[int]], list[int]]:
        return milp._prune(pb, drop) or ([], [])

    a = milp_reduce.reduce(pb, prune, with_noise=with_noise, incumbent=incumbent, index=index)
    b = milp_reduce.reduce(pb, prune, with_noise=with_noise, incumbent=incumbent)
    assert a[0] == b[0] and a[1:] == b[1:]


@settings(max_examples=300, deadline=None)
@given(st.one_of(problems(), problems(noisy=True)), st.booleans(), st.integers(0, 2**16))
def test_nothing_left_dominated_after_the_rounds(pb: Problem, with_noise: bool, seed: int) -> None:
    # dominance runs in the first round only: whatever the later rounds drop, no candidate left
    # is dominated by another left, and the reduction is the one with dominance in every round
    pr = milp._prune(pb)
    if pr is None:
        return
    usable, _ = pr
    warm = tree_start(pb, seed)
    known = milp._warm_cost(pb, warm, usable) if warm else None
    incumbent = None if with_noise or known is None else known[0]

    def prune(drop: frozenset[int]) -> tuple[list[list[int]], list[int]]:
        return milp._prune(pb, drop) or ([], [])

    red, usable, classes = milp_reduce.reduce(pb, prune, with_noise=with_noise, incumbent=incumbent)
    assert milp_reduce.dominated(pb, usable, classes, with_noise) == {}
    calls: list[int] = []
    real = milp_reduce.dominated

    def every_round(*args: object, **kw: object) -> dict[int, int]:
        calls.append(1)
        return real(*args, **kw)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(milp_reduce, "dominated", every_round)
        again = milp_reduce.reduce(pb, prune, with_noise=with_noise, incumbent=incumbent)
    assert len(calls) == 1
    assert (again[0], again[1], again[2]) == (red, usable, classes)


def reduce_as_first_written(
    pb: Problem, prune: milp_reduce.Prune, *, with_noise: bool, incumbent: float | None, keep: set[int] | None = None,
    max_rounds: int = 8,
) -> tuple[milp_reduce.Reduction, list[list[int]], list[int]]:
    """``milp_reduce.reduce`` as main had it before its rounds were trimmed: dominance and a prune
    in every round, a round after a round that cut nothing but dropped dominated candidates."""
    usable, classes = prune(frozenset())
    red = milp_reduce.Reduction({}, -math.inf, 0, 0)
    keep = set(keep or ())
    if any(cd.cost < 0 for cd in pb.cands) or any(cost < 0 for cost, _ in pb.setups):
        return red, usable, classes
    extra = milp_reduce._shared_on_path(pb)
    for _ in range(max_rounds):
        new = milp_reduce.dominated(pb, usable, classes, with_noise)
        red.by_dominance += len(new)
        red.dropped.update(new)
        keep = {new.get(j, j) for j in keep}
        if new:
            usable, classes = prune(frozenset(red.dropped))
        below, above = milp_reduce.path_bounds(pb, usable, classes, extra)
        red.bound = max([red.bound] + [below.get(r, -math.inf) for r in pb.roots])
        cut: list[int] = []
        if incumbent is not None and math.isfinite(incumbent):
            limit = incumbent + 1e-6 * (1.0 + abs(incumbent))
            for c in classes:
                if c not in above:
                    continue
                for j in usable[c]:
                    ks = set(pb.cands[j].children)
                    low = max((below.get(x, math.inf) for x in ks), default=0.0)
                    if j not in keep and above[c] + pb.cands[j].cost + extra.get(j, 0.0) + low > limit:
                        cut.append(j)
        for j in cut:
            red.dropped[j] = -1
        red.by_bound += len(cut)
        if cut:
            usable, classes = prune(frozenset(red.dropped))
        if not new and not cut:
            break
    return red, usable, classes


@settings(max_examples=400, deadline=None)
@given(st.one_of(problems(), problems(noisy=True)), st.booleans(), st.integers(0, 2**16), st.integers(1, 3))
def test_the_same_reduction_as_first_written(pb: Problem, with_noise: bool, seed: int, rounds: int) -> None:
    # dominance once, its candidates left out without a prune, no round after one that cut
    # nothing: the same drops, bound, counts and final candidates and classes
    pr = milp._prune(pb)
    if pr is None:
        return
    warm = tree_start(pb, seed)
    known = milp._warm_cost(pb, warm, pr[0]) if warm else None
    incumbent = None if with_noise or known is None else known[0]
    keep = set(known[1].values()) if known is not None else None

    def prune(drop: frozenset[int]) -> tuple[list[list[int]], list[int]]:
        return milp._prune(pb, drop) or ([], [])

    for max_rounds in (rounds, 8):
        got = milp_reduce.reduce(pb, prune, with_noise=with_noise, incumbent=incumbent, keep=keep,
                                 max_rounds=max_rounds)
        ref = reduce_as_first_written(pb, prune, with_noise=with_noise, incumbent=incumbent, keep=keep,
                                      max_rounds=max_rounds)
        assert got[0] == ref[0]
        assert got[1] == ref[1] and got[2] == ref[2]


@settings(max_examples=300, deadline=None)
@given(st.one_of(problems(), problems(noisy=True)))
def test_the_chains_from_the_roots_as_first_written(pb: Problem) -> None:
    # path_bounds queues a class's chain only below the least value queued for it: the same
    # classes pop in the same order with the same values as when every chain was queued
    pr = milp._prune(pb)
    if pr is None:
        return
    usable, classes = pr
    extra = milp_reduce._shared_on_path(pb)
    _, above = milp_reduce.path_bounds(pb, usable, classes, extra)
    ref: dict[int, float] = {}
    heap = [(0.0, r) for r in set(pb.roots)]
    heapq.heapify(heap)
    while heap:
        v, c = heapq.heappop(heap)
        if c in ref:
            continue
        ref[c] = v
        for j in usable[c]:
            w = v + pb.cands[j].cost + extra.get(j, 0.0)
            for ch in set(pb.cands[j].children):
                if ch not in ref:
                    heapq.heappush(heap, (w, ch))
    assert list(above.items()) == list(ref.items())
