"""The exact branch-and-bound for small extraction problems (eqsat.milp_bnb): on random problems
its optimum is HiGHS's (the MILP with the search off) and brute force's, by an acyclic program
that costs it; it proves an optimal start, refuses cycles, pays a shared cost once, breaks ties
towards fewer classes, and hands over to the MILP when its node budget runs out."""

from __future__ import annotations

import functools
import math
import operator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_milp_contract import owned_problems
from test_milp_cuts import brute_force, pruned_small
from test_milp_reduce import dag_cost, problems, reachable_pick, tree_start

from eqsat import milp, milp_bnb
from eqsat.milp import Cand, Problem, solve, topo_order


def _plain(cls: int, cost: float, kids: tuple[int, ...], ref: int) -> Cand:
    return Cand(cls, cost, kids, "plain", 0.0, ref)


@settings(max_examples=300, deadline=None)
@given(st.one_of(problems(), owned_problems()), st.integers(0, 2**16))
def test_same_optimum_as_highs(pb: Problem, seed: int) -> None:
    warm = tree_start(pb, seed)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(milp, "BNB_MAX_CLASSES", 0)
        highs = solve(pb, with_noise=False, warm=warm or None, proof_stall_s=math.inf)
    got = solve(pb, with_noise=False, warm=warm or None, proof_stall_s=math.inf)
    assert got.status == highs.status
    if highs.status != "optimal":
        return
    assert got.info["proven"] is True
    assert got.info["objective"] == pytest.approx(highs.info["objective"], abs=1e-6)
    chosen = reachable_pick(pb, got.pick)
    assert topo_order(chosen, pb) is not None
    assert dag_cost(pb, chosen) == pytest.approx(highs.info["objective"], abs=1e-6)


@settings(max_examples=300, deadline=None)
@given(problems())
def test_search_finds_the_brute_force_optimum(pb: Problem) -> None:
    pr = pruned_small(pb)
    if pr is None:
        return
    usable, classes = pr
    best = brute_force(pb)
    got = milp_bnb.search(pb, usable, classes, math.inf)
    assert got is not None and got.better
    assert got.cost == pytest.approx(best, abs=1e-6)
    assert topo_order(got.pick, pb) is not None
    assert reachable_pick(pb, got.pick) == got.pick  # exactly the classes the roots reach
    assert dag_cost(pb, got.pick) == pytest.approx(best, abs=1e-6)
    # from the optimum as the incumbent: nothing cheaper
    again = milp_bnb.search(pb, usable, classes, best)
    assert again is not None and not again.better


def test_the_cheap_cycle_is_refused() -> None:
    # root a = f(b) (1) or leaf (9); b = g(a) (1) or leaf (5): a -> b -> a is the cheapest pair
    a, b = range(2)
    pb = Problem(2, [True] * 2, [_plain(a, 1.0, (b,), 0), _plain(a, 9.0, (), 1),
                                 _plain(b, 1.0, (a,), 2), _plain(b, 5.0, (), 3)], [a])
    usable, classes = milp._prune(pb) or ([], [])
    got = milp_bnb.search(pb, usable, classes, math.inf)
    assert got is not None and got.cost == 6.0 and got.pick == {a: 0, b: 3}


def test_a_shared_cost_is_paid_once() -> None:
    # root = h(r1, r2) (0) or leaf (7); r1, r2 = rotations of x (1 each, sharing a cost of 4)
    x, r1, r2, root = range(4)
    cands = [_plain(x, 0.0, (), 0), _plain(r1, 1.0, (x,), 1), _plain(r2, 1.0, (x,), 2),
             _plain(root, 0.0, (r1, r2), 3), _plain(root, 7.0, (), 4)]
    pb = Problem(4, [True] * 4, cands, [root], [(4.0, (1, 2))])
    usable, classes = milp._prune(pb) or ([], [])
    got = milp_bnb.search(pb, usable, classes, math.inf)
    assert got is not None and got.cost == 6.0 and got.pick == {root: 3, r1: 1, r2: 2, x: 0}
    # a dearer setup makes the leaf cheaper
    pb.setups = [(6.0, (1, 2))]
    got = milp_bnb.search(pb, usable, classes, math.inf)
    assert got is not None and got.cost == 7.0 and got.pick == {root: 4}


def test_ties_go_to_fewer_classes() -> None:
    # root = f(a, b) (2) or g(c) (2); a, b leaves of 1, c a leaf of 2: both cost 4, f(a, b) in
    # three classes, g(c) in two (f's candidate comes first and its bound is as low)
    root, a, b, c, d = range(5)
    cands = [_plain(root, 2.0, (a, b), 0), _plain(root, 2.0, (c,), 1), _plain(a, 1.0, (), 2),
             _plain(b, 1.0, (), 3), _plain(c, 2.0, (), 4), _plain(d, 1.0, (), 5)]
    pb = Problem(5, [True] * 5, cands, [root])
    usable, classes = milp._prune(pb) or ([], [])
    got = milp_bnb.search(pb, usable, classes, math.inf)
    assert got is not None and got.cost == 4.0 and got.pick == {root: 1, c: 4}


def test_an_optimal_start_is_proven_and_kept() -> None:
    pb = Problem(2, [True] * 2, [_plain(0, 1.0, (), 0), _plain(1, 1.0, (0,), 1), _plain(1, 3.0, (), 2)], [1])
    sol = solve(pb, with_noise=False, warm={0: 0, 1: 2})  # 3 against 2: not the optimum
    assert sol.info["solver"] == "bnb" and sol.info["objective"] == 2.0 and sol.pick == {1: 1, 0: 0}


def _chain_of_choices(n: int) -> tuple[Problem, dict[int, int]]:
    """``n`` classes over a leaf, each the sum of the two below it or a rotation-like step of
    the leaf (costs chosen so that the proof needs branching), and a dear start."""
    cands = [_plain(0, 0.0, (), 0)]
    for c in range(1, n):
        cands.append(_plain(c, 3.0, (c - 1, max(c - 2, 0)), len(cands)))
        cands.append(_plain(c, 2.0 + (c % 3), (0,), len(cands)))
    pb = Problem(n, [True] * n, cands, [n - 1])
    warm = {0: 0, **{c: 2 * c - 1 for c in range(1, n)}}  # every class a sum
    return pb, warm


def test_out_of_nodes_the_milp_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    pb, warm = _chain_of_choices(12)
    usable, classes = milp._prune(pb) or ([], [])
    assert milp_bnb.search(pb, usable, classes, math.inf, budget=1) is None
    full = solve(pb, with_noise=False, warm=warm, proof_stall_s=math.inf)
    monkeypatch.setattr(milp_bnb, "NODE_BUDGET", 1)
    fallback = solve(pb, with_noise=False, warm=warm, proof_stall_s=math.inf)
    assert full.info["solver"] == "bnb" and fallback.info["solver"] != "bnb"
    assert full.info["objective"] == pytest.approx(fallback.info["objective"])
    monkeypatch.setattr(milp, "BNB_MAX_CLASSES", 5)  # above the size threshold: the MILP too
    assert solve(pb, with_noise=False, warm=warm, proof_stall_s=math.inf).info["solver"] != "bnb"


def test_negative_costs_are_not_searched() -> None:
    pb = Problem(2, [True] * 2, [_plain(0, -1.0, (), 0), _plain(1, 1.0, (0,), 1)], [1])
    usable, classes = milp._prune(pb) or ([], [])
    assert milp_bnb.search(pb, usable, classes, math.inf) is None


def test_the_floor_is_asked_for_late_and_stops_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # root = g(A) (0); A = f(P) (1) or leaf (8); P = h(X) (0) or leaf (10); X leaf (10): the
    # optimum 8, whose proof takes three nodes (the bound sees P at 0 until P is branched on)
    root, a, p, x = range(4)
    cands = [_plain(root, 0.0, (a,), 0), _plain(a, 1.0, (p,), 1), _plain(a, 8.0, (), 2),
             _plain(p, 0.0, (x,), 3), _plain(p, 10.0, (), 4), _plain(x, 10.0, (), 5)]
    pb = Problem(4, [True] * 4, cands, [root])
    usable, classes = milp._prune(pb) or ([], [])
    proof = milp_bnb.search(pb, usable, classes, 8.0)
    assert proof is not None and not proof.better and proof.nodes == 3
    asked: list[float] = []

    def floor(value: float) -> float:
        asked.append(value)
        return value

    # a floor that the incumbent meets, asked for at the second node: the search stops there
    monkeypatch.setattr(milp_bnb, "FLOOR_AFTER", 2)
    got = milp_bnb.search(pb, usable, classes, 8.0, floor=lambda: floor(8.0))
    assert got is not None and not got.better and got.nodes == 2 and asked == [8.0]
    # a lower floor: asked for once, and the search goes on to its end
    asked.clear()
    got = milp_bnb.search(pb, usable, classes, 8.0, floor=lambda: floor(5.0))
    assert got is not None and not got.better and got.nodes == 3 and asked == [5.0]
    # a search that ends before FLOOR_AFTER nodes never asks
    asked.clear()
    monkeypatch.setattr(milp_bnb, "FLOOR_AFTER", 4)
    got = milp_bnb.search(pb, usable, classes, 8.0, floor=lambda: floor(8.0))
    assert got is not None and got.nodes == 3 and asked == []


def plain_search(pb: Problem, usable: list[list[int]], classes: list[int], incumbent: float,
                 budget: int = milp_bnb.NODE_BUDGET, forced_shared: bool = True) -> milp_bnb.Result | None:
    """The search of ``eqsat.milp_bnb`` as first written (main's before the held classes were
    passed down): every node takes the union of ``must`` over its open classes and sums the
    cheapest costs bit by bit. The reference of ``test_the_same_search_as_the_plain_one``.
    ``forced_shared``: ``must`` also holds the shared costs (bit ``size + s``) that every candidate
    of a class is in, and the bound counts, once each, those not paid yet that every completion
    holds (or the option's candidate is in); without it, the bound before they were (the
    option's own shared costs only)."""
    cands = pb.cands
    size = max(classes) + 1
    gbit = {j: 0 for c in classes for j in usable[c]}
    for s, (_, members) in enumerate(pb.setups):
        for j in members:
            if j in gbit:
                gbit[j] |= 1 << (size + s)
    forced = [0] * size
    for c in classes:
        forced[c] = functools.reduce(operator.and_, (gbit[j] for j in usable[c]))
    kids = {j: tuple(sorted(set(cands[j].children))) for c in classes for j in usable[c]}
    groups: dict[int, list[int]] = {}
    for s, (_, members) in enumerate(pb.setups):
        for j in members:
            groups.setdefault(j, []).append(s)
    paid = [0] * len(pb.setups)
    cheapest = {c: min(cands[j].cost for j in usable[c]) for c in classes}
    must = milp_bnb._must(usable, classes, kids, forced if forced_shared else None)
    pick: dict[int, int] = {}
    tol = 1e-6 * (1.0 + (abs(incumbent) if math.isfinite(incumbent) else 0.0))
    best: list[object] = [incumbent, 0, None, 0]  # cost, count, pick, nodes

    def bits(mask: int) -> list[int]:
        return [x for x in range(mask.bit_length()) if mask >> x & 1]

    def bits_sum(mask: int) -> float:
        # the classes, then the shared costs (bit size + s), each lowest first
        total = 0.0
        for x in bits(mask):
            total += cheapest[x] if x < size else pb.setups[x - size][0]
        return total

    def cut(lb: float, count: int) -> bool:
        return lb > best[0] + tol or (lb >= best[0] - tol and count >= best[1])  # type: ignore[operator]

    def reaches(src: int, dst: int) -> bool:
        seen, stack = {src}, [src]
        while stack:
            c = stack.pop()
            if c == dst:
                return True
            for ch in kids[pick[c]] if c in pick else ():
                if ch not in seen:
                    seen.add(ch)
                    stack.append(ch)
        return False

    def dfs(cost: float, need: int) -> None:
        best[3] += 1  # type: ignore[operator]
        if best[3] > budget:  # type: ignore[operator]
            raise OverflowError
        chosen = sum(1 << c for c in pick)
        open_ = bits(need & ~chosen)
        if not open_:
            if not cut(cost, len(pick)):
                best[:3] = [cost, len(pick), dict(pick)]
            return
        c = min(open_, key=lambda x: (len(usable[x]), x))
        held = 0
        for x in open_:
            held |= must[x]
        done = chosen | sum(1 << (size + s) for s in range(len(pb.setups)) if paid[s])
        held &= ~done
        rest = held & ~(1 << c)
        classes_of_rest = rest & ((1 << size) - 1)
        base, base_count = cost + bits_sum(rest), len(pick) + 1 + classes_of_rest.bit_count()
        options = []
        for j in usable[c]:
            add = cands[j].cost
            for s in groups.get(j, ()):
                if not paid[s]:
                    add += pb.setups[s][0]
            more = 0
            for ch in kids[j]:
                more |= must[ch]
            if forced_shared:
                more = (more | gbit[j]) & ~done & ~held
                lb = base + cands[j].cost + bits_sum(more)
            else:
                more &= ~done & ~held
                lb = base + add + bits_sum(more)
            count = base_count + (more & ((1 << size) - 1)).bit_count()
            if not cut(lb, count):
                options.append((lb, count, j, add))
        for lb, count, j, add in sorted(options):
            if cut(lb, count) or any(ch in pick and reaches(ch, c) for ch in kids[j]):
                continue
            for s in groups.get(j, ()):
                paid[s] += 1
            pick[c] = j
            dfs(cost + add, need | sum(1 << ch for ch in kids[j]))
            del pick[c]
            for s in groups.get(j, ()):
                paid[s] -= 1

    try:
        dfs(0.0, sum(1 << r for r in set(pb.roots)))
    except OverflowError:
        return None
    if best[2] is None:
        return milp_bnb.Result(False, incumbent, {}, best[3])  # type: ignore[arg-type]
    chosen_pick: dict[int, int] = best[2]  # type: ignore[assignment]
    total = sum(cands[j].cost for j in chosen_pick.values())
    total += sum(cost for cost, members in pb.setups if any(chosen_pick.get(cands[j].cls) == j for j in members))
    return milp_bnb.Result(True, total, chosen_pick, best[3])  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.one_of(problems(), owned_problems()), st.sampled_from([math.inf, 4.0, 8.0, 12.0]), st.integers(1, 60))
def test_the_same_search_as_the_plain_one(pb: Problem, incumbent: float, budget: int) -> None:
    # the held classes passed down, the forced class by a mask and the remembered sums change
    # nothing: the same nodes, in the same order (the same count within any budget), the same
    # program and cost; without the forced shared costs in the bound, the same cost, and as many
    # nodes or more to prove the optimum
    pr = milp._prune(pb)
    if pr is None or any(cd.cost < 0 for cd in pb.cands):
        return
    usable, classes = pr
    for b in (budget, milp_bnb.NODE_BUDGET):
        got = milp_bnb.search(pb, usable, classes, incumbent, budget=b)
        ref = plain_search(pb, usable, classes, incumbent, budget=b)
        assert (got is None) == (ref is None)
        if got is not None and ref is not None:
            assert (got.better, got.cost, got.pick, got.nodes) == (ref.better, ref.cost, ref.pick, ref.nodes)
            assert list(got.pick.items()) == list(ref.pick.items())
    weak = plain_search(pb, usable, classes, incumbent, forced_shared=False)
    got = milp_bnb.search(pb, usable, classes, incumbent)
    assert weak is not None and got is not None
    assert (got.better, got.cost) == (weak.better, weak.cost)
    # proving an optimal incumbent (no program below it to find, so the order of the options
    # does not matter): a subset of the nodes
    proof = milp_bnb.search(pb, usable, classes, got.cost)
    weak_proof = plain_search(pb, usable, classes, got.cost, forced_shared=False)
    assert proof is not None and weak_proof is not None and not proof.better and not weak_proof.better
    assert proof.nodes <= weak_proof.nodes


def test_a_forced_shared_cost_counts_in_the_bound() -> None:
    # root = h(r1) (0) or leaf (5); r1 = a rotation of x (1) whose only candidate shares a cost
    # of 10 with r2's: every program through h pays 11, so the start (the leaf, 5) is proven at
    # the root, where the bound without the shared cost (1) needed r1 branched on first
    x, r1, r2, root = range(4)
    cands = [_plain(x, 0.0, (), 0), _plain(r1, 1.0, (x,), 1), _plain(r2, 1.0, (x,), 2),
             _plain(root, 0.0, (r1,), 3), _plain(root, 5.0, (), 4)]
    pb = Problem(4, [True] * 4, cands, [root], [(10.0, (1, 2))])
    usable, classes = milp._prune(pb) or ([], [])
    got = milp_bnb.search(pb, usable, classes, 5.0)
    weak = plain_search(pb, usable, classes, 5.0, forced_shared=False)
    assert got is not None and weak is not None and not got.better and not weak.better
    assert got.nodes == 1 and weak.nodes == 2
    # cheaper than the leaf when the shared cost is: found
    pb.setups = [(3.0, (1, 2))]
    got = milp_bnb.search(pb, usable, classes, 5.0)
    assert got is not None and got.better and got.cost == 4.0 and got.pick == {root: 3, r1: 1, x: 0}


@settings(max_examples=300, deadline=None)
@given(st.one_of(problems(), owned_problems()))
def test_must_is_the_fixpoint_in_any_order(pb: Problem) -> None:
    # _must sweeps children first; sweeping in class order (as first written) reaches the same
    # greatest fixpoint
    pr = milp._prune(pb)
    if pr is None:
        return
    usable, classes = pr
    kids = {j: tuple(sorted(set(pb.cands[j].children))) for c in classes for j in usable[c]}
    full = sum(1 << c for c in classes)
    ref = dict.fromkeys(classes, full)
    changed = True
    while changed:
        changed = False
        for c in classes:
            inter = full
            for j in usable[c]:
                union = 0
                for ch in kids[j]:
                    union |= ref.get(ch, full)
                inter &= union
            new = (inter | (1 << c)) & ref[c]
            if new != ref[c]:
                ref[c] = new
                changed = True
    assert milp_bnb._must(usable, classes, kids) == ref
