"""The extraction MILP's series contraction (eqsat.milp_contract): on random problems the
contracted problem has the same least acyclic cost as the original (brute force), every program
of it expands to an acyclic program of the original at the same cost, and ``milp.solve`` gives
the same status and objective with and without it; and a stencil-like chain merges as said."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_milp_cuts import acyclic_picks, brute_force
from test_milp_reduce import dag_cost, problems, reachable_pick, same_solve_without

from eqsat import milp, milp_contract
from eqsat.milp import Cand, Problem, solve, topo_order


@st.composite
def owned_problems(draw: st.DrawFn) -> Problem:
    """Random problems rich in what the contraction merges: classes with one candidate whose
    users are mostly candidates of one class (trees under alternatives, shared leaves), on top of
    ``problems()``' any-children shapes (cycles, several users, shared costs)."""
    base = draw(problems())
    k = base.num_classes
    extra = draw(st.integers(1, 4))
    cands = list(base.cands)
    for c in range(k, k + extra):  # new single-candidate classes under existing ones
        kids = tuple(draw(st.lists(st.integers(0, c - 1), max_size=2)))
        cands.append(Cand(c, float(draw(st.integers(0, 4))), kids, "plain", 0.0, len(cands)))
        user = draw(st.integers(0, len(cands) - 2))
        cd = cands[user]
        cands[user] = Cand(cd.cls, cd.cost, (*cd.children, c), cd.kind, cd.inc, cd.ref)
    return Problem(k + extra, [True] * (k + extra), cands, list(base.roots), list(base.setups))


def _small_enough(pb: Problem) -> bool:
    per_class = [sum(1 for cd in pb.cands if cd.cls == c) for c in range(pb.num_classes)]
    return math.prod(1 + n for n in per_class) <= 20_000


@settings(max_examples=200, deadline=None)
@given(owned_problems())
def test_contraction_keeps_every_program_and_cost(pb: Problem) -> None:
    if not _small_enough(pb):
        return
    ct = milp_contract.contract(pb)
    if ct is None:
        return
    assert ct.absorbed > 0
    small = ct.problem
    assert brute_force(small) == pytest.approx(brute_force(pb))
    options: list[list[int | None]] = [[None] + [j for j, cd in enumerate(small.cands) if cd.cls == c]
                                       for c in range(small.num_classes)]
    for reached in acyclic_picks(small, options, list(small.roots)):  # type: ignore[arg-type]
        big = reachable_pick(pb, ct.expand(reached, pb.cands))
        assert topo_order(big, pb) is not None
        assert dag_cost(pb, big) == pytest.approx(dag_cost(small, reached))  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(owned_problems(), st.integers(0, 2**16))
def test_same_solve_with_and_without_contraction(pb: Problem, seed: int) -> None:
    same_solve_without(pb, seed, milp_contract, "contract", lambda _pb: None)


def test_a_chain_under_one_alternative_merges_into_it() -> None:
    # root 4 = f(3) or g(0); 3 = h(2); 2 = i(1, 0); 1 = j(0); 0 = leaf, used by i, j and g: once
    # 3, 2 and 1 are in f, only the root's candidates use 0, and it goes into both
    cands = [Cand(0, 1.0, (), "plain", 0.0, 0), Cand(1, 2.0, (0,), "plain", 0.0, 1),
             Cand(2, 3.0, (1, 0), "plain", 0.0, 2), Cand(3, 4.0, (2,), "plain", 0.0, 3),
             Cand(4, 5.0, (3,), "plain", 0.0, 4), Cand(4, 30.0, (0,), "plain", 0.0, 5)]
    pb = Problem(5, [True] * 5, cands, [4])
    ct = milp_contract.contract(pb)
    assert ct is not None and ct.absorbed == 4
    small = ct.problem
    assert ct.old == [4, 5]
    assert [(cd.cost, cd.children) for cd in small.cands] == [(15.0, ()), (31.0, ())]
    assert ct.expand({4: 0}, pb.cands) == {4: 4, 3: 3, 2: 2, 1: 1, 0: 0}
    assert ct.expand({4: 1}, pb.cands) == {4: 5, 0: 0}
    assert ct.start({0: 0, 1: 1, 2: 2, 3: 3, 4: 5}) == {4: 1}
    sol = solve(pb, with_noise=False, warm={0: 0, 1: 1, 2: 2, 3: 3, 4: 4})
    assert sol.status == "optimal" and sol.info["objective"] == 15.0 and sol.info["absorbed"] == 4
    assert reachable_pick(pb, sol.pick) == {4: 4, 3: 3, 2: 2, 1: 1, 0: 0}


def test_class_used_by_two_classes_or_with_a_choice_stays() -> None:
    # 1 is used by classes 2 and 3: not merged; 2 has two candidates: not merged into the root
    cands = [Cand(0, 1.0, (), "plain", 0.0, 0), Cand(1, 1.0, (0,), "plain", 0.0, 1),
             Cand(2, 1.0, (1,), "plain", 0.0, 2), Cand(2, 2.0, (0,), "plain", 0.0, 3),
             Cand(3, 1.0, (1, 2), "plain", 0.0, 4)]
    pb = Problem(4, [True] * 4, cands, [3])
    assert milp_contract.contract(pb) is None
    usable, _classes = milp._prune(pb) or ([], [])
    assert all(usable[c] for c in range(4))


def test_shared_cost_members_and_their_users_stay() -> None:
    # r1 = rot(x), r2 = rot(x) share a setup; r1 is only used by root 4 = f(r1, t) or g(r2, t);
    # t = h(y) is used by both of the root's candidates and merges; y by t only: merges too
    x, r1, r2, t, root, y = range(6)
    cands = [Cand(x, 0.0, (), "plain", 0.0, 0), Cand(r1, 1.0, (x,), "plain", 0.0, 1),
             Cand(r2, 1.0, (x,), "plain", 0.0, 2), Cand(t, 2.0, (y,), "plain", 0.0, 3),
             Cand(root, 1.0, (r1, t), "plain", 0.0, 4), Cand(root, 3.0, (r2, t), "plain", 0.0, 5),
             Cand(y, 1.0, (), "plain", 0.0, 6)]
    pb = Problem(6, [True] * 6, cands, [root], [(4.0, (1, 2))])
    ct = milp_contract.contract(pb)
    assert ct is not None and ct.absorbed == 2  # t and y, not r1 or r2
    assert ct.old == [0, 1, 2, 4, 5]
    assert ct.problem.setups == [(4.0, (1, 2))]
    assert [cd.cost for cd in ct.problem.cands][3:] == [4.0, 6.0]
    sol = solve(pb, with_noise=False, warm={x: 0, r1: 1, r2: 2, t: 3, root: 5, y: 6})
    assert sol.status == "optimal" and sol.info["objective"] == 9.0
    assert reachable_pick(pb, sol.pick) == {root: 4, r1: 1, x: 0, t: 3, y: 6}
