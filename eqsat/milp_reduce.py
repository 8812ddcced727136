"""Provably safe reductions of an extraction ``Problem`` before its MILP, and a cheap bound.

In: a ``Problem`` (``eqsat.milp``), the usable candidates per class and the reachable classes
(``eqsat.milp._prune``), and optionally an incumbent (the cost of a known acyclic solution).
Out: ``reduce`` -- the candidates that no cheaper-or-equal solution needs (``dropped``: index ->
the candidate that replaces it, or -1 when it is cut by the bound), and ``bound``, a lower bound
on the cost of every acyclic solution; ``Index``: what the reductions read of the candidates
(distinct children, costs, the shared costs a chain may count, groups), fixed while candidates
are dropped, so made once per problem and shared by every round and by ``eqsat.milp``'s prune.
Every optimum of the reduced problem is an optimum of the
original, with the same objective:

* **dominance**: a candidate ``b`` dominates a sibling ``a`` (same class) when ``b`` costs no
  more, its child classes are a subset of ``a`` 's, it is in no shared-cost group (``setups``)
  ``a`` is not in, and, with noise, its noise rule is the same with an increment no larger.
  Swapping ``a`` for ``b`` in any solution keeps it feasible (fewer edges: no new cycle, noise
  no higher) and costs no more. Ties (equal in all) keep the lowest index.
* **bound**: ``below(c)``, a lower bound on the cost of the sub-program of class ``c``: the least
  ``cost(j) + max over children below(child)`` (Knuth's generalisation of Dijkstra): in an
  acyclic program a node's sub-program holds the node and each child's sub-program. ``above(c)``:
  the cheapest chain of candidates from a root down to ``c``; the chain's nodes are ancestors of
  ``c``, so disjoint from its sub-program. A candidate ``j`` of ``c`` with
  ``above(c) + cost(j) + max below(children) > incumbent`` is in no solution at most as dear as
  the incumbent, so it is dropped. A shared cost (hoisting: paid once per rotated input) counts
  on a chain or sub-program only for groups whose members all have one and the same child class:
  two members on one chain would make that class its own descendant.

Costs must be non-negative (``reduce`` leaves the problem as it is otherwise).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


class Cand(Protocol):
    @property
    def cls(self) -> int: ...
    @property
    def cost(self) -> float: ...
    @property
    def children(self) -> tuple[int, ...]: ...
    @property
    def kind(self) -> str: ...
    @property
    def inc(self) -> float: ...


class Problem(Protocol):
    """What is read of ``eqsat.milp.Problem`` (not imported: ``eqsat.milp`` imports this)."""

    @property
    def cands(self) -> Sequence[Cand]: ...
    @property
    def roots(self) -> list[int]: ...
    @property
    def setups(self) -> list[tuple[float, tuple[int, ...]]]: ...


Prune = Callable[[frozenset[int]], tuple[list[list[int]], list[int]]]


@dataclass
class Reduction:
    dropped: dict[int, int]  # candidate -> its replacement (a dominating sibling), -1 when bounded out
    bound: float  # lower bound on every acyclic solution's cost (-inf when unknown)
    by_dominance: int
    by_bound: int


def _shared_on_path(pb: Problem) -> dict[int, float]:
    """Per candidate: the shared costs it may count on a chain (see the module docstring)."""
    extra: dict[int, float] = {}
    for cost, members in pb.setups:
        kids = {frozenset(pb.cands[j].children) for j in members}
        if len(kids) == 1 and len(next(iter(kids))) == 1:
            for j in members:
                extra[j] = extra.get(j, 0.0) + cost
    return extra


class Index:
    """What the reductions read of a problem's candidates, per candidate index: fixed while
    candidates are dropped, so computed once per problem and shared by every round of
    ``reduce`` (its ``dominated`` and ``path_bounds``) and by the prune of ``eqsat.milp``."""

    def __init__(self, pb: Problem, extra: Mapping[int, float] | None = None) -> None:
        cands = pb.cands
        #: the class, the distinct child classes (a set's order) and the cost of each candidate
        self.cls = [cd.cls for cd in cands]
        self.kids = [tuple(set(cd.children)) for cd in cands]
        self.cost = [cd.cost for cd in cands]
        #: the shared costs a candidate may count on a chain (``_shared_on_path``), per candidate
        #: (0.0 for none), and ``cost + extra``: what it adds to a sub-program's bound
        self.extra = dict(_shared_on_path(pb) if extra is None else extra)
        self.xtra = [self.extra.get(j, 0.0) for j in range(len(cands))]
        self.weight = [c + x for c, x in zip(self.cost, self.xtra, strict=True)]
        #: candidate -> the shared-cost groups (indices into ``setups``) it is in
        self.groups: dict[int, set[int]] = {}
        for s, (_, members) in enumerate(pb.setups):
            for j in members:
                self.groups.setdefault(j, set()).add(s)
        self._kidset: list[frozenset[int] | None] = [None] * len(cands)

    def kidset(self, j: int) -> frozenset[int]:
        """The child classes of candidate ``j`` as a frozenset (made on first use)."""
        got = self._kidset[j]
        if got is None:
            got = self._kidset[j] = frozenset(self.kids[j])
        return got


def dominated(
    pb: Problem, usable: list[list[int]], classes: list[int], with_noise: bool, index: Index | None = None
) -> dict[int, int]:
    """Candidate -> a dominating sibling (not itself dominated). ``index``: ``Index(pb)`` when
    the caller has it."""
    ix = index if index is not None else Index(pb)
    groups = ix.groups
    none: set[int] = set()
    cost = ix.cost
    out: dict[int, int] = {}
    for c in classes:
        js = usable[c]
        if len(js) < 2:
            continue
        kids = {j: ix.kidset(j) for j in js}
        for a in js:
            ca = pb.cands[a]
            cost_a = cost[a]
            kids_a = kids[a]
            groups_a = groups.get(a, none)
            for b in js:
                if b == a or b in out:
                    continue
                if cost[b] > cost_a or not kids[b] <= kids_a:
                    continue
                if not groups.get(b, none) <= groups_a:
                    continue
                cb = pb.cands[b]
                if with_noise:
                    # the noise rule must match; "sum" counts a repeated child twice
                    if cb.kind != ca.kind or cb.inc > ca.inc:
                        continue
                    if cb.kind == "sum" and any(cb.children.count(x) > ca.children.count(x) for x in kids[b]):
                        continue
                equal = (cost[b] == cost_a and kids[b] == kids_a and groups.get(b) == groups.get(a)
                         and (not with_noise or cb.inc == ca.inc))
                if not equal or b < a:
                    out[a] = b
                    break
    # a dominator found early may be dominated later: follow to the end (the relation is acyclic)
    for a in list(out):
        b = out[a]
        while b in out:
            b = out[b]
        out[a] = b
    return out


def path_bounds(
    pb: Problem, usable: list[list[int]], classes: list[int], extra: Mapping[int, float],
    index: Index | None = None,
) -> tuple[dict[int, float], dict[int, float]]:
    """(below, above) per class (see the module docstring); a class missing from ``below`` has
    no acyclic program, one missing from ``above`` is unreachable. ``index``: ``Index(pb,
    extra)`` when the caller has it."""
    ix = index if index is not None else Index(pb, extra)
    kids, weight, cost, xtra, cls = ix.kids, ix.weight, ix.cost, ix.xtra, ix.cls
    heappush, heappop = heapq.heappush, heapq.heappop
    below: dict[int, float] = {}
    users: dict[int, list[int]] = {}
    missing: dict[int, int] = {}
    heap: list[tuple[float, int]] = []
    for c in classes:
        for j in usable[c]:
            ks = kids[j]
            if not ks:
                heap.append((weight[j], c))
                continue
            missing[j] = len(ks)
            for x in ks:
                us = users.get(x)
                if us is None:
                    users[x] = [j]
                else:
                    us.append(j)
    heapq.heapify(heap)
    while heap:
        v, c = heappop(heap)
        if c in below:
            continue
        below[c] = v
        for j in users.get(c, ()):
            left = missing[j] - 1
            missing[j] = left
            if left == 0 and cls[j] not in below:
                ks = kids[j]
                top = below[ks[0]]
                for x in ks:
                    if below[x] > top:
                        top = below[x]
                heappush(heap, (weight[j] + top, cls[j]))
    above: dict[int, float] = {}
    heap = [(0.0, r) for r in set(pb.roots)]
    heapq.heapify(heap)
    # the least value queued per class: a value not below it is not queued (it would pop after
    # it and be skipped), so the same classes pop in the same order with the same values
    queued: dict[int, float] = {}
    while heap:
        v, c = heappop(heap)
        if c in above:
            continue
        above[c] = v
        for j in usable[c]:
            w = v + cost[j] + xtra[j]
            for ch in kids[j]:
                if ch not in above:
                    q = queued.get(ch)
                    if q is None or w < q:
                        queued[ch] = w
                        heappush(heap, (w, ch))
    return below, above


def reduce(
    pb: Problem,
    prune: Prune,
    *,
    with_noise: bool,
    incumbent: float | None,
    keep: set[int] | None = None,
    max_rounds: int = 8,
    start: tuple[list[list[int]], list[int]] | None = None,
    index: Index | None = None,
) -> tuple[Reduction, list[list[int]], list[int]]:
    """Drop dominated and bounded-out candidates until nothing changes (``max_rounds``).

    ``prune(drop)`` returns (usable per class, reachable classes) without the candidates in
    ``drop`` (``eqsat.milp._prune``); ``keep`` are candidates never dropped by the bound (the
    incumbent's; a dominated one hands that on to its dominator). Returns the reduction and
    the final (usable, classes). ``start``: ``prune(frozenset())`` when the caller has it;
    ``index``: ``Index(pb)`` when the caller has it."""
    usable, classes = start if start is not None else prune(frozenset())
    red = Reduction({}, -math.inf, 0, 0)
    keep = set(keep or ())
    if any(cd.cost < 0 for cd in pb.cands) or any(cost < 0 for cost, _ in pb.setups):
        return red, usable, classes
    ix = index if index is not None else Index(pb)
    extra = ix.extra
    kids, cost, xtra = ix.kids, ix.cost, ix.xtra
    inf = math.inf
    # ``classes`` may hold classes no longer reachable (``stale``) after the dominated
    # candidates are left out of ``usable`` without a prune (below); a prune follows before
    # the end
    stale = False
    for rnd in range(max_rounds):
        # dominance only in the first round: a later round's candidates are a subset of the
        # first's, per class, and none of them was dominated there -- ``dominated`` tries every
        # usable sibling not itself dominated, and whether ``b`` dominates ``a`` depends on the
        # two candidates alone, so a pair a later round could find the first round found (and
        # dropped ``a``). The later rounds' call found nothing (0.2 ms of
        # rr_reduce_add_and_mul_32's 1.8 ms of reductions)
        new = dominated(pb, usable, classes, with_noise, ix) if rnd == 0 else {}
        red.by_dominance += len(new)
        red.dropped.update(new)
        keep = {new.get(j, j) for j in keep}  # a kept candidate's dominator is as cheap: kept
        if new:
            # the dominated candidates left out of their classes' lists: what the prune would
            # give, as a dominated candidate's class keeps its dominator (usable, so no class
            # loses its last program and no candidate its usability), but for ``classes``, which
            # may keep classes only they reached. The path bounds of a class do not depend on
            # other classes, and the cuts skip a class without a chain from a root (``above``),
            # so both are as after the prune (0.3 ms of rr_reduce_add_and_mul_32's reductions)
            usable = list(usable)
            for c in {ix.cls[a] for a in new}:
                usable[c] = [j for j in usable[c] if j not in new]
            stale = True
        below, above = path_bounds(pb, usable, classes, extra, ix)
        red.bound = max([red.bound] + [below.get(r, -math.inf) for r in pb.roots])
        cut: list[int] = []
        if incumbent is not None and math.isfinite(incumbent):
            limit = incumbent + 1e-6 * (1.0 + abs(incumbent))
            for c in classes:
                a = above.get(c)
                if a is None:
                    continue
                for j in usable[c]:
                    if j in keep:
                        continue
                    low = 0.0
                    ks = kids[j]
                    if ks:
                        low = below.get(ks[0], inf)
                        for x in ks:
                            b = below.get(x, inf)
                            if b > low:
                                low = b
                    if a + cost[j] + xtra[j] + low > limit:
                        cut.append(j)
        for j in cut:
            red.dropped[j] = -1
        red.by_bound += len(cut)
        if cut:
            usable, classes = prune(frozenset(red.dropped))
            stale = False
        if not cut:
            # nothing cut: the next round would bound the same candidates (dominance runs in
            # the first round only) and cut nothing either
            break
    if stale:
        usable, classes = prune(frozenset(red.dropped))
    return red, usable, classes
