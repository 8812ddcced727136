"""Strongly connected components of a directed graph (Tarjan's algorithm, iterative).

In: the nodes (any hashable values, visited in the order given) and each node's successors
(a mapping, or a function; visited in the order given).  Out: ``strongly_connected`` -- the
components, children first (a component comes after every component it reaches), each
component's members in the order Tarjan's stack gives them up.  Used by the extraction
model (its cyclic classes), the hitting-set rows and the layering check (import cycles).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TypeVar

N = TypeVar("N", bound=Hashable)


def strongly_connected(nodes: Iterable[N], succ: Mapping[N, Iterable[N]] | Callable[[N], Iterable[N]]
                       ) -> list[list[N]]:
    """Every strongly connected component of the graph, children first (see the module)."""
    after = succ.get if isinstance(succ, Mapping) else succ
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    on: set[N] = set()
    stack: list[N] = []
    out: list[list[N]] = []
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        work = [(root, iter(after(root) or ()))]
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(after(w) or ())))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:  # every successor seen: v is done
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    members: list[N] = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        members.append(w)
                        if w == v:
                            break
                    out.append(members)
    return out
