"""The incremental DAG cost (eqsat.extract.incremental) equals the whole-DAG recomputation.

Random e-graphs (cycles allowed, plaintext and ciphertext leaves, classes without a choice),
random choices and random switches: ``DagCost.switched`` must give exactly what
``_solution_cost`` computes on the switched choice (inf for a cycle or a missing choice), or
with a limit, the same below it and a value from the limit up otherwise; and after ``commit``
the state must equal a fresh one.  Also: ``refine`` keeps its result on the extraction tests'
e-graphs.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from test_ilp import view  # the extraction-gym JSON builder of the ILP tests

from eqsat.egraph.view import EGraphView
from eqsat.extract import dag
from eqsat.extract.dag import _solution_cost, greedy_dag, node_cost, refine
from eqsat.extract.incremental import DagCost
from eqsat.models.cost import CostTable, table

OPS = [("Add", 2), ("Sub", 2), ("Mul", 2), ("Neg", 1), ("Rot", 1), ("Ext", 1), ("In", 0), ("Num", 0)]


@st.composite
def egraphs(draw: st.DrawFn) -> tuple[EGraphView, list[int], list[int]]:
    """(view, a choice, roots): up to 14 classes of 1-3 e-nodes over any classes (cycles too)."""
    ncls = draw(st.integers(2, 14))
    js: dict[str, dict[str, object]] = {}
    for c in range(ncls):
        for k in range(draw(st.integers(1, 3))):
            op, arity = draw(st.sampled_from(OPS))
            nid = f"c{c}.{k}"
            if c == 0 and arity:  # class 0 has a leaf, so lower classes can be complete
                op, arity = "In", 0
            # mostly lower classes (a DAG), sometimes any class (cycles)
            kids = [f"c{draw(st.integers(0, ncls - 1 if draw(st.integers(0, 3)) == 0 else max(c - 1, 0)))}.0"
                    for _ in range(arity)]
            if op == "In":  # 6 slots: a ragged vector (its rotations pay the lowering surcharge)
                lits: list[object] = [draw(st.sampled_from(["x", "y", "w"])), draw(st.sampled_from([8, 6]))]
            elif op == "Num":
                lits = [draw(st.integers(0, 3)), 8]
            elif op in ("Rot", "Ext"):
                lits = [draw(st.integers(0, 3))]
            else:
                lits = []
            children = list(kids)
            for j, lit in enumerate(lits):
                pid = f"primitive-{nid}-{j}"
                js[pid] = {"op": f'"{lit}"' if isinstance(lit, str) else str(lit), "children": [], "eclass": pid}
                children.append(pid)
            js[nid] = {"op": op, "children": children, "eclass": f"c{c}"}
    nroots = draw(st.integers(1, 3))
    for k in range(nroots):
        js[f"primitive-root{k}"] = {"op": str(k), "children": [], "eclass": f"primitive-root{k}"}
        js[f"root{k}"] = {"op": "Root", "children": [f"primitive-root{k}"],
                          "eclass": f"c{draw(st.integers(0, ncls - 1))}"}
    g = EGraphView({"nodes": js}, plain_inputs=frozenset({"w"}))  # w: a plaintext argument
    choice = [draw(st.sampled_from(g.class_nodes[c] + [-1] if draw(st.integers(0, 29)) == 0 else g.class_nodes[c]))
              for c in range(g.num_classes)]
    return g, choice, [g.root(k) for k in range(nroots)]


FLAT = table("bgv", {"rotate": 7, "mul": 5, "mul_plain": 2.5, "add": 1, "add_plain": 0.75, "neg": 0.5,
                     "extract": 3, "insert": 3})
#: hoisted rotations priced (a further rotation of one input costs 4, not 7) and the default
#: table (hoisting and the ragged-rotation surcharge as shipped)
HOISTED = table("bgv", {**FLAT.costs, "rotate_hoisted": 4})
TABLES = {"flat": FLAT, "hoisted": HOISTED, "default": table("bgv")}


@settings(max_examples=300, deadline=None)
@given(egraphs(), st.data(), st.sampled_from(sorted(TABLES)))
def test_switched_equals_recompute(case: tuple[EGraphView, list[int], list[int]], data: st.DataObject,
                                   which: str) -> None:
    COSTS = TABLES[which]
    g, node_of, roots = case
    state = DagCost(g, list(node_of), roots, COSTS, node_cost)
    assert state.total == _solution_cost(g, node_of, roots, COSTS)
    for _ in range(6):
        if math.isinf(state.total):
            return
        reach = [x for x in range(g.num_classes) if state.reachable(x)]  # mostly switches that matter
        c = data.draw(st.sampled_from(reach) if data.draw(st.integers(0, 4)) else st.integers(0, g.num_classes - 1))
        alt = data.draw(st.sampled_from(g.class_nodes[c]))
        switched = list(state.node_of)
        switched[c] = alt
        want = _solution_cost(g, switched, roots, COSTS)
        got = state.switched(c, alt)
        assert (math.isinf(got) and math.isinf(want)) or math.isclose(got, want, abs_tol=1e-9), (c, alt)
        # with a limit: exact below it, else anything from the limit up (refine asks "below best?")
        limit = data.draw(st.sampled_from([state.total, state.total - 1.0, state.total + 2.5, 0.0]))
        capped = state.switched(c, alt, limit)
        if want < limit - 1e-9:
            assert math.isclose(capped, want, abs_tol=1e-9), (c, alt, limit)
        else:
            assert capped >= limit - 1e-9, (c, alt, limit, capped, want)
        if data.draw(st.booleans()):
            state.commit(c, alt)
            assert state.node_of == switched
            fresh = DagCost(g, list(switched), roots, COSTS, node_cost)
            assert (math.isinf(state.total) and math.isinf(fresh.total)) or state.total == fresh.total


def _shared_realization() -> tuple[EGraphView, CostTable]:
    """A's cheapest own realization shares nothing; switching A to -S shares S with B."""
    g = view([("x.0", "In", [], ["x", 8]), ("y.0", "In", [], ["y", 8]), ("xy.0", "Add", ["x.0", "y.0"], []),
              ("a.0", "Mul", ["xy.0", "y.0"], []), ("a.1", "Neg", ["s.0"], []), ("s.0", "Rot", ["x.0"], [1]),
              ("b.0", "Rot", ["s.0"], [1]), ("r.0", "Add", ["a.0", "b.0"], [])], "r")
    return g, table("noisy", {"rotate": 4, "mul": 2, "add": 1, "neg": 1})


def test_refine_finds_the_shared_realization() -> None:
    g, costs = _shared_realization()
    roots = [g.root(0)]
    greedy = greedy_dag(g, costs)
    assert _solution_cost(g, greedy.node, roots, costs) == 12.0
    assert _solution_cost(g, refine(g, greedy, roots, costs).node, roots, costs) == 10.0


def _refine_trying_everything(g: EGraphView, choice: list[int], roots: list[int], costs: object) -> list[int]:
    """``refine`` as it was before it skipped the switches already tried on the same choice:
    every round tries every switch again (the reference its result must equal)."""
    from eqsat.extract.dag import _reachable, _rebase_outside

    node_of = list(choice)
    state = DagCost(g, node_of, roots, costs, node_cost)  # type: ignore[arg-type]
    best = state.total
    for lookahead in (False, True):
        for _ in range(4):
            improved = False
            if lookahead and math.isfinite(state.total) and _rebase_outside(g, node_of, state, costs):  # type: ignore[arg-type]
                state = DagCost(g, node_of, roots, costs, node_cost)  # type: ignore[arg-type]
            for c in _reachable(g, node_of, roots):
                cur = node_of[c]
                for alt in g.class_nodes[c]:
                    if alt == cur or not g.nodes[alt].extractable:
                        continue
                    if any(node_of[ch] < 0 for ch in g.nodes[alt].children):
                        continue
                    if math.isinf(state.total):
                        node_of[c] = alt
                        cost = _solution_cost(g, node_of, roots, costs)  # type: ignore[arg-type]
                        node_of[c] = cur
                    else:
                        cost = state.switched(c, alt, best - 1e-9)
                    if cost < best - 1e-9:
                        state.commit(c, alt)
                        best, cur, improved = state.total, alt, True
            if not improved:
                break
    return node_of


@settings(max_examples=300, deadline=None)
@given(egraphs(), st.sampled_from(sorted(TABLES)))
def test_refine_skips_only_repeated_switches(case: tuple[EGraphView, list[int], list[int]], which: str) -> None:
    """``refine`` gives the choice of the version that tried every switch again in every round,
    and never asks ``switched`` about one switch twice while the choice stays the same."""
    costs = TABLES[which]
    g, _, roots = case
    start = greedy_dag(g, costs)  # refine's start in the pipeline (acyclic; -1 where no program)
    if any(start.node[r] < 0 for r in roots):
        return
    node_of = list(start.node)
    want = _refine_trying_everything(g, node_of, roots, costs)
    asked: list[tuple[int, int] | None] = []
    switched, commit = DagCost.switched, DagCost.commit

    def spy_switched(self: DagCost, c: int, alt: int, limit: float = math.inf) -> float:
        asked.append((c, alt))
        return switched(self, c, alt, limit)

    def spy_commit(self: DagCost, c: int, alt: int) -> None:
        asked.append(None)  # the choice changed: every switch may be asked about again
        commit(self, c, alt)

    rebase = dag._rebase_outside

    def spy_rebase(*a: object, **k: object) -> bool:
        changed = rebase(*a, **k)  # type: ignore[arg-type]
        if changed:
            asked.append(None)  # the second phase's rebase changed the spare e-nodes: the same
        return changed

    DagCost.switched, DagCost.commit = spy_switched, spy_commit  # type: ignore[method-assign]
    dag._rebase_outside = spy_rebase  # type: ignore[assignment]
    try:
        got = refine(g, start, roots, costs)
    finally:
        DagCost.switched, DagCost.commit = switched, commit  # type: ignore[method-assign]
        dag._rebase_outside = rebase  # type: ignore[assignment]
    assert got.node == want
    since: set[tuple[int, int]] = set()
    for a in asked:
        if a is None:
            since.clear()
        else:
            assert a not in since, a
            since.add(a)


def test_refine_asks_each_switch_once_per_choice() -> None:
    """On the shared-realization e-graph: one improving round, then a round that would ask
    about the same switches on the same choice again (the old loop did)."""
    g, costs = _shared_realization()
    roots = [g.root(0)]
    greedy = greedy_dag(g, costs)
    calls = [0]
    switched = DagCost.switched

    def counting(self: DagCost, c: int, alt: int, limit: float = math.inf) -> float:
        calls[0] += 1
        return switched(self, c, alt, limit)

    DagCost.switched = counting  # type: ignore[method-assign]
    try:
        out = refine(g, greedy, roots, costs)
    finally:
        DagCost.switched = switched  # type: ignore[method-assign]
    assert _solution_cost(g, out.node, roots, costs) == 10.0
    ours = calls[0]
    calls[0] = 0
    DagCost.switched = counting  # type: ignore[method-assign]
    try:
        assert _refine_trying_everything(g, list(greedy.node), roots, costs) == out.node
    finally:
        DagCost.switched = switched  # type: ignore[method-assign]
    assert ours < calls[0], (ours, calls[0])


def _greedy_queueing_everything(g: EGraphView, costs: CostTable) -> list[int]:
    """``greedy_dag`` as it was before it left unextractable e-nodes (summaries) out of its
    queue: every user of a class that improves is queued (the reference its result must equal)."""
    import heapq

    from eqsat.extract.dag import _ready_order, _users

    users = _users(g)
    rank = _ready_order(g, users)
    nc = g.num_classes
    best_cost, best_node, best_set = [math.inf] * nc, [-1] * nc, [0] * nc
    secret, own = [False] * nc, [0.0] * nc
    buckets: dict[float, int] = {}
    heap = [(0.0, idx) for idx, n in enumerate(g.nodes) if not n.children and n.extractable]
    heapq.heapify(heap)
    queued = {idx for _, idx in heap}
    while heap:
        _, idx = heapq.heappop(heap)
        queued.discard(idx)
        n = g.nodes[idx]
        c = n.cls
        if any(best_node[ch] < 0 for ch in n.children):
            continue
        bits = 0
        for ch in n.children:
            bits |= best_set[ch]
        me = 1 << rank[c]
        if bits & me:
            continue
        w, sec = node_cost(n, [secret[ch] for ch in n.children], costs)
        if math.isinf(w):
            continue
        total: float = 0
        for bw, bb in buckets.items():
            if bw:
                total += bw * (bits & bb).bit_count()
        total += w
        new_bits = bits | me
        tie = abs(total - best_cost[c]) <= 1e-9 and new_bits.bit_count() < best_set[c].bit_count()
        if total < best_cost[c] - 1e-9 or tie or best_node[c] < 0:
            if best_node[c] >= 0:
                buckets[own[c]] &= ~me
            best_cost[c], best_node[c], secret[c], own[c], best_set[c] = total, idx, sec, w, new_bits
            buckets[w] = buckets.get(w, 0) | me
            for p in users[0][c]:
                if p not in queued:
                    heapq.heappush(heap, (total, p))
                    queued.add(p)
    return best_node


@settings(max_examples=300, deadline=None)
@given(egraphs(), st.data(), st.sampled_from(sorted(TABLES)))
def test_greedy_leaves_summaries_out_of_its_queue(case: tuple[EGraphView, list[int], list[int]],
                                                  data: st.DataObject, which: str) -> None:
    # summaries (unextractable e-nodes over any classes) among the users: the same choices as
    # when they are queued and popped for nothing
    import copy

    from eqsat.egraph.view import ENode

    g0, _, _ = case
    g = copy.copy(g0)
    g.nodes = list(g0.nodes)
    g.class_nodes = [list(ns) for ns in g0.class_nodes]
    for _ in range(data.draw(st.integers(0, 2 * g.num_classes))):
        c = data.draw(st.integers(0, g.num_classes - 1))
        kids = tuple(data.draw(st.lists(st.integers(0, g.num_classes - 1), min_size=1, max_size=3)))
        at = data.draw(st.integers(0, len(g.nodes)))  # anywhere among the e-nodes: indices shift
        g.nodes.insert(at, ENode("LinRot", c, kids, ("0*1", 8), False))
    g.class_nodes = [[] for _ in range(g.num_classes)]
    for idx, n in enumerate(g.nodes):
        g.class_nodes[n.cls].append(idx)
    assert greedy_dag(g, TABLES[which]).node == _greedy_queueing_everything(g, TABLES[which])


@settings(max_examples=300, deadline=None)
@given(egraphs(), st.sampled_from(sorted(TABLES)))
def test_rebase_keeps_the_state(case: tuple[EGraphView, list[int], list[int]], which: str) -> None:
    """``refine`` keeps its ``DagCost`` across ``_rebase_outside`` (no rebuild): the rebase
    changes only classes outside the program, and a state built afresh on the rebased choice
    equals the kept one in every field."""
    costs = TABLES[which]
    g, _, roots = case
    start = greedy_dag(g, costs)
    node_of = list(start.node)
    state = DagCost(g, node_of, roots, costs, node_cost)
    if not math.isfinite(state.total):
        return
    fields = ("pos", "refs", "secret", "own", "users", "rot_count", "ragged", "total", "_own_total")
    before = {f: getattr(state, f) for f in fields}
    dag._rebase_outside(g, node_of, state, costs)
    fresh = DagCost(g, node_of, roots, costs, node_cost)
    for f in fields:
        assert getattr(fresh, f) == before[f] == getattr(state, f), f


@settings(max_examples=300, deadline=None)
@given(egraphs(), st.sampled_from(sorted(TABLES)))
def test_refine_builds_one_state(case: tuple[EGraphView, list[int], list[int]], which: str) -> None:
    """The second phase's rebase does not rebuild the state: one ``DagCost`` per ``refine``."""
    costs = TABLES[which]
    g, _, roots = case
    built = [0]
    init = DagCost.__init__

    def counting(self: DagCost, *a: object, **k: object) -> None:
        built[0] += 1
        init(self, *a, **k)  # type: ignore[arg-type]

    DagCost.__init__ = counting  # type: ignore[method-assign]
    try:
        refine(g, greedy_dag(g, costs), roots, costs)
    finally:
        DagCost.__init__ = init  # type: ignore[method-assign]
    assert built[0] == 1
