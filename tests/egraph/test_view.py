"""EGraphView (eqsat.egraph.view) reads a serialized e-graph as before it read each child id once:
on random extraction-gym JSON whose e-nodes share children (classes and primitives) the same
e-nodes, class numbers (by first sight), literals and roots as a direct reading of every use."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat.egraph.view import EGraphView, ENode, _literal
from eqsat.term_ops import CONCRETE_OPS, INERT, SUMMARY_OPS


def read_every_use(js: dict[str, dict[str, object]], plain: frozenset[str]) -> tuple[list[ENode], dict[int, int]]:
    """The e-nodes and roots of ``EGraphView``, every child read at every use (the reference)."""
    raw = js["nodes"]
    ids: dict[str, int] = {}
    nodes: list[ENode] = []
    roots: dict[int, int] = {}
    for node in raw.values():  # type: ignore[attr-defined]
        op = INERT.get(str(node["op"]), str(node["op"]))
        if op == "Root":
            roots[int(str(raw[node["children"][0]]["op"]))] = ids.setdefault(str(node["eclass"]), len(ids))
            continue
        if op not in CONCRETE_OPS and op not in SUMMARY_OPS:
            continue
        cls = ids.setdefault(str(node["eclass"]), len(ids))
        kids, lits = [], []
        for ch in node["children"]:
            if str(ch).startswith("primitive-"):
                lits.append(_literal(str(raw[ch]["op"])))
            else:
                kids.append(ids.setdefault(str(raw[ch]["eclass"]), len(ids)))
        if op == "In" and lits and lits[0] in plain:
            op = "PlainIn"
        nodes.append(ENode(op, cls, tuple(kids), tuple(lits), op in CONCRETE_OPS or op == "PlainIn"))
    return nodes, roots


OPS = ["Add", "Mul", "Rot", "In", "LinRot", "AddI", "ld_name"]


@st.composite
def serialized(draw: st.DrawFn) -> dict[str, dict[str, object]]:
    """E-nodes over a few classes and a few shared primitives (ints, floats, strings), in any
    order, so that children are often seen before their own e-nodes."""
    prims = {f"primitive-i64-{k}": {"op": str(k), "children": [], "eclass": f"i64-{k}"} for k in range(3)}
    prims['primitive-String-0'] = {"op": '"x"', "children": [], "eclass": "String-0"}
    prims['primitive-f64-0'] = {"op": "2.5", "children": [], "eclass": "f64-0"}
    ncls = draw(st.integers(1, 6))
    nodes: dict[str, dict[str, object]] = {}
    for k in range(draw(st.integers(1, 14))):
        op = draw(st.sampled_from(OPS))
        kids = [f"function-{draw(st.integers(0, 13))}" for _ in range(draw(st.integers(0, 2)))]
        kids += draw(st.lists(st.sampled_from(sorted(prims)), max_size=2))
        nodes[f"function-{k}"] = {"op": op, "children": kids, "eclass": f"T-{draw(st.integers(0, ncls - 1))}"}
    for kid_list in [n["children"] for n in nodes.values()]:
        kid_list[:] = [ch for ch in kid_list if ch in nodes or ch in prims]  # type: ignore[index]
    nodes["primitive-i64-9"] = {"op": "0", "children": [], "eclass": "i64-9"}
    nodes["function-99"] = {"op": "Root", "children": ["primitive-i64-9"], "eclass": "T-0"}
    order = draw(st.permutations(sorted(nodes) + sorted(prims)))
    both = {**nodes, **prims}
    return {"nodes": {k: both[k] for k in order}}


@settings(max_examples=300, deadline=None)
@given(serialized(), st.booleans())
def test_the_same_view_as_reading_every_use(js: dict[str, dict[str, object]], plain: bool) -> None:
    inputs = frozenset({"x"}) if plain else frozenset()
    view = EGraphView(js, inputs)
    nodes, roots = read_every_use(js, inputs)
    assert view.nodes == nodes
    assert [repr(n.lits) for n in view.nodes] == [repr(n.lits) for n in nodes]  # 2 and 2.0 differ
    assert view.roots == roots
    assert view.class_nodes == [[i for i, n in enumerate(nodes) if n.cls == c] for c in range(view.num_classes)]
