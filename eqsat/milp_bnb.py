"""An exact branch-and-bound for small extraction problems: the MILP's answer without HiGHS.

In: an extraction ``Problem`` (``eqsat.milp``, no noise, costs non-negative) after its
reductions -- the usable candidates per class and the reachable classes (``eqsat.milp._prune``)
-- and an incumbent: the cost of a known acyclic program (the warm start). Out: ``search`` -- a
``Result``: whether a program strictly cheaper than the incumbent exists (``better``; then the
cheapest one found, ``cost`` and ``pick``, class -> candidate over the classes the roots reach,
is a minimum) or none does (the incumbent is optimal), or None when the node budget ran out
before the search was complete (the caller then solves the MILP).

The search assigns classes top-down: a class is *needed* when a root or the chosen candidate of
a needed class uses it; at every node the needed class without a choice that has the fewest
candidates is branched on (one candidate: no branching). A program is complete when every
needed class has a choice; its cost is the sum of the chosen candidates' costs, each class once,
plus every shared cost (``Problem.setups``) of which a member is chosen -- the DAG cost the MILP
minimises. Acyclicity is checked where a cycle can close: choosing ``j`` for ``c`` is refused when
a child of ``j`` that has a choice already reaches ``c`` through chosen candidates (a cycle is
closed by the last of its classes to get a choice).

The bound of a node: the cost so far plus, for every class that every program completing the
node still holds and that has no choice yet, the cheapest of its candidates (``cheapest``). The
classes held are the needed classes without a choice and those ``must`` lists for them: ``must[c]``
holds the classes in every acyclic program of ``c`` -- the greatest fixpoint of ``must[c] = {c}
union AND_{candidates j of c} OR_{children ch of j} must[ch]`` (valid by induction on a program's
height; ``eqsat.milp_hitting`` computes the same singletons for the hitting-set rows). Each class
is counted once, as the DAG pays it once. A node whose bound is not below the incumbent (less a
tolerance) is cut, and so is a candidate whose node would be; a complete program below it becomes
the incumbent. Candidates are tried cheapest bound first.

Why: the small e-graphs of the rotation kernels spend most of their extract stage in HiGHS's
branch and bound (rr_rotation_duplicated: 36 classes, 94 candidates, the LP bound 33 against the
optimum 63; 34 of its 53 ms), which a search over the classes with a choice closes in far fewer
steps and without building a model. ``NODE_BUDGET`` caps it so that it is never much slower than
the MILP it stands in for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from eqsat.milp_reduce import Problem

#: search nodes before ``search`` gives up (returns None) and the MILP decides
NODE_BUDGET = 4000
#: search nodes before ``search`` asks for its ``floor`` (the cost covers' bound of
#: ``eqsat.milp_cover``: rr_not_supported_multiple_tensors, whose start it proves, took 1,756
#: nodes without it; the searches of the suite's models that need one took 8-485 nodes but
#: rr_not_supported_repeated_indices, 1,068)
FLOOR_AFTER = 500


@dataclass
class Result:
    #: True when a program cheaper than the incumbent exists (then ``cost`` and ``pick`` are a
    #: cheapest one); False when the incumbent is optimal
    better: bool
    cost: float
    pick: dict[int, int]
    nodes: int


class _Budget(Exception):
    pass


class _Proven(Exception):
    pass


def _must(
    usable: Sequence[Sequence[int]], classes: Sequence[int], kids: Mapping[int, tuple[int, ...]]
) -> dict[int, int]:
    """Per class, a bit mask (bit ``c`` for class ``c``) of the classes in every acyclic program
    of it: the greatest fixpoint of the module docstring's equation, iterated from every class."""
    full = 0
    for c in classes:
        full |= 1 << c
    must = dict.fromkeys(classes, full)
    changed = True
    while changed:
        changed = False
        for c in classes:
            inter = full
            for j in usable[c]:
                union = 0
                for ch in kids[j]:
                    union |= must.get(ch, full)
                inter &= union
            new = (inter | (1 << c)) & must[c]
            if new != must[c]:
                must[c] = new
                changed = True
    return must


def search(
    pb: Problem, usable: Sequence[Sequence[int]], classes: Sequence[int], incumbent: float,
    budget: int | None = None, floor: Callable[[], float] | None = None,
) -> Result | None:
    """The exact search of the module docstring; None when it needs more than ``budget`` nodes
    (None: ``NODE_BUDGET``) or a cost is negative (the bound needs non-negative ones).
    ``floor``: a lower bound on every program's cost, asked for once the search has taken
    ``FLOOR_AFTER`` nodes without finding a program cheaper than the incumbent; when the
    incumbent meets it, the search stops there (the incumbent is optimal)."""
    cands = pb.cands
    if any(cands[j].cost < 0 for c in classes for j in usable[c]) or any(s < 0 for s, _ in pb.setups):
        return None
    if not set(pb.roots) <= set(classes):
        return None
    kids: dict[int, tuple[int, ...]] = {}
    for c in classes:
        for j in usable[c]:
            kids[j] = tuple(sorted(set(cands[j].children)))
    groups: dict[int, list[int]] = {}
    setup_cost: list[float] = []
    for s, (cost, members) in enumerate(pb.setups):
        setup_cost.append(cost)
        for j in members:
            groups.setdefault(j, []).append(s)
    paid = [0] * len(setup_cost)  # chosen members per shared cost
    cost_of = {j: cands[j].cost for j in kids}
    cheapest = [0.0] * (max(classes) + 1)
    options_of = [0] * len(cheapest)
    for c in classes:
        cheapest[c] = min(cost_of[j] for j in usable[c])
        options_of[c] = len(usable[c])
    must = _must(usable, classes, kids)
    pick: dict[int, int] = {}
    chosen_mask = 0
    budget = NODE_BUDGET if budget is None else budget
    tol = 1e-6 * (1.0 + (abs(incumbent) if math.isfinite(incumbent) else 0.0))
    # the best program's cost and number of classes: a program counts when it is cheaper, or as
    # cheap (within ``tol``) with fewer classes; the incumbent's count is 0, so that only
    # programs cheaper than it count
    best = [incumbent]
    best_count = [0]
    best_pick: list[dict[int, int]] = []
    nodes = [0]

    def bits_sum(mask: int) -> float:
        total = 0.0
        while mask:
            low = mask & -mask
            total += cheapest[low.bit_length() - 1]
            mask ^= low
        return total

    def reaches(src: int, dst: int) -> bool:
        """Does ``src`` reach ``dst`` through the chosen candidates?"""
        seen = {src}
        stack = [src]
        while stack:
            c = stack.pop()
            if c == dst:
                return True
            j = pick.get(c)
            if j is None:
                continue
            for ch in kids[j]:
                if ch not in seen:
                    seen.add(ch)
                    stack.append(ch)
        return False

    def cut(lb: float, count: int) -> bool:
        """Is a node of cost bound ``lb`` holding at least ``count`` classes no better than the best?"""
        return lb > best[0] + tol or (lb >= best[0] - tol and count >= best_count[0])

    def dfs(cost: float, need: int) -> None:
        nonlocal chosen_mask
        nodes[0] += 1
        if nodes[0] > budget:
            raise _Budget
        if nodes[0] == FLOOR_AFTER and floor is not None and not best_pick and incumbent <= floor() + tol:
            raise _Proven
        open_ = need & ~chosen_mask
        if not open_:
            if not cut(cost, len(pick)):
                best[0] = cost
                best_count[0] = len(pick)
                best_pick[:] = [dict(pick)]
            return
        held = 0
        m = open_
        c = -1
        fewest = math.inf
        while m:
            low = m & -m
            x = low.bit_length() - 1
            m ^= low
            held |= must[x]
            if options_of[x] < fewest:
                fewest = options_of[x]
                c = x
        free = ~chosen_mask
        held &= free
        rest = held & ~(1 << c)
        base = cost + bits_sum(rest)
        base_count = len(pick) + 1 + rest.bit_count()
        # per candidate of c: its cost, the shared costs it starts paying and the classes its
        # children add to those held
        options: list[tuple[float, int, int]] = []
        free &= ~held
        for j in usable[c]:
            add = cost_of[j]
            for s in groups.get(j, ()):
                if not paid[s]:
                    add += setup_cost[s]
            more = 0
            for ch in kids[j]:
                more |= must[ch]
            more &= free
            lb = base + add + bits_sum(more)
            count = base_count + more.bit_count()
            if not cut(lb, count):
                options.append((lb, count, j))
        options.sort()
        bit = 1 << c
        for lb, count, j in options:
            if cut(lb, count):
                continue
            if any(ch in pick and reaches(ch, c) for ch in kids[j]):
                continue
            add = cost_of[j]
            for s in groups.get(j, ()):
                if not paid[s]:
                    add += setup_cost[s]
                paid[s] += 1
            pick[c] = j
            chosen_mask |= bit
            new_need = need
            for ch in kids[j]:
                new_need |= 1 << ch
            dfs(cost + add, new_need)
            chosen_mask &= ~bit
            del pick[c]
            for s in groups.get(j, ()):
                paid[s] -= 1

    need0 = 0
    for r in pb.roots:
        need0 |= 1 << r
    try:
        dfs(0.0, need0)
    except _Budget:
        return None
    except _Proven:
        return Result(False, incumbent, {}, nodes[0])
    if best_pick:
        chosen = best_pick[0]
        total = sum(cands[j].cost for j in chosen.values())
        total += sum(cost for cost, members in pb.setups if any(chosen.get(cands[j].cls) == j for j in members))
        return Result(True, total, chosen, nodes[0])
    return Result(False, incumbent, {}, nodes[0])
