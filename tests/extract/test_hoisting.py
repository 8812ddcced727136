"""Hoisted rotations in the cost model: program cost, DAG cost, refine and the ILP agree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_ilp import X, view

from eqsat.extract.dag import dag_cost, greedy_dag, refine
from eqsat.extract.ilp import egraph_problem, ilp_extract
from eqsat.ir import Builder, Type
from eqsat.models.cost import table
from eqsat.models.hoisting import hoisted_rotations, program_cost, rotations_by_input

# r = a + b with a = rot(x, 1); b = rot(x, 2) (hoisted with a) or y * y (a product)
GRAPH = [*X,
         ("a.0", "Rot", ["x.0"], [1]),
         ("b.0", "Rot", ["x.0"], [2]),
         ("b.1", "Mul", ["y.0", "y.0"], []),
         ("r.0", "Add", ["a.0", "b.0"], [])]
PRICES = {"rotate": 10, "mul": 7, "add": 1, "relinearize": 0}


def test_hoisting_changes_the_choice_and_costs_agree() -> None:
    g = view(GRAPH, "r")
    roots = [g.root(0)]
    b = g.class_nodes[g.nodes[g.class_nodes[roots[0]][0]].children[1]]
    rot_b = next(i for i in b if g.nodes[i].op == "Rot")
    mul_b = next(i for i in b if g.nodes[i].op == "Mul")
    flat = table("bgv", {**PRICES, "rotate_hoisted": 10})  # no hoisting: the product is cheaper
    hoist = table("bgv", {**PRICES, "rotate_hoisted": 4})
    bcls = g.nodes[rot_b].cls
    choice, info = ilp_extract(g, roots, flat)
    assert choice.node[bcls] == mul_b and info["objective"] == dag_cost(g, choice, roots, flat) == 18.0
    choice, info = ilp_extract(g, roots, hoist)
    # a pays the full rotation, b the hoisted increment: 10 + 4 + 1
    assert choice.node[bcls] == rot_b and info["objective"] == dag_cost(g, choice, roots, hoist) == 15.0
    greedy = greedy_dag(g, hoist)  # greedy prices rotations fully; refine sees the sharing
    assert greedy.node[bcls] == mul_b
    refined = refine(g, greedy, roots, hoist)
    assert refined.node[bcls] == rot_b and dag_cost(g, refined, roots, hoist) == 15.0


def test_problem_groups_rotations_by_input_only_when_hoisting_saves() -> None:
    g = view(GRAPH, "r")
    roots = [g.root(0)]
    pb = egraph_problem(g, roots, table("bgv", {**PRICES, "rotate_hoisted": 4}))
    assert [(s, len(m)) for s, m in pb.setups] == [(6.0, 2)]
    assert sorted(pb.cands[j].cost for j in pb.setups[0][1]) == [4.0, 4.0]
    assert egraph_problem(g, roots, table("bgv", {**PRICES, "rotate_hoisted": 10})).setups == []
    assert egraph_problem(g, roots, table("noisy")).setups == []  # the article's model has no hoisting


def test_program_cost_of_slot_reads() -> None:
    b = Builder("reads")
    x = b.arg("x", Type((8,), "i32", True))
    y = b.arg("y", Type((8,), "i32", True))
    reads = [b.extract(x, i) for i in range(4)]  # slot 0 is free; slots 1..3 rotate x
    acc = reads[0]
    for r in reads[1:]:
        acc = b.add(acc, r)
    acc = b.add(acc, b.extract(b.rotate(y, 1), 0))
    prog = b.finish([acc])
    assert rotations_by_input(prog) == {x: 3, y: 1}
    assert hoisted_rotations(prog) == 2
    costs = table("bgv")
    plain = costs.total({"extract": 3, "rotate": 1, "add": 4})
    assert program_cost(prog, costs) == plain - 2 * (costs["rotate"] - costs["rotate_hoisted"])
    assert program_cost(prog, table("noisy")) == table("noisy").total({"extract": 3, "rotate": 1, "add": 4})


def test_rotation_of_a_ragged_vector_pays_its_lowering() -> None:
    # a 6-slot rotation runs as two rotations of the input (one hoisted), two masks, an add
    g = view([("x.0", "In", [], ["x", 6]), ("r.0", "Rot", ["x.0"], [1])], "r")
    roots = [g.root(0)]
    costs = table("bgv")
    extra = costs["rotate_hoisted"] + 2 * costs["mul_plain"] + costs["add"]
    choice, info = ilp_extract(g, roots, costs)
    assert info["objective"] == dag_cost(g, choice, roots, costs) == costs["rotate"] + extra
    b = Builder("ragged")
    x = b.arg("x", Type((6,), "i32", True))
    prog = b.finish([b.rotate(x, 1)])
    assert program_cost(prog, costs) == costs["rotate"] + extra
    assert program_cost(prog, table("noisy")) == table("noisy")["rotate"]
    b8 = Builder("even")
    y = b8.arg("y", Type((8,), "i32", True))
    assert program_cost(b8.finish([b8.rotate(y, 1)]), costs) == costs["rotate"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["bgv", "ckks"]), st.lists(st.sampled_from((0.5, 1.0, 2.0)), min_size=20, max_size=20),
       st.lists(st.integers(1, 7), min_size=1, max_size=6))
def test_hoisted_reads_never_price_below_zero(scheme: str, scales: list[float], reads: list[int]) -> None:
    """Every price scaled by 1/2, 1 or 2 on its own (the fuzzer's tables) may price a slot read
    below a rotation; hoisted reads must still cost at least nothing, and the report's
    cost must stay a sum of non-negative prices (fuzz seeds 10195, 10339, 10450 had
    costs of -71, -122, -49)."""
    from eqsat.models.cost import DEFAULTS, CostTable
    from eqsat.models.hoisting import program_cost

    costs = CostTable(scheme, {k: v * f for (k, v), f in zip(sorted(DEFAULTS[scheme].items()), scales, strict=False)})
    assert 0.0 <= costs.hoisted_saving <= min(costs["rotate"], costs["extract"])
    b = Builder("reads")
    x = b.arg("x", Type((8,), "i32", True))
    acc = b.extract(x, reads[0])
    for i in reads[1:]:
        acc = b.add(acc, b.extract(x, i))
    assert program_cost(b.finish([acc]), costs) >= 0.0


def test_a_restricted_view_shares_the_slot_counts() -> None:
    """The second start's view (some e-nodes unextractable) reads the same slot counts as the
    view it copies: class_slots looks at every e-node, extractable or not."""
    from eqsat.extract import hoisting
    from eqsat.extract.ilp import _restricted

    g = view(GRAPH, "r")
    widths = hoisting.class_slots(g)
    keep = {i for i, n in enumerate(g.nodes) if n.op != "Rot"}
    small = _restricted(g, keep)
    assert not any(n.extractable for n in small.nodes if n.op == "Rot")
    assert hoisting.class_slots(small) is widths
    fresh = _restricted(view(GRAPH, "r"), keep)  # its original's counts not known yet: computed
    assert hoisting.class_slots(fresh) == widths


def _slots_by_the_book(g: object) -> list[int]:
    """``class_slots`` as first written (generators, the e-node's fields read where used): the
    reference its inlined worklist must match, order of the first count per class included."""
    from eqsat.extract.hoisting import _LEAF_SLOTS

    nodes = g.nodes  # type: ignore[attr-defined]
    width = [0] * g.num_classes  # type: ignore[attr-defined]
    users: list[list[int]] = [[] for _ in range(g.num_classes)]  # type: ignore[attr-defined]
    for idx, n in enumerate(nodes):
        for ch in set(n.children):
            users[ch].append(idx)
    stack = list(range(len(nodes)))
    while stack:
        n = nodes[stack.pop()]
        if width[n.cls]:
            continue
        if n.op in _LEAF_SLOTS:
            pos = _LEAF_SLOTS[n.op]
            lit = n.lits[pos] if len(n.lits) > pos else None
            w = lit if isinstance(lit, int) and not isinstance(lit, bool) else 0
        elif n.op == "Ext":
            w = 1
        elif n.children and all(width[ch] for ch in n.children):
            w = max(width[ch] for ch in n.children)
        else:
            w = 0
        if w:
            width[n.cls] = w
            stack.extend(users[n.cls])
    return width


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_class_slots_matches_the_plain_worklist(data: st.DataObject) -> None:
    """Random e-graphs, classes whose e-nodes disagree on the count (negative and zero
    literals too): the first e-node to give a class a count sets it, as before the rewrite."""
    from eqsat.egraph.view import EGraphView, ENode

    k = data.draw(st.integers(1, 8))
    nodes = [ENode("Num", 0, (), (0, -3), True)] if data.draw(st.booleans()) else []  # a negative count
    nodes += [ENode("Add", 1 % k, (0, 0), (), True)] if data.draw(st.booleans()) else []
    for _ in range(data.draw(st.integers(1, 20))):
        op = data.draw(st.sampled_from(["In", "Num", "Splat", "Ext", "Add", "Ins", "Rot", "LinRot", "Place"]))
        kids = tuple(data.draw(st.lists(st.integers(0, k - 1), max_size=3)))
        lits = tuple(data.draw(st.lists(st.one_of(st.integers(-4, 16), st.booleans(), st.just("x")), max_size=2)))
        nodes.append(ENode(op, data.draw(st.integers(0, k - 1)), kids, lits, op != "LinRot"))
    g = EGraphView.__new__(EGraphView)
    g.nodes, g.num_classes, g.roots = nodes, k, {}
    g.class_nodes = [[i for i, n in enumerate(nodes) if n.cls == c] for c in range(k)]
    from eqsat.extract import hoisting

    assert hoisting.class_slots(g) == _slots_by_the_book(g)
