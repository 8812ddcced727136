"""Series contraction of an extraction ``Problem``: classes that only one class uses, merged into it.

In: an extraction ``Problem`` (``eqsat.milp``, no noise). Out: a ``Contraction`` -- an equivalent
smaller ``Problem`` (same classes, fewer candidates, renumbered), what each of its candidates
stands for in the original, and the maps of a start (``start``) and of a solution (``expand``)
between the two.

A class ``a`` is *absorbed* when it is not a root, has one candidate ``k`` (of finite cost, not
among its own children), and every
candidate that uses it belongs to one class ``c`` (``a`` != ``c``). Then in every program ``a`` is
needed exactly when ``c`` chooses one of those users, and ``a`` then chooses ``k``: each user ``j``
takes over ``k`` -- ``cost(j) += cost(k)``, ``children(j) = children(j) - {a} + children(k)`` -- and
``a`` disappears. A program of the contracted problem and the original program with ``k`` added
under every chosen user correspond one to one: same cost (at most one user of ``a`` is chosen,
as they share the class ``c``), and cyclic exactly together (a cycle through ``a`` passes ``c ->
a -> child of k``, which is ``c -> child of k`` after the merge; a user whose merged children
hold its own class is on a cycle in every program and is left out by ``_prune``). Candidates of
infinite cost or with their own class as a child, never usable, are not counted as users. A shared cost
(``setups``) listing ``k`` lists the users instead: ``k`` is chosen exactly when one of them is.
Absorbing a class can leave its children used by one class only, so the contraction repeats
until no class qualifies: a sub-DAG of single-candidate classes that only one alternative of a
class computes (the unrolled source beside a rewritten form, most of a stencil's e-graph)
becomes part of that alternative.

Why: the MILP then has a column per class with a choice instead of per e-node (the 8x8
gx kernel: 1,116 classes, 13 with a choice), the model is built and presolved in a fraction of
the time, and the path bound (``eqsat.milp_reduce``) sums a merged sub-DAG's costs where it took
the largest of its branches. Only for models without noise: the noise model bounds every class.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol


class _Cand(Protocol):
    @property
    def cls(self) -> int: ...
    @property
    def cost(self) -> float: ...
    @property
    def children(self) -> tuple[int, ...]: ...


class Problem(Protocol):
    """What is read of ``eqsat.milp.Problem`` (not imported: ``eqsat.milp`` imports this)."""

    @property
    def cands(self) -> Sequence[_Cand]: ...
    @property
    def roots(self) -> list[int]: ...
    @property
    def setups(self) -> list[tuple[float, tuple[int, ...]]]: ...


@dataclass
class Contraction:
    #: the contracted problem: the original's classes, its candidates the ones left (renumbered)
    problem: Problem
    #: per candidate of ``problem``: the original candidate it is
    old: list[int]
    #: per candidate of ``problem``: the original candidates it took over (not itself)
    inside: list[list[int]]
    #: how many classes were absorbed
    absorbed: int

    def expand(self, pick: Mapping[int, int], cands: Sequence[_Cand]) -> dict[int, int]:
        """A choice (class -> candidate) of ``problem`` as a choice of the original (whose
        candidates are ``cands``): the absorbed classes' candidates added under every chosen
        candidate that took them over."""
        out: dict[int, int] = {}
        for c, j in pick.items():
            out[c] = self.old[j]
            for k in self.inside[j]:
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
            out.update(self.inside[j])
        return out


def contract(pb: Problem) -> Contraction | None:
    """The series contraction of ``pb`` (see the module docstring); None when no class is absorbed."""
    cands = pb.cands
    roots = set(pb.roots)
    of_class: dict[int, list[int]] = {}
    kids: list[set[int]] = []
    parents: dict[int, set[int]] = {}
    for j, cd in enumerate(cands):
        ks = set(cd.children)
        kids.append(ks)
        if cd.cls in ks or not math.isfinite(cd.cost):
            continue
        of_class.setdefault(cd.cls, []).append(j)
        for ch in ks:
            parents.setdefault(ch, set()).add(j)
    cost = [cd.cost for cd in cands]
    inside: dict[int, list[int]] = {}
    gone: set[int] = set()
    work = [c for c, js in of_class.items() if len(js) == 1 and c not in roots and c in parents]
    while work:
        a = work.pop()
        users = parents.get(a)
        if a in gone or not users:
            continue
        owner = cands[next(iter(users))].cls
        if owner == a or any(cands[j].cls != owner for j in users):
            continue
        (k,) = of_class[a]
        gone.add(a)
        del parents[a]
        below = kids[k]
        took = [k, *inside.pop(k, ())]
        for x in below:
            parents[x].discard(k)
        for j in users:
            kids[j].discard(a)
            kids[j] |= below
            cost[j] += cost[k]
            inside.setdefault(j, []).extend(took)
            for x in below:
                parents[x].add(j)
        work.extend(x for x in below if x not in roots and len(of_class.get(x, ())) == 1)
    if not gone:
        return None
    old = [j for j, cd in enumerate(cands) if cd.cls not in gone]
    new = {o: j for j, o in enumerate(old)}
    small = [cands[j] if j not in inside else
             replace(cands[j], cost=cost[j], children=tuple(sorted(kids[j])))  # type: ignore[type-var]
             for j in old]
    host: dict[int, list[int]] = {}
    for j, took in inside.items():
        for k in took:
            host.setdefault(k, []).append(new[j])
    setups: list[tuple[float, tuple[int, ...]]] = []
    for s, members in pb.setups:
        now: list[int] = []
        for m in members:
            for j in host.get(m, [new[m]] if m in new else []):
                if j not in now:
                    now.append(j)
        if now:
            setups.append((s, tuple(now)))
    return Contraction(replace(pb, cands=small, setups=setups),  # type: ignore[type-var]
                       old, [inside.get(j, []) for j in old], len(gone))
