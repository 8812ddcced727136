"""The noisy model, its checker, greedy and ILP reduce_noise placement, joint extraction."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from eqsat.egraph.session import Limits, Session
from eqsat.egraph.view import EGraphView
from eqsat.frontend.mlir import parse_mlir
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Builder, Program, Type, op_counts
from eqsat.mgmt.reduce_noise import count_reduce, extract_noisy, place_greedy, place_noisy_ilp, solve_placement
from eqsat.models import noisy as noise
from eqsat.models.cost import table
from eqsat.rules import resolve
from eqsat.testing.programs import random_noisy_program

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
I5 = Type((), "i5", False)


def load_experiment(name: str) -> ModuleType:
    path = EXAMPLES.parent / "experiments" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_exp_{name}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load(name: str) -> Program:
    path = EXAMPLES / name
    return parse_mlir(path.read_text(), str(path))[0]


def same_values(a: Program, b: Program) -> bool:
    for seed in range(2):
        inputs = random_inputs(a, seed)
        if not results_equal(evaluate(a, inputs, 65537), evaluate(b, inputs, 65537), 65537):
            return False
    return True


def joint(
    prog: Program, time_limit: float = 20.0, rules: str | None = "ring"
) -> tuple[Program, dict[str, object]]:
    s = Session(prog)
    s.saturate([f.ruleset for f in resolve(rules)], Limits(iterations=8, nodes=20_000, time_s=10.0))
    g = EGraphView(s.serialize())
    return extract_noisy(g, [g.root(k) for k in s.roots], prog, table("noisy"), time_limit=time_limit)


def test_model_numbers() -> None:
    b = Builder("m", style="noisy")
    x = b.unary("encode", b.const(3, I5))
    y = b.unary("encode", b.const(4, I5))
    xy = b.mul(x, y)  # 24
    s = b.add(xy, x)  # 25
    c = b.mul(b.const(2, I5), b.const(3, I5))  # a plaintext is encoded before use: 12 bits
    sc = b.mul(x, c)  # 24
    n = b.neg(sc)  # 25: printed as encode(0) - sc
    prog = b.finish([b.unary("decode", s), b.unary("decode", n)])
    rep = noise.analyze(prog)
    assert (rep.bits[xy], rep.bits[s], rep.bits[sc], rep.bits[n]) == (24, 25, 24, 25)
    assert rep.legal and rep.max_bits == 25


def test_article_squarings_exactly_three() -> None:
    prog = load("noisy_squarings.mlir")
    assert not noise.analyze(prog).legal
    with pytest.raises(noise.NoiseError):
        noise.check(prog)
    out, info = solve_placement(prog)
    assert info["status"] == "optimal"
    assert count_reduce(out) == 3
    assert noise.analyze(out).legal
    # every multiplication but the last is followed by reduce_noise
    muls = [i for i in out.live() if out.nodes[i].op == "mul"]
    reduced = {out.nodes[i].args[0] for i in out.live() if out.nodes[i].op == "reduce_noise"}
    assert reduced == set(muls[:-1])
    assert same_values(prog, out)


def test_article_branching_exactly_one_after_mul() -> None:
    prog = load("noisy_branching.mlir")
    out = place_noisy_ilp(prog)
    reds = [i for i in out.live() if out.nodes[i].op == "reduce_noise"]
    assert len(reds) == 1
    assert out.nodes[out.nodes[reds[0]].args[0]].op == "mul"
    assert noise.analyze(out).legal
    # the greedy baseline pays one per branch
    assert count_reduce(place_greedy(prog)) == 2
    assert same_values(prog, out)


@pytest.mark.parametrize("name,at_most", [("noisy_squarings.mlir", 3), ("noisy_branching.mlir", 1)])
def test_joint_extraction_on_article_examples(name: str, at_most: int) -> None:
    prog = load(name)
    out, info = joint(prog)
    assert info["status"] == "optimal"
    assert count_reduce(out) <= at_most
    assert noise.analyze(out).legal
    assert same_values(prog, out)


def test_constant_magnitude_does_not_matter() -> None:
    # the dialect has no scaling op: a constant is encoded (12 bits) whatever its size, so a
    # product with a fresh value is 24 bits and needs no reduce_noise
    b = Builder("big", style="noisy")
    x = b.unary("encode", b.const(3, I5))
    y = b.mul(x, b.const(1 << 20, Type((), "i32", False)))
    z = b.mul(y, b.const(5, I5))  # 24 + 12: reduce y first
    prog = b.finish([b.unary("decode", z)])
    assert noise.analyze(prog).bits[y] == 24
    for placed in (place_noisy_ilp(prog), place_greedy(prog)):
        assert noise.analyze(placed).legal and count_reduce(placed) == 1


def _compare(n_ops: int, seed: int) -> None:
    prog = random_noisy_program(n_ops, seed)
    greedy = place_greedy(prog)
    ilp, info = solve_placement(prog, time_limit=30.0)
    assert info["status"] == "optimal"
    both, jinfo = joint(prog, time_limit=30.0)
    for p in (greedy, ilp, both):
        assert noise.analyze(p).legal
        assert same_values(prog, p)
    costs = table("noisy")
    assert count_reduce(ilp) <= count_reduce(greedy)
    if jinfo["status"] == "optimal":
        # the original program is in the e-graph: the joint optimum is never costlier
        assert costs.total(op_counts(both)) <= costs.total(op_counts(ilp)) + 1e-9
        assert count_reduce(both) <= count_reduce(ilp)


@pytest.mark.parametrize("n_ops,seed", [(50, 0), (50, 1), (80, 2)])
def test_random_programs_small(n_ops: int, seed: int) -> None:
    _compare(n_ops, seed)


@pytest.mark.slow
@pytest.mark.parametrize("n_ops,seed", [(200, 0), (500, 1)])
def test_random_programs_large(n_ops: int, seed: int) -> None:
    _compare(n_ops, seed)


def test_random_program_is_seeded() -> None:
    a, b = random_noisy_program(60, 7), random_noisy_program(60, 7)
    assert a.nodes == b.nodes and a.results == b.results
    assert random_noisy_program(60, 8).nodes != a.nodes
    assert not noise.analyze(a).legal  # it needs placement at all


def test_noise_placement_experiment_runs_tiny(tmp_path: Path) -> None:
    mod = load_experiment("noise_placement")
    assert mod.main(["--sizes", "20,30", "--seeds", "1", "--out", str(tmp_path), "--time-limit", "5"]) == 0
    rows = (tmp_path / "noise_placement.csv").read_text().strip().splitlines()
    assert rows[0].startswith("n_ops,seed")
    assert len(rows) == 3
    assert (tmp_path / "noise_placement.png").exists()
