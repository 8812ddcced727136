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


def test_parse_nodes_reads_the_view_of_parse_serialized() -> None:
    """``parse_nodes`` cuts what the view never reads (class types, default cost/subsumed) from
    the text; the view is the same, and a string literal holding the cut text is kept whole."""
    import json

    from eqsat.egraph.session import parse_nodes, parse_serialized

    tricky = '"a,\\"cost\\":1.0,\\"subsumed\\":false}' + ',"root_eclasses":[]"'  # an op with the cut texts
    js = {"nodes": {
        "primitive-String-1": {"op": json.dumps("x"), "children": [], "eclass": "String-1", "cost": 1.0,
                               "subsumed": False},
        "primitive-String-2": {"op": tricky, "children": [], "eclass": "String-2", "cost": 1.0, "subsumed": False},
        "primitive-i64-8": {"op": "8", "children": [], "eclass": "i64-8", "cost": 1.0, "subsumed": False},
        "function-0-In": {"op": "In", "children": ["primitive-String-1", "primitive-i64-8"], "eclass": "T-1",
                          "cost": 1.0, "subsumed": False},
        "function-1-Ins": {"op": "Ins", "children": ["function-0-In", "function-0-In", "primitive-String-2"],
                           "eclass": "T-2", "cost": 2.5, "subsumed": True},
    }, "root_eclasses": [], "class_data": {"T-1": {"type": "T"}, "T-2": {"type": "T"}}}
    text = json.dumps(js, separators=(",", ":"))
    got = parse_nodes(text)
    assert list(got) == ["nodes"]
    nodes = got["nodes"]
    assert isinstance(nodes, dict)
    assert nodes["primitive-String-2"]["op"] == tricky  # the literal, not cut
    assert "cost" not in nodes["function-0-In"] and nodes["function-1-Ins"]["cost"] == 2.5  # only defaults cut
    a, b = EGraphView(parse_serialized(text)), EGraphView(got)
    assert a.nodes == b.nodes and a.roots == b.roots and a.class_nodes == b.class_nodes
    # a text in another member order keeps its members (nothing cut but the defaults)
    other = json.dumps({"class_data": js["class_data"], "root_eclasses": [], "nodes": js["nodes"]},
                       separators=(",", ":"))
    assert set(parse_nodes(other)) == {"class_data", "root_eclasses", "nodes"}
    assert EGraphView(parse_nodes(other)).nodes == a.nodes
