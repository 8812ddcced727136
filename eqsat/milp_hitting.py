"""Hitting-set inequalities for the extraction MILP: the sharing that the LP relaxation fakes.

In: an extraction ``Problem`` (``eqsat.milp``) after its reductions -- the usable candidates per
class and the reachable classes. Out: ``hitting_sets`` -- per class ``d`` small class sets ``S``
that every acyclic program of ``d`` contains a member of, each giving the valid inequality

    sum_{c in S} y_c  >=  y_d.

Why: the relaxation lets a class be needed at a fraction by several users that no integer
program chooses together -- a root split 1/7 over seven sums, each summing the slots with other
rotations, pays each rotation 1/7 (dot_product_8: LP 23.8 against the optimum 105). Every program
of an 8-slot sum still holds, for each slot, the rotation that brings it or the scalar that
extracts it: ``y_rot7 + y_ext7 >= 1`` is such a set, and it cuts that relaxation off.

The family ``H(d)`` (minimal sets, at most ``MAX_SIZE`` classes each) is a fixpoint of

    H(d) = {{d}}  union  AND_{alternatives j of d} ( OR_{children ch of j} H(ch) )

where OR is the union of the children's families (a set hitting one child's programs hits the
alternative's) and AND takes the pairwise unions (a set must hit every alternative). Valid by
induction on a program's height: an acyclic program of ``d`` picks some alternative ``j``, whose
children's sub-programs are acyclic programs of smaller height. The iteration starts from the
top (every set hits) and goes down; a final check keeps only sets that satisfy the equation's
right-hand side against the families kept (a post-fixpoint, so the induction holds whatever the
iteration limits cut short). Any subset of a family that still satisfies the equation with the
kept sets is valid too: ``weights`` (the LP's y) drop every set weighing 1 or more, which no row
``sum_S y >= y_d <= 1`` of the relaxation can violate, and each family keeps its ``MAX_SETS``
lightest sets. A family is its singletons (the classes in every program of ``d``) and its pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from eqsat.algebra.graphs import strongly_connected

#: the most sets kept per class (the lightest first), and the sweeps of a cycle's classes
MAX_SETS = 48
MAX_SWEEPS = 12

Family = tuple[frozenset[int], frozenset[tuple[int, int]]]  # (singletons, pairs (a < b))


class _Cand(Protocol):
    @property
    def children(self) -> tuple[int, ...]: ...


class Problem(Protocol):
    """What is read of ``eqsat.milp.Problem`` (not imported: ``eqsat.milp`` imports this)."""

    @property
    def cands(self) -> Sequence[_Cand]: ...


class _Families:
    """The fixpoint computation over the classes ``0..n-1`` (positions)."""

    def __init__(self, alts: list[list[list[int]]], weight: list[float]) -> None:
        self.alts = alts
        self.w = weight
        self.fam: list[Family | None] = [None] * len(alts)  # None: the top (every set hits)

    def _trim(self, singles: set[int], pairs: set[tuple[int, int]], own: int) -> Family:
        w = self.w
        pairs = {p for p in pairs if p[0] not in singles and p[1] not in singles and w[p[0]] + w[p[1]] < 1.0 - 1e-9}
        singles = {c for c in singles if w[c] < 1.0 - 1e-9 or c == own}
        if len(singles) + len(pairs) > MAX_SETS:
            ranked = sorted([(w[c], 0, c, c) for c in singles] + [(w[a] + w[b], 1, a, b) for a, b in pairs])
            ranked = ranked[:MAX_SETS]
            singles = {r[2] for r in ranked if r[1] == 0} | {own}
            pairs = {(r[2], r[3]) for r in ranked if r[1] == 1}
        return frozenset(singles), frozenset(pairs)

    def rhs(self, i: int) -> Family:
        """The right-hand side of the equation for the class at position ``i``."""
        acc: tuple[set[int], set[tuple[int, int]]] | None = None
        for kids in self.alts[i]:
            fams = [self.fam[k] for k in kids]
            if any(f is None for f in fams):
                continue  # a child still at the top: the alternative imposes nothing yet
            s1: set[int] = set()
            p1: set[tuple[int, int]] = set()
            for f in fams:
                s1 |= f[0]  # type: ignore[index]
                p1 |= f[1]  # type: ignore[index]
            if acc is None:
                acc = (s1, p1)
                continue
            s0, p0 = acc
            singles = s0 & s1
            pairs = {p for p in p0 if p in p1 or p[0] in s1 or p[1] in s1}
            pairs |= {p for p in p1 if p[0] in s0 or p[1] in s0}
            for a in s0 - singles:
                for b in s1 - singles:
                    if a != b:
                        pairs.add((a, b) if a < b else (b, a))
            acc = (singles, pairs)
            if not singles and not pairs:
                break
        if acc is None:
            return self._trim({i}, set(), i)
        return self._trim(acc[0] | {i}, acc[1], i)

    def hit(self, i: int, members: tuple[int, ...]) -> bool:
        """Does the set ``members`` (one class or a pair) hit every alternative of ``i`` through
        a set of a child's current family?"""
        for kids in self.alts[i]:
            ok = False
            for k in kids:
                f = self.fam[k]
                if f is None:
                    continue
                if any(m in f[0] for m in members) or members in f[1]:
                    ok = True
                    break
            if not ok:
                return False
        return True

    def settle(self, members: list[int]) -> None:
        """Drop the sets of a component's families that the equation does not support, until
        none is left to drop (a post-fixpoint: valid)."""
        while True:
            dropped = False
            for i in members:
                f = self.fam[i]
                if f is None:
                    f = (frozenset({i}), frozenset())
                singles = frozenset(c for c in f[0] if c == i or self.hit(i, (c,)))
                pairs = frozenset(p for p in f[1] if self.hit(i, p))
                if (singles, pairs) != f:
                    self.fam[i] = (singles, pairs)
                    dropped = True
            if not dropped:
                return


def hitting_sets(
    pb: Problem, usable: list[list[int]], classes: list[int], weights: Mapping[int, float] | None = None
) -> dict[int, list[frozenset[int]]]:
    """Per class ``d``: the sets ``S`` (not ``{d}`` itself) with ``sum_S y >= y_d`` valid.
    ``weights``: class -> its value in the LP relaxation (sets weighing 1 or more are left out;
    none: every class weighs 0)."""
    pos = {c: i for i, c in enumerate(classes)}
    alts = [[sorted({pos[ch] for ch in pb.cands[j].children}) for j in usable[c]] for c in classes]
    n = len(classes)
    fams = _Families(alts, [float(weights.get(c, 0.0)) if weights else 0.0 for c in classes])
    succ = [sorted({k for kids in alts[i] for k in kids}) for i in range(n)]
    for members in strongly_connected(range(n), succ.__getitem__):
        # children first: every class outside the component already has its family; a cycle's
        # classes are swept until nothing changes (or MAX_SWEEPS, then settled)
        for _ in range(1 if len(members) == 1 else MAX_SWEEPS):
            changed = False
            for i in members:
                new = fams.rhs(i)
                if fams.fam[i] != new:
                    fams.fam[i] = new
                    changed = True
            if not changed:
                break
        else:
            if len(members) > 1:
                fams.settle(members)
    out: dict[int, list[frozenset[int]]] = {}
    for d in classes:
        f = fams.fam[pos[d]]
        if f is None:
            continue
        i = pos[d]
        sets = [frozenset({classes[c]}) for c in f[0] if c != i]
        sets += [frozenset({classes[a], classes[b]}) for a, b in f[1]]
        if sets:
            out[d] = sets
    return out
