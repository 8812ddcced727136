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

from eqsat import milp_reduce
from eqsat.algebra.graphs import strongly_connected

#: sweeps over a cycle's classes (each sweep's covers are valid; more sweeps can only grow K)
SWEEPS = 3
#: the covers of each class, by the items they are made without: none, the shared-cost groups,
#: the classes that two or more classes use, both
EXCLUSIONS = ("none", "groups", "shared", "groups+shared")


class Problem(milp_reduce.Problem, Protocol):
    """What is read of ``eqsat.milp.Problem`` (not imported: ``eqsat.milp`` imports this)."""

    @property
    def num_classes(self) -> int: ...


Cover = tuple[int, float]  # (items as a bit mask over ``Covers.ids``, K)


@dataclass
class Covers:
    """Items are class ids ``0..num_classes-1`` and groups ``num_classes + index into setups``;
    a cover holds them as a bit mask (bit ``b`` is the item ``ids[b]``)."""

    num_classes: int
    #: class -> its covers (items, K), one per exclusion (``EXCLUSIONS``): every acyclic program
    #: of the class pays at least K within the items
    of: dict[int, list[Cover]]
    #: bit -> item
    ids: list[int]
    #: bit -> the most its item can pay (a class: its dearest usable candidate; a group: its cost)
    max_pay: list[float]

    def items(self, mask: int) -> frozenset[int]:
        """The items of a cover's mask."""
        return frozenset(self.ids[b] for b in _bits(mask))

    def roots_bound(self, roots: Sequence[int]) -> float:
        """A lower bound on the cost of every program holding all ``roots``: their covers
        combined as the children of one alternative (shared items subtracted)."""
        parts = [self.of[r] for r in set(roots) if r in self.of]
        return _combine(0, 0.0, parts, self.max_pay, range(len(parts[0])) if parts else ())[1]


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _combine(
    taken: int, paid: float, parts: list[list[Cover]], max_pay: list[float], fits: Sequence[int]
) -> tuple[int, float]:
    """Add one cover of each child (``parts``: its covers; the child with the largest K first;
    of a child, the cover among ``fits`` that pays most beyond the items already taken) to items
    ``taken`` paying ``paid``: each less the most its items shared with those taken can pay."""
    for covers in sorted(parts, key=lambda cs: -max(cs[q][1] for q in fits)):
        best = 0
        gain = 0.0
        for q in fits:
            items, k = covers[q]
            if k <= gain:
                continue
            shared = items & taken
            while shared and k > gain:
                low = shared & -shared
                k -= max_pay[low.bit_length() - 1]
                shared ^= low
            if k > gain:
                best, gain = items, k
        if gain > 0:
            taken |= best
            paid += gain
    return taken, paid


def cover(pb: Problem, usable: list[list[int]], classes: list[int]) -> Covers | None:
    """The covers of ``classes`` (see the module docstring); None when a usable cost is negative
    (a class could then pay less than nothing)."""
    cands = pb.cands
    bit = {c: b for b, c in enumerate(classes)}
    ids = list(classes)
    max_pay: list[float] = []
    for c in classes:
        costs = [cands[j].cost for j in usable[c]]
        if any(x < 0 for x in costs):
            return None
        max_pay.append(max(costs, default=0.0))
    groups: dict[int, int] = {}  # candidate -> the mask of the groups it is in
    grp = 0
    for g, (cost, group) in enumerate(pb.setups):
        if cost < 0:
            return None
        b = 1 << len(ids)
        ids.append(pb.num_classes + g)
        max_pay.append(cost)
        grp |= b
        for j in group:
            groups[j] = groups.get(j, 0) | b
    kids = {c: [sorted(set(cands[j].children)) for j in usable[c]] for c in classes}
    succ = {c: sorted({ch for ks in kids[c] for ch in ks}) for c in classes}
    users: dict[int, set[int]] = {}
    for c in classes:
        for ch in succ[c]:
            users.setdefault(ch, set()).add(c)
    # the items each of EXCLUSIONS leaves out
    shared = 0
    for c, us in users.items():
        if len(us) > 1 and c in bit:
            shared |= 1 << bit[c]
    excluded = [0, grp, shared, grp | shared]
    # a cover made without the items X may use a child's cover made without a superset of X
    fits = [[q for q, other in enumerate(excluded) if out & ~other == 0] for out in excluded]
    empty: list[Cover] = [(0, 0.0)] * len(excluded)
    of: dict[int, list[Cover]] = {}
    for members in strongly_connected(classes, succ.__getitem__):
        for c in members:
            of.setdefault(c, empty)
        for _ in range(1 if len(members) == 1 else SWEEPS):
            for d in members:
                own_bit = 1 << bit[d] if max_pay[bit[d]] > 0 else 0
                alts = [(cands[j].cost, groups.get(j, 0), [of.get(ch, empty) for ch in ks])
                        for j, ks in zip(usable[d], kids[d], strict=True)]
                made: list[Cover] = []
                for out, fit in zip(excluded, fits, strict=True):
                    items = 0
                    least = math.inf
                    for cost, gmask, parts in alts:
                        own = own_bit & ~out
                        paid = cost if own else 0.0
                        gs = gmask & ~out
                        own |= gs
                        while gs:
                            low = gs & -gs
                            paid += max_pay[low.bit_length() - 1]
                            gs ^= low
                        own, paid = _combine(own, paid, parts, max_pay, fit)
                        items |= own
                        least = min(least, paid)
                    made.append((items, least if math.isfinite(least) else 0.0))
                of[d] = made
    return Covers(pb.num_classes, of, ids, max_pay)
