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
is counted once, as the DAG pays it once. The bound adds, once each, the shared costs not paid
yet that every completion pays: those of the candidate just chosen, and those ``must`` holds
for the open classes. ``must[c]`` holds shared costs beside classes: the same equation with
``forced[c]`` -- the shared costs that every usable candidate of ``c`` is a member of (a
rotation class with one candidate: its input's hoisted key-switch setup) -- joined to ``{c}``:
``must[c] = {c} union forced[c] union AND_j OR_ch must[ch]``; by the same induction every
program of ``c`` chooses a candidate of ``c`` (a member of each group in ``forced[c]``, which is
then paid) and holds a program of each of its children. A shared cost is counted apart from the
classes (whose ``cheapest`` is a candidate's own cost), and only while it is not paid (a paid
one is in the cost so far): nothing is counted twice. Classes and shared costs share one bit
space (shared cost ``s`` is bit ``size + s``), so ``held`` carries both and one remembered sum
prices them. A node whose bound is not below the incumbent (less a tolerance) is
cut, and so is a candidate whose node would be; a complete program below it becomes the
incumbent. Candidates are tried cheapest bound first. The forced shared costs cut
rr_reduce_add_and_mul_32's proof of its start from 485 nodes to 189 (its 11 classes with a
choice sit above 64 single-candidate ones, mostly rotations whose setups the bound did not see
until a member was chosen) and proves the start of 6 more of the suite's 36 searched models at the
root. A stronger valid bound cuts only subtrees without a program the search would keep: the
optimum's cost is the same, and a search that proves its incumbent visits a subset of the nodes
it visited before. The options are ordered by the stronger bound, so where several programs tie
in cost and classes the one kept could differ from before (over the suite's models, none did).

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
#: nodes without it (1,216 since the bound counts forced shared costs); the searches of the
#: suite's models that need one took 8-485 nodes (now 1-229) but
#: rr_not_supported_repeated_indices, 1,068 (now 1,030))
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
    usable: Sequence[Sequence[int]], classes: Sequence[int], kids: Mapping[int, tuple[int, ...]],
    own: Sequence[int] | None = None,
) -> dict[int, int]:
    """Per class, a bit mask (bit ``c`` for class ``c``) of the classes in every acyclic program
    of it: the greatest fixpoint of the module docstring's equation, iterated from every class.
    ``own``: per class, more bits that every program of the class holds (the shared costs it
    forces); they join the equation as ``c`` does (``{c} union own[c] union AND OR ...``), and a
    bit in the fixpoint is then held by every program of the class (the same induction)."""
    full = 0
    for c in classes:
        full |= 1 << c
        if own is not None:
            full |= own[c]
    must = dict.fromkeys(classes, full)
    # the sweeps go children first (a depth-first post-order; the fixpoint is the greatest
    # whatever the order, as every step maps a value above it to one above it): an acyclic
    # problem settles in one sweep and a second confirms it (rr_reduce_add_and_mul_32: 7 sweeps
    # in class order)
    order: list[int] = []
    done = set()
    for top in classes:
        if top in done:
            continue
        done.add(top)
        stack = [(top, iter([ch for j in usable[top] for ch in kids[j]]))]
        while stack:
            c, it = stack[-1]
            for ch in it:
                if ch not in done and ch in must:
                    done.add(ch)
                    stack.append((ch, iter([x for j in usable[ch] for x in kids[j]])))
                    break
            else:
                stack.pop()
                order.append(c)
    changed = True
    while changed:
        changed = False
        for c in order:
            inter = full
            for j in usable[c]:
                union = 0
                for ch in kids[j]:
                    union |= must.get(ch, full)
                inter &= union
            new = (inter | (1 << c) | (own[c] if own is not None else 0)) & must[c]
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
    # per candidate (indexed by candidate; the classes' own lists by class): its distinct child
    # classes, their bits, the union of their ``must`` masks, its cost and its shared costs --
    # all fixed for the search, so a node reads them instead of recomputing them per option
    kids: dict[int, tuple[int, ...]] = {}
    for c in classes:
        for j in usable[c]:
            kids[j] = tuple(sorted(set(cands[j].children)))
    size = max(classes) + 1
    # bits: class ``c`` is bit ``c``, shared cost ``s`` bit ``size + s`` (module docstring)
    cheapest = [0.0] * (size + len(pb.setups))
    gbits: dict[int, int] = {}  # candidate -> the bits of its shared costs
    for s, (cost, members) in enumerate(pb.setups):
        cheapest[size + s] = cost
        b = 1 << (size + s)
        for j in members:
            if j in kids:
                gbits[j] = gbits.get(j, 0) | b
    options_of = [0] * size
    forced = [0] * size  # class -> the bits of the shared costs every candidate of it is in
    for c in classes:
        js = usable[c]
        cheapest[c] = min(cands[j].cost for j in js)
        options_of[c] = len(js)
        inter = -1
        for j in js:
            inter &= gbits.get(j, 0)
        forced[c] = inter
    # ``must[c]``: the classes of ``_must`` and the shared costs that every program of ``c`` pays:
    # those its classes force, and those that every candidate's children's programs pay
    must = [0] * size
    for c, m in _must(usable, classes, kids, forced).items():
        must[c] = m
    class_bits = (1 << size) - 1
    #: candidate -> (cost, bits of its shared costs, bits of the children, the union of the
    #: children's ``must`` and its own shared costs)
    info: dict[int, tuple[float, int, int, int]] = {}
    for j, ks in kids.items():
        bits = 0
        gj = gbits.get(j, 0)
        held_by = gj
        for ch in ks:
            bits |= 1 << ch
            held_by |= must[ch]
        info[j] = (cands[j].cost, gj, bits, held_by)
    opts: list[tuple[int, ...]] = [()] * size  # the classes searched: their usable candidates
    for c in classes:
        opts[c] = tuple(usable[c])
    pick = [-1] * size  # class -> chosen candidate (-1: none yet)
    order: list[int] = []  # the classes with a choice, in the order they got it
    budget = NODE_BUDGET if budget is None else budget
    tol = 1e-6 * (1.0 + (abs(incumbent) if math.isfinite(incumbent) else 0.0))
    # the best program's cost and number of classes: a program counts when it is cheaper, or as
    # cheap (within ``tol``) with fewer classes; the incumbent's count is 0, so that only
    # programs cheaper than it count
    best = incumbent
    best_count = 0
    best_pick: dict[int, int] | None = None
    nodes = 0
    # the chosen classes and the paid shared costs
    chosen_mask = 0
    # the cheapest-candidate (or shared-cost) sum of a mask, summed lowest bit first (the order
    # fixes the float result), remembered per mask: a search meets the same masks again and
    # again. Bits whose cost is nothing add nothing and are left out.
    sums: dict[int, float] = {0: 0.0}
    priced = 0
    for b, x in enumerate(cheapest):
        if x:
            priced |= 1 << b

    def bits_sum(mask: int) -> float:
        mask &= priced
        got = sums.get(mask)
        if got is None:
            got = 0.0
            m = mask
            while m:
                low = m & -m
                got += cheapest[low.bit_length() - 1]
                m ^= low
            sums[mask] = got
        return got

    def reaches(src: int, dst: int) -> bool:
        """Does ``src`` reach ``dst`` through the chosen candidates?"""
        seen = {src}
        stack = [src]
        while stack:
            c = stack.pop()
            if c == dst:
                return True
            j = pick[c]
            if j < 0:
                continue
            for ch in kids[j]:
                if ch not in seen:
                    seen.add(ch)
                    stack.append(ch)
        return False

    #: the classes by their number of candidates, the fewest first: the first mask that holds
    #: an open class gives the class branched on (its lowest)
    masks: dict[int, int] = {}
    for c in classes:
        masks[options_of[c]] = masks.get(options_of[c], 0) | 1 << c
    by_options = [masks[k] for k in sorted(masks)]

    def dfs(cost: float, need: int, held: int) -> None:
        # ``held``: what every completion holds that has no choice (classes) or is not paid
        # (shared costs) -- the union of ``must`` over the open classes (needed, no choice) and
        # the shared costs they force, less the chosen and the paid. Passed down, not
        # recomputed: a child's is its parent's with the chosen candidate's ``held_by`` added,
        # less the chosen and paid. The same set: ``must[c]`` lies within ``c`` and the union of
        # ``must`` over the children of any candidate of ``c`` (the fixpoint of ``_must``), and
        # a chosen class's ``must`` within the ``must`` of the open classes below it (its
        # children are needed, and chosen ones recurse down an acyclic choice); a shared cost
        # forced by a class stays held until it is paid.
        # A node is cut when its bound ``lb`` (holding ``count`` classes) is no better than the
        # best: ``lb > best + tol or (lb >= best - tol and count >= best_count)``
        nonlocal chosen_mask, nodes, best, best_count, best_pick
        nodes += 1
        if nodes > budget:
            raise _Budget
        if nodes == FLOOR_AFTER and floor is not None and best_pick is None and incumbent <= floor() + tol:
            raise _Proven
        open_ = need & ~chosen_mask
        npick = len(order)
        if not open_:
            if not (cost > best + tol or (cost >= best - tol and npick >= best_count)):
                best = cost
                best_count = npick
                best_pick = {x: pick[x] for x in order}
            return
        # the open class with the fewest candidates, the lowest first: one with a single
        # candidate when there is one (every class has at least one)
        for by in by_options:
            m = open_ & by
            if m:
                c = (m & -m).bit_length() - 1
                break
        bit = 1 << c
        rest = held & ~bit
        got = sums.get(rest & priced)
        base = cost + (got if got is not None else bits_sum(rest))
        base_count = npick + 1 + (rest & class_bits).bit_count()
        # per candidate of c: the bound with it (its cost, and what its children and its shared
        # costs add to what is held), and what it adds to the cost: its own and its shared
        # costs not paid yet
        options: list[tuple[float, int, int, float]] = []
        paid = chosen_mask
        free = ~(paid | held)
        for j in opts[c]:
            own, gj, _, held_by = info[j]
            more = held_by & free
            got = sums.get(more & priced)
            lb = base + own + (got if got is not None else bits_sum(more))
            count = base_count + (more & class_bits).bit_count()
            if not (lb > best + tol or (lb >= best - tol and count >= best_count)):
                new = gj & ~paid
                options.append((lb, count, j, own + bits_sum(new) if new else own))
        if len(options) > 1:
            options.sort()
        for lb, count, j, add in options:
            if lb > best + tol or (lb >= best - tol and count >= best_count):
                continue
            cyclic = False
            for ch in kids[j]:
                if pick[ch] >= 0 and reaches(ch, c):
                    cyclic = True
                    break
            if cyclic:
                continue
            _, gj, kid_bits, held_by = info[j]
            pick[c] = j
            order.append(c)
            chosen_mask = paid | bit | gj
            dfs(cost + add, need | kid_bits, (held | held_by) & ~chosen_mask)
            chosen_mask = paid
            order.pop()
            pick[c] = -1

    need0 = 0
    held0 = 0
    for r in pb.roots:
        need0 |= 1 << r
        held0 |= must[r]
    try:
        dfs(0.0, need0, held0)
    except _Budget:
        return None
    except _Proven:
        return Result(False, incumbent, {}, nodes)
    if best_pick is not None:
        chosen = best_pick
        total = sum(cands[j].cost for j in chosen.values())
        total += sum(cost for cost, members in pb.setups if any(chosen.get(cands[j].cls) == j for j in members))
        return Result(True, total, chosen, nodes)
    return Result(False, incumbent, {}, nodes)
