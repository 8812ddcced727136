"""Exact (ILP) extraction: optimality against greedy DAG, acyclicity, semantics."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType

import pytest

from eqsat.egraph.session import Limits, Session
from eqsat.egraph.view import EGraphView
from eqsat.extract.dag import dag_cost, greedy_dag, to_program
from eqsat.extract.ilp import class_secrecy, ilp_extract
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Builder, Program, Type
from eqsat.models.cost import table
from eqsat.rules import resolve
from eqsat.testing import programs

ROOT = Path(__file__).resolve().parents[2]


def load_experiment(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_exp_{name}", ROOT / "experiments" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def view(nodes: list[tuple[str, str, list[str], list[object]]], root: str) -> EGraphView:
    """An extraction-gym JSON e-graph: (node id, op, child node ids, literals) per e-node;
    the class of a node is the part of its id before the dot."""
    js: dict[str, dict[str, object]] = {}
    for nid, op, kids, lits in nodes:
        children = list(kids)
        for k, lit in enumerate(lits):
            pid = f"primitive-{nid}-{k}"
            js[pid] = {"op": f'"{lit}"' if isinstance(lit, str) else str(lit), "children": [], "eclass": pid}
            children.append(pid)
        js[nid] = {"op": op, "children": children, "eclass": nid.split(".")[0]}
    js["primitive-root"] = {"op": "0", "children": [], "eclass": "primitive-root"}
    js["root.0"] = {"op": "Root", "children": ["primitive-root"], "eclass": root}
    return EGraphView({"nodes": js})


X = [("x.0", "In", [], ["x", 8]), ("y.0", "In", [], ["y", 8])]


def test_sharing_beats_greedy() -> None:
    # A = y*(x+y) costs 3 alone; A = -S costs 1 but S = rot(x) costs 4, shared with B = rot(S)
    g = view([*X,
        ("xy.0", "Add", ["x.0", "y.0"], []),
        ("a.0", "Mul", ["xy.0", "y.0"], []),
        ("a.1", "Neg", ["s.0"], []),
        ("s.0", "Rot", ["x.0"], [1]),
        ("b.0", "Rot", ["s.0"], [1]),
        ("r.0", "Add", ["a.0", "b.0"], []),
    ], "r")
    costs = table("noisy", {"rotate": 4, "mul": 2, "add": 1, "neg": 1})
    roots = [g.root(0)]
    greedy = greedy_dag(g, costs)
    choice, info = ilp_extract(g, roots, costs)
    assert info["status"] == "optimal"
    assert dag_cost(g, greedy, roots, costs) == 12.0
    assert dag_cost(g, choice, roots, costs) == 10.0 == info["objective"]


def test_cycles_are_cut() -> None:
    # A = -B and B = -A is the cheapest assignment, but cyclic: the ILP must not take it
    g = view([*X,
        ("m.0", "Mul", ["x.0", "y.0"], []),
        ("a.0", "Neg", ["b.0"], []),
        ("a.1", "Mul", ["m.0", "y.0"], []),
        ("b.0", "Neg", ["a.0"], []),
        ("b.1", "Rot", ["x.0"], [1]),
    ], "a")
    costs = table("noisy", {"rotate": 4, "mul": 2, "neg": 1})
    roots = [g.root(0)]
    choice, info = ilp_extract(g, roots, costs)
    assert info["status"] == "optimal" and info["cyclic_classes"] == 2
    assert dag_cost(g, choice, roots, costs) == 4.0
    b = Builder("p")
    for name in ("x", "y"):
        b.arg(name, Type((8,), "i16", True))
    prog = to_program(g, choice, roots, b.finish([]))
    assert [prog.nodes[i].op for i in prog.live()].count("mul") == 2


def test_secrecy_per_class() -> None:
    g = view([*X, ("c.0", "Num", [], [3, 8]), ("k.0", "Add", ["c.0", "c.0"], []),
                  ("e.0", "Encode", ["k.0"], []), ("r.0", "Mul", ["e.0", "x.0"], [])], "r")
    sec = class_secrecy(g)
    by_op = {g.nodes[g.class_nodes[c][0]].op: sec[c] for c in range(g.num_classes)}
    assert by_op == {"In": True, "Num": False, "Add": False, "Encode": True, "Mul": True}


ILP_SHAPE = programs.Shape(
    slots=4, elem="i16", inputs=3, results=2, consts=(0, 1, 2, 3),
    ops={"rotate": 0.15, "mul_const": 0.15, "add": 0.7 / 3, "sub": 0.7 / 3, "mul": 0.7 / 3},
)


@pytest.mark.parametrize("seed", range(6))
def test_ilp_never_worse_than_greedy_and_sound(seed: int) -> None:
    prog = programs.random_program(seed, 12, ILP_SHAPE)
    s = Session(prog)
    s.saturate([f.ruleset for f in resolve(None)], Limits(iterations=6, time_s=10.0))
    g = EGraphView(s.serialize())
    roots = [g.root(k) for k in s.roots]
    costs = table("bgv")
    greedy = greedy_dag(g, costs)
    choice, info = ilp_extract(g, roots, costs, warm=greedy, time_limit=30.0, proof_stall_s=math.inf)
    assert info["status"] == "optimal" and info["proven"] is True
    assert dag_cost(g, choice, roots, costs) <= dag_cost(g, greedy, roots, costs) + 1e-9
    assert abs(dag_cost(g, choice, roots, costs) - float(info["objective"])) < 1e-6  # type: ignore[arg-type]
    out = to_program(g, choice, roots, prog)
    for k in range(2):
        inputs = random_inputs(prog, k)
        assert results_equal(evaluate(prog, inputs, 65537), evaluate(out, inputs, 65537), 65537)


def test_extraction_gap_experiment_runs_tiny(tmp_path: Path) -> None:
    mod = load_experiment("extraction_gap")
    assert mod.main(["--sizes", "4,8", "--seeds", "1", "--out", str(tmp_path), "--time-limit", "5"]) == 0
    rows = (tmp_path / "extraction_gap.csv").read_text().strip().splitlines()
    assert rows[0].startswith("n_ops,seed")
    assert len(rows) == 3
    assert (tmp_path / "extraction_gap.png").exists()


# -- extraction under a level budget (BGV/CKKS) ------------------------------------------------
def deep_or_shallow() -> EGraphView:
    """abcd as a chain (3 muls, depth 3) or as -(-(ab)(cd)) (3 muls + 1 neg, depth 2)."""
    ins = [(f"{v}.0", "In", [], [v, 8]) for v in "abcd"]
    return view([*ins,
        ("q.0", "Mul", ["a.0", "b.0"], []),
        ("p.0", "Mul", ["q.0", "c.0"], []),
        ("r.0", "Mul", ["p.0", "d.0"], []),
        ("t.0", "Mul", ["c.0", "d.0"], []),
        ("w.0", "Mul", ["q.0", "t.0"], []),
        ("r.1", "Neg", ["w.0"], []),
    ], "r")


def arg_program(names: str) -> Program:
    b = Builder("p")
    for name in names:
        b.arg(name, Type((8,), "i16", True))
    return b.finish([])


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
def test_level_budget_picks_the_shallow_program(scheme: str) -> None:
    from eqsat.extract.levels import ilp_extract_levels
    from eqsat.ir import multiplicative_depth

    g = deep_or_shallow()
    roots = [g.root(0)]
    costs = table(scheme)
    src = arg_program("abcd")
    free, _ = ilp_extract(g, roots, costs)
    assert multiplicative_depth(to_program(g, free, roots, src)) == 3  # cheapest is the chain
    fit, info = ilp_extract_levels(g, roots, costs, scheme, 2)
    assert fit is not None and info["status"] == "optimal" and info["bootstrap"] == 0
    assert multiplicative_depth(to_program(g, fit, roots, src)) == 2
    none, info = ilp_extract_levels(g, roots, costs, scheme, 1)
    assert none is None and info["status"] == "infeasible"
    # a bootstrap cheaper than the extra neg: keep the chain and bootstrap once
    cheap_boot = table(scheme, {"bootstrap": 0.5})
    boot, info = ilp_extract_levels(g, roots, cheap_boot, scheme, 2, bootstrap=True)
    assert boot is not None and info["bootstrap"] == 1
    assert multiplicative_depth(to_program(g, boot, roots, src)) == 3


def test_auto_extraction_reports_whether_its_proof_finished(monkeypatch: pytest.MonkeyPatch) -> None:
    """``auto`` cuts the proof short once the best program stalls (here at once: a budget of 0 s),
    says so in the report (status "stalled", proven False, the gap left), and keeps the program
    the full proof of ``--extraction ilp`` confirms as optimal."""
    from eqsat import milp
    from eqsat.frontend.mlir import parse_mlir
    from eqsat.pipeline import optimize

    # a model whose proof takes a search (rr_product_loop_8's and dot_product_8's e-graphs,
    # smaller since their products and sums load realized, are proven at once)
    prog = parse_mlir((ROOT / "examples" / "roberts_cross_16x16.mlir").read_text())[0]
    proven = optimize(prog, "bgv", extraction="ilp").report
    monkeypatch.setattr(milp, "PROOF_STALL_S", 0.0)
    monkeypatch.setattr(milp, "BNB_MAX_CLASSES", 0)  # the MILP's proof, not the exact search (28 classes)
    quick = optimize(prog, "bgv", extraction="auto").report
    assert proven["ilp"]["status"] == "optimal" and proven["ilp"]["proven"] is True  # type: ignore[index]
    assert quick["ilp"]["status"] == "stalled" and quick["ilp"]["proven"] is False  # type: ignore[index]
    assert quick["ilp"]["gap"] > 0.0 and quick["extraction"] == "ilp"  # type: ignore[index,operator]
    assert quick["after"]["cost"] == proven["after"]["cost"]  # type: ignore[index]


def test_refine_pulls_in_one_new_node_where_the_spare_choice_was_a_subprogram() -> None:
    """rr_rotation_duplicated's shape: f = ((s + r) + r) + x (3 adds) or f = t + r with
    t = a + s over classes the program has (2 adds). The start gives t a dear spare e-node (a
    rotation of a product of another input), so no single switch helps; the second phase gives t the add
    over kept classes first, then the switch of f pays 1 add for 2 (64 -> 63 there)."""
    from eqsat.extract.dag import Choice, refine

    nodes = [*X,
        ("r.0", "Rot", ["x.0"], [3]),
        ("a.0", "Add", ["x.0", "r.0"], []),
        ("s.0", "Rot", ["a.0"], [2]),
        ("p.0", "Add", ["s.0", "r.0"], []),
        ("q.0", "Add", ["p.0", "r.0"], []),
        ("m.0", "Mul", ["y.0", "y.0"], []),
        ("t.0", "Rot", ["m.0"], [5]),
        ("t.1", "Add", ["a.0", "s.0"], []),
        ("f.0", "Add", ["q.0", "x.0"], []),
        ("f.1", "Add", ["t.0", "r.0"], []),
    ]
    g = view(nodes, "f")  # e-nodes in the order listed
    ids = [nid for nid, *_ in nodes]
    costs = table("bgv")
    roots = [g.root(0)]
    node = [-1] * g.num_classes
    for nid in ("x.0", "y.0", "r.0", "a.0", "s.0", "p.0", "q.0", "m.0", "t.0", "f.0"):
        node[g.nodes[ids.index(nid)].cls] = ids.index(nid)
    start = Choice(node, [True] * g.num_classes)
    out = refine(g, start, roots, costs)
    assert dag_cost(g, out, roots, costs) == dag_cost(g, start, roots, costs) - 1.0  # p, q out; t in
    assert out.node[g.nodes[ids.index("t.1")].cls] == ids.index("t.1")
    assert out.node[g.root(0)] == ids.index("f.1")
