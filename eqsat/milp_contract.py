"""Series contraction of an extraction ``Problem``: classes that only one class uses, merged into it.

In: an extraction ``Problem`` (``eqsat.milp``, no noise). Out: a ``Contraction`` -- an equivalent
smaller ``Problem`` (same classes, fewer candidates, renumbered), what each of its candidates
stands for in the original, and the maps of a start (``start``) and of a solution (``expand``)
between the two.

A class ``a`` is *absorbed* when it is not a root, has one candidate ``k`` (of finite cost, not
among its own children), and every candidate that uses it belongs to one class ``c`` (``a`` !=
``c``). Then in every program ``a`` is needed exactly when ``c`` chooses one of those users, and
``a`` then chooses ``k``: each user ``j`` takes over ``k`` -- ``cost(j) += cost(k)``,
``children(j) = children(j) - {a} + children(k)`` -- and ``a`` disappears. A program of the
contracted problem and the original program with ``k`` added under every chosen user correspond
one to one: same cost (at most one user of ``a`` is chosen, as they share the class ``c``), and
cyclic exactly together (a cycle through ``a`` passes ``c -> a -> child of k``, which is ``c ->
child of k`` after the merge; a user whose merged children hold its own class is on a cycle in
every program and is left out by ``_prune``). Candidates of infinite cost or with their own
class as a child, never usable, do not count as users.

A class is kept when its candidate or one of its users is in a shared cost (``setups``: the
hoisted rotations of one input): the path bound of ``eqsat.milp_reduce`` counts such a cost only
while every member keeps its one child class, and merging lost that (``rr_product_loop_32``: its
bound 210, which proves the start without a solve, fell to 171). So shared costs keep their
members, renumbered.
Absorbing a class can leave its children used by one class only, so the contraction repeats
until no class qualifies: a sub-DAG of single-candidate classes that only one alternative of a
class computes (the unrolled source beside a rewritten form, most of a stencil's e-graph)
becomes part of that alternative.

Why: the MILP's columns are then mostly the classes with a choice, not every e-node
(heco_gx_kernel_8x8: 1,116 classes, 13 with a choice; 1,150 columns -> 56), the reductions and
the model are built on that and presolved in a fraction of the time, and the path bound
(``eqsat.milp_reduce``) sums a merged sub-DAG's costs where it took the largest of its branches,
so more alternatives are cut by it. Only for models without noise: the noise model bounds every
class.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from eqsat.milp_reduce import Cand, Problem  # what is read of eqsat.milp.Problem


@dataclass
class Contraction:
    #: the contracted problem: the original's classes, its candidates the ones left (renumbered)
    problem: Problem
    #: per candidate of ``problem``: the original candidate it is
    old: list[int]
    #: original candidate -> the original candidates it took over directly (each of those may
    #: have taken over others)
    took: dict[int, list[int]]
    #: how many classes were absorbed
    absorbed: int

    def inside(self, j: int) -> list[int]:
        """The original candidates that candidate ``j`` of ``problem`` took over (not itself)."""
        out: list[int] = []
        stack = list(self.took.get(self.old[j], ()))
        while stack:
            k = stack.pop()
            out.append(k)
            stack.extend(self.took.get(k, ()))
        return out

    def expand(self, pick: Mapping[int, int], cands: Sequence[Cand]) -> dict[int, int]:
        """A choice (class -> candidate) of ``problem`` as a choice of the original (whose
        candidates are ``cands``): the absorbed classes' candidates added under every chosen
        candidate that took them over."""
        out: dict[int, int] = {}
        for c, j in pick.items():
            out[c] = self.old[j]
            for k in self.inside(j):
                out[cands[k].cls] = k
        return out

    def start(self, warm: Mapping[int, int]) -> dict[int, int]:
        """A choice of the original as a choice of ``problem`` (the absorbed classes left out)."""
        new = {o: j for j, o in enumerate(self.old)}
        return {c: new[j] for c, j in warm.items() if j in new}

    def originals(self, kept: Iterable[int]) -> set[int]:
        """The original candidates that the candidates ``kept`` of ``problem`` stand for."""
        out: set[int] = set()
        for j in kept:
            out.add(self.old[j])
            out.update(self.inside(j))
        return out


def contract(pb: Problem) -> Contraction | None:
    """The series contraction of ``pb`` (see the module docstring); None when no class is absorbed."""
    cands = pb.cands
    roots = set(pb.roots)
    of_class: dict[int, list[int]] = {}
    kids: list[set[int]] = [set(cd.children) for cd in cands]
    parents: dict[int, set[int]] = {}
    cls: list[int] = [cd.cls for cd in cands]
    cost: list[float] = [cd.cost for cd in cands]
    isfinite = math.isfinite
    for j, c in enumerate(cls):
        ks = kids[j]
        if c in ks or not isfinite(cost[j]):
            continue
        got = of_class.get(c)
        if got is None:
            of_class[c] = [j]
        else:
            got.append(j)
        for ch in ks:
            ps = parents.get(ch)
            if ps is None:
                parents[ch] = {j}
            else:
                ps.add(j)
    shared = {j for _, members in pb.setups for j in members}
    single = {c: js[0] for c, js in of_class.items() if len(js) == 1 and c not in roots and js[0] not in shared}
    took: dict[int, list[int]] = {}  # candidate -> the candidates it took over directly
    gone: set[int] = set()
    work = [c for c in single if c in parents]
    while work:
        a = work.pop()
        users = parents.get(a)
        if not users or a in gone:
            continue
        it = iter(users)
        owner = cls[next(it)]
        if owner == a:
            continue
        mixed = False  # a user of another class than ``owner``
        for j in it:
            if cls[j] != owner:
                mixed = True
                break
        if mixed or not shared.isdisjoint(users):
            continue
        k = single[a]
        gone.add(a)
        del parents[a]
        below = kids[k]
        for x in below:
            ps = parents[x]
            ps.discard(k)
            ps.update(users)
            if x in single:
                work.append(x)
        for j in users:
            kj = kids[j]
            kj.discard(a)
            kj |= below
            cost[j] += cost[k]
            t = took.get(j)
            if t is None:
                took[j] = [k]
            else:
                t.append(k)
    if not gone:
        return None
    old = [j for j, c in enumerate(cls) if c not in gone]
    new = {o: j for j, o in enumerate(old)}
    small = [cands[j] if j not in took else
             replace(cands[j], cost=cost[j], children=tuple(sorted(kids[j])))  # type: ignore[type-var]
             for j in old]
    # members of shared costs are never absorbed nor take anything over: only renumbered (a
    # member of an absorbed class is not usable: its class's one usable candidate is another)
    setups = [(s, tuple(new[m] for m in members if m in new)) for s, members in pb.setups]
    return Contraction(replace(pb, cands=small, setups=setups),  # type: ignore[type-var]
                       old, took, len(gone))
