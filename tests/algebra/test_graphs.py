"""eqsat/algebra/graphs.py: the components are the mutual-reachability classes, children first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from eqsat.algebra.graphs import strongly_connected


def _reach(n: int, succ: list[list[int]]) -> list[set[int]]:
    out = []
    for s in range(n):
        seen, todo = {s}, [s]
        while todo:
            for w in succ[todo.pop()]:
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        out.append(seen)
    return out


@given(st.integers(1, 12).flatmap(
    lambda n: st.lists(st.lists(st.integers(0, n - 1), max_size=4), min_size=n, max_size=n)))
def test_components_are_mutual_reachability_children_first(succ: list[list[int]]) -> None:
    n = len(succ)
    reach = _reach(n, succ)
    comps = strongly_connected(range(n), succ.__getitem__)
    assert sorted(v for c in comps for v in c) == list(range(n))
    where = {v: k for k, c in enumerate(comps) for v in c}
    for a in range(n):
        for b in range(n):
            assert (where[a] == where[b]) == (b in reach[a] and a in reach[b])
            if b in reach[a]:
                assert where[b] <= where[a]  # a component after every one it reaches


def test_a_mapping_and_nodes_outside_it() -> None:
    comps = strongly_connected(["a", "b", "c"], {"a": ["b"], "b": ["a", "d"]})
    assert sorted(map(sorted, comps)) == [["a", "b"], ["c"], ["d"]]
