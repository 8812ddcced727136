"""Cost-cover inequalities for the extraction MILP: what every program of a class must pay.

In: an extraction ``Problem`` (``eqsat.milp``, no noise, costs non-negative) after its
reductions -- the usable candidates per class and the reachable classes. Out: ``cover`` -- per
class ``d`` its *covers* ``(items, K)``: every acyclic program of ``d`` pays at least ``K`` within
``items``, where an item is a class (it pays the cost of its chosen candidate) or a shared-cost
group of ``Problem.setups`` (it pays its cost once when a member is chosen). Each gives the valid
inequality

    sum_{class c in items} sum_{j in c} cost_j x_j  +  sum_{group g in items} cost_g f_g  >=  K y_d

and ``roots_bound`` combines the roots' covers into a lower bound on every program's cost.
``eqsat.milp`` uses that bound only: a greedy start that meets it is optimal without a solve.
As rows of the relaxation (added where violated, beside the hitting-set rows) the covers slowed
the search on the models they did not prove (rr_reduce_add_and_mul_32 0.027 -> 0.114 CPU s,
dot_product_8 0.037 -> 0.066, the same optimum).

Why: the relaxation shares a child between users that no integer program chooses together -- a
root split over three sums, each bringing the slots by other rotations, pays each rotation a
fraction (rr_not_supported_mixed_op_non_tensor_operands: LP 31 against the optimum 94, the search
then branches over 15-16 nodes). A sum of eight slots holds three rotations in every program, and
the cover of its class says so: its items are every rotation that could be among them, ``K``
what the cheapest way pays (there 94: the start is proven without the LP).

A cover is built children first. For one alternative ``j`` of ``d``: ``d`` itself (when one of
its candidates costs anything; it pays ``cost_j``) and the groups ``j`` is in (each pays its cost)
come first; then each child's cover, the largest ``K`` first, less what it shares with the items
taken so far: an item pays at most its largest cost (``max_pay``), so a program of the child
still pays ``K_child - sum max_pay(shared)`` within the child's other items, which are disjoint
from those already counted. The alternative's cover is the union of the items with the sum of
what each part pays. Every program of ``d`` follows one alternative, so ``d`` 's cover is the
union of its alternatives' items with the least of their ``K`` s. Valid by induction on the order
the covers are made (each step uses only covers already valid): the sub-program of a child,
within an acyclic program of ``d``, is an acyclic program of that child, and it does not hold
``d``. A cycle's classes start from the empty cover (nothing paid: valid) and are swept
``SWEEPS`` times; every sweep's covers are valid whether or not they have settled.

Each class has one cover per exclusion (``EXCLUSIONS``): made without some items, so that its
users can add it to others with less overlap. With every item allowed the covers of two sums
share the rotations that either could use and subtract each other away; without the shared-cost
groups, or without the classes that several classes use, the parts left are disjoint more often
(gx_16x16: the roots' bound 81 with the first cover alone, 99 -- the optimum -- with the four).
A cover made without the items ``X`` takes, of each child, the best of its covers made without
a superset of ``X`` (any child cover would be valid; these keep ``X`` out).

Beside the DAG-sharing relaxation the bound differs from the path bound of ``eqsat.milp_reduce``
(the most a single chain of children pays) by summing the children that pay within disjoint
items: the chain-of-additions form of a sum pays one extraction per slot, where the path bound
saw one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from eqsat.algebra.graphs import strongly_connected

#: sweeps over a cycle's classes (each sweep's covers are valid; more sweeps can only grow K)
SWEEPS = 3
#: the covers of each class, by the items they are made without: none, the shared-cost groups,
#: the classes that two or more classes use, both
EXCLUSIONS = ("none", "groups", "shared", "groups+shared")


class _Cand(Protocol):
    @property
    def cost(self) -> float: ...
    @property
    def children(self) -> tuple[int, ...]: ...


class Problem(Protocol):
    """What is read of ``eqsat.milp.Problem`` (not imported: ``eqsat.milp`` imports this)."""

    @property
    def num_classes(self) -> int: ...
    @property
    def cands(self) -> Sequence[_Cand]: ...
    @property
    def setups(self) -> list[tuple[float, tuple[int, ...]]]: ...


Cover = tuple[frozenset[int], float]


@dataclass
class Covers:
    """Items are class ids ``0..num_classes-1`` and groups ``num_classes + index into setups``."""

    num_classes: int
    #: class -> its covers (items, K), one per exclusion (``EXCLUDE``): every acyclic program of
    #: the class pays at least K within the items
    of: dict[int, list[Cover]]
    #: item -> the most it can pay (a class: its dearest usable candidate; a group: its cost)
    max_pay: dict[int, float]

    def roots_bound(self, roots: Sequence[int]) -> float:
        """A lower bound on the cost of every program holding all ``roots``: their covers
        combined as the children of one alternative (shared items subtracted)."""
        parts = [self.of[r] for r in set(roots) if r in self.of]
        return _combine(set(), 0.0, parts, self.max_pay, range(len(parts[0])) if parts else ())[1]


def _combine(
    taken: set[int], paid: float, parts: list[list[Cover]], max_pay: dict[int, float], usable: Sequence[int]
) -> tuple[set[int], float]:
    """Add one cover of each child (``parts``: its covers, the child with the largest K first;
    of a child, the cover from index ``first`` on that pays most beyond the items already taken)
    to items ``taken`` paying ``paid``: each less the most its items shared with those taken pay."""
    for covers in sorted(parts, key=lambda cs: -max(cs[q][1] for q in usable)):
        best: Cover | None = None
        gain = 0.0
        for q in usable:
            items, k = covers[q]
            shared = items & taken
            if shared:
                k -= sum(max_pay[i] for i in shared)
            if k > gain:
                best, gain = (items, k), k
        if best is not None:
            taken |= best[0]
            paid += gain
    return taken, paid


def cover(pb: Problem, usable: list[list[int]], classes: list[int]) -> Covers | None:
    """The covers of ``classes`` (see the module docstring); None when a usable cost is negative
    (a class could then pay less than nothing)."""
    n = pb.num_classes
    cands = pb.cands
    groups: dict[int, list[int]] = {}  # candidate -> the groups it is in (items)
    max_pay: dict[int, float] = {}
    for g, (cost, group) in enumerate(pb.setups):
        if cost < 0:
            return None
        for j in group:
            groups.setdefault(j, []).append(n + g)
        max_pay[n + g] = cost
    for c in classes:
        costs = [cands[j].cost for j in usable[c]]
        if any(x < 0 for x in costs):
            return None
        max_pay[c] = max(costs, default=0.0)
    kids = {c: [sorted(set(cands[j].children)) for j in usable[c]] for c in classes}
    succ = {c: sorted({ch for ks in kids[c] for ch in ks}) for c in classes}
    users: dict[int, set[int]] = {}
    for c in classes:
        for ch in succ[c]:
            users.setdefault(ch, set()).add(c)
    # the items each of EXCLUSIONS leaves out
    shared = frozenset(c for c, us in users.items() if len(us) > 1)
    grp = frozenset(max_pay.keys() - set(classes))
    excluded = [frozenset[int](), grp, shared, grp | shared]
    # a cover made without the items X may use a child's cover made without a superset of X
    fits = [[q for q, other in enumerate(excluded) if out <= other] for out in excluded]
    empty: list[Cover] = [(frozenset(), 0.0)] * len(excluded)
    of: dict[int, list[Cover]] = {}
    for members in strongly_connected(classes, succ.__getitem__):
        for c in members:
            of.setdefault(c, empty)
        for _ in range(1 if len(members) == 1 else SWEEPS):
            for d in members:
                made: list[Cover] = []
                for e, out in enumerate(excluded):
                    items: set[int] = set()
                    least = math.inf
                    for j, ks in zip(usable[d], kids[d], strict=True):
                        own: set[int] = set()
                        paid = 0.0
                        if max_pay[d] > 0 and d not in out:
                            own.add(d)
                            paid += cands[j].cost
                        for g in groups.get(j, ()):
                            if g not in own and g not in out:
                                own.add(g)
                                paid += max_pay[g]
                        own, paid = _combine(own, paid, [of.get(ch, empty) for ch in ks], max_pay, fits[e])
                        items |= own
                        least = min(least, paid)
                    made.append((frozenset(items), least if math.isfinite(least) else 0.0))
                of[d] = made
    return Covers(n, of, max_pay)
