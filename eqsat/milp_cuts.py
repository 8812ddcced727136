"""Cycle inequalities for the extraction MILP: acyclicity that the LP relaxation sees.

In: the class graph of an extraction ``Problem`` (``eqsat.milp``) restricted to its strongly
connected components -- per class its successors (child classes of its usable candidates) and
the component ids of ``eqsat.milp._sccs``. Out: ``cycle_sets`` -- per component the class sets
``S`` of its short simple cycles, and whether those are all of its cycles.

The inequality of a set ``S`` (a generalised subtour elimination constraint): with ``x_j`` the
candidates of classes in ``S`` that have a child class in ``S`` ("internal" candidates),

    sum_{internal j} x_j  <=  sum_{c in S} y_c - y_m      for every m in S.

Valid: if ``y_m = 1`` the chosen classes of ``S`` form a non-empty acyclic sub-program, so one of
them (a sink) picks a candidate with no child in ``S``; if ``y_m = 0`` each chosen class counts at
most once. An integer solution holding a cycle violates the inequality of its cycle's class set,
so when every simple cycle of a component is listed, the inequalities alone make the component
acyclic (the big-M ordering variables are then not needed). The big-M ordering
``t_c >= t_ch + 1 - |SCC| (1 - x_j)`` is nearly free in the LP (a 2-cycle at x = 1/2 satisfies
it): on the suite's sums the LP bound took half of each cycle ``a = b + r, b = a - r`` -- 16.5
against an optimum of 93 -- which these rows cut off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: the longest cycle listed, and the most class sets per component (beyond either, the
#: component keeps the ordering variables as well; the listed sets still tighten the LP)
MAX_CYCLE = 6
MAX_SETS = 64
#: depth-first steps per component before the listing stops
MAX_STEPS = 20_000


def cycle_sets(
    succ: Mapping[int, Sequence[int]], comp: Mapping[int, int]
) -> dict[int, tuple[list[frozenset[int]], bool]]:
    """Per component id: (class sets of its simple cycles up to ``MAX_CYCLE`` long, at most
    ``MAX_SETS`` of them, the whole component last when it is not among them; True when the
    sets are those of all its simple cycles)."""
    members: dict[int, list[int]] = {}
    for c, cid in comp.items():
        members.setdefault(cid, []).append(c)
    out: dict[int, tuple[list[frozenset[int]], bool]] = {}
    for cid, cs in members.items():
        cs.sort()
        inner = {c: sorted({d for d in succ.get(c, ()) if comp.get(d) == cid}) for c in cs}
        found: list[frozenset[int]] = []
        seen: set[frozenset[int]] = set()
        complete = len(cs) <= MAX_CYCLE
        steps = 0
        capped = False
        for s in cs:
            # simple cycles whose least class is s: depth-first over classes above s
            path = [s]
            on = {s}
            stack = [iter(inner[s])]
            while stack and not capped:
                steps += 1
                if steps > MAX_STEPS:
                    capped = True
                    break
                d = next(stack[-1], None)
                if d is None:
                    stack.pop()
                    on.discard(path.pop())
                    continue
                if d == s:
                    key = frozenset(path)
                    if key not in seen:
                        if len(found) >= MAX_SETS:
                            capped = True
                            break
                        seen.add(key)
                        found.append(key)
                elif d > s and d not in on and len(path) < MAX_CYCLE:
                    path.append(d)
                    on.add(d)
                    stack.append(iter(inner[d]))
            if capped:
                break
        whole = frozenset(cs)
        if whole not in seen:
            found.append(whole)
        out[cid] = (found, complete and not capped)
    return out
