"""The noise/depth analyses as an egglog ruleset: exact on loaded programs, lower bounds after rewriting."""

from __future__ import annotations

import pytest

from eqsat.egraph import noise_analysis
from eqsat.egraph.session import Limits, Session
from eqsat.egraph.view import EGraphView
from eqsat.extract.dag import greedy_dag, to_program
from eqsat.ir import Builder, Program, Type, multiplicative_depth
from eqsat.mgmt import level_depths, strip_mgmt
from eqsat.mgmt.reduce_noise import extract_noisy
from eqsat.models import noisy as noise
from eqsat.models.cost import table
from eqsat.pipeline import InfeasibleError, optimize
from eqsat.rules import resolve
from eqsat.testing.programs import random_noisy_program

I5 = Type((), "i5", False)
CT = Type((8,), "i16", True)


Analysed = tuple[Session, EGraphView, noise_analysis.NoiseFacts]


def analysed(prog: Program, rules: str | None = None) -> Analysed:
    s = Session(prog)
    if rules is not None:
        s.saturate([f.ruleset for f in resolve(rules)], Limits(iterations=6, nodes=20_000, time_s=10.0))
    noise_analysis.run(s)
    js = s.serialize()
    g = EGraphView(js)
    return s, g, noise_analysis.facts(js, g)


def value_classes(s: Session, g: EGraphView) -> dict[int, int]:
    """IR node id -> view class (the loader records each value's class in ``ld_name``)."""
    js = s.serialize()
    idx = noise_analysis.eclass_index(js, g)
    return {i: idx[c] for i, c in s.node_classes(js).items() if c in idx}


@pytest.mark.parametrize("seed", range(4))
def test_equals_checker_without_rewrites(seed: int) -> None:
    sinks = random_noisy_program(60, seed, decode=False)
    # every secret value a result: the loader adds no balanced forms, each class holds one program
    secret = [i for i in sinks.live() if sinks.nodes[i].type.secret]
    prog = Program(sinks.name, sinks.args, sinks.nodes, secret)
    s, g, f = analysed(prog)
    bits = noise.analyze(prog).bits
    depth = level_depths(prog, "bgv")
    roots = [g.root(k) for k in s.roots]
    assert [f.noise[r] for r in roots] == [bits[i] for i in prog.results]
    assert [f.depth[r] for r in roots] == [depth[i] for i in prog.results]
    assert max(bits.values()) > 100  # deep enough to be interesting


@pytest.mark.parametrize("seed", range(4))
def test_canonical_forms_only_lower_the_floor(seed: int) -> None:
    prog = random_noisy_program(60, seed, decode=False)
    s, g, f = analysed(prog)
    bits = noise.analyze(prog).bits
    depth = level_depths(prog, "bgv")
    cls = value_classes(s, g)
    alone = single_program_classes(g)
    compared = 0
    for i, b in bits.items():
        if i not in cls:
            continue
        c = cls[i]
        # the loader also unions balanced forms of sums and products: never worse
        assert f.noise[c] <= b and f.depth[c] <= depth[i]
        if alone[c]:  # the class holds exactly the source's sub-program
            assert (f.noise[c], f.depth[c]) == (b, depth[i]), (i, prog.nodes[i].op)
            compared += 1
    assert compared > 0


def single_program_classes(g: EGraphView) -> list[bool]:
    """Classes whose every descendant class holds exactly one e-node."""
    memo: dict[int, bool] = {}

    def alone(c: int, path: frozenset[int]) -> bool:
        if c not in memo:
            nodes = g.class_nodes[c]
            memo[c] = len(nodes) == 1 and c not in path and all(
                alone(ch, path | {c}) for ch in g.nodes[nodes[0]].children)
        return memo[c]

    return [alone(c, frozenset()) for c in range(g.num_classes)]


@pytest.mark.parametrize("seed", range(3))
def test_lower_bound_of_extracted_programs(seed: int) -> None:
    prog = random_noisy_program(40, seed, decode=False)
    s, g, f = analysed(prog, rules="ring")
    roots = [g.root(k) for k in s.roots]
    assert len(g.nodes) > len(prog.live())  # rewrites fired
    src = noise.analyze(prog).bits
    greedy = to_program(g, greedy_dag(g, table("noisy")), roots, prog)
    joint, _ = extract_noisy(g, roots, prog, table("noisy"), time_limit=20.0)
    for out in (greedy, strip_mgmt(joint)):
        bits = noise.analyze(out).bits
        for k, r in enumerate(roots):
            res = out.results[k]
            if res in bits:  # a secret result
                assert f.noise[r] <= bits[res]
                assert f.noise[r] <= src[prog.results[k]]
                assert f.depth[r] <= multiplicative_depth(Program("r", out.args, out.nodes, [res]))


def test_rewriting_lowers_the_floor() -> None:
    # x*x*x*x*x*x*x*x as a chain: 8 fresh factors summed -> 96 bits; the floor is the same
    # (the noisy model adds bits on every mul), but depth 7 becomes 3 by rebalancing
    b = Builder("p", style="noisy")
    x = b.unary("encode", b.const(3, I5))
    acc = x
    for _ in range(7):
        acc = b.mul(acc, x)
    prog = b.finish([acc])
    _, g, f = analysed(prog, rules="ring")
    r = g.root(0)
    assert f.noise[r] == 96
    assert f.depth[r] == 3 < multiplicative_depth(prog) == 7


def test_plaintext_operand_is_a_fresh_encoding() -> None:
    # the article's dialect encodes a plaintext before a noisy.mul: 12 bits, whatever its value
    b = Builder("p", style="noisy")
    x = b.unary("encode", b.const(3, I5))
    c = b.add(b.const(3, I5), b.const(6, I5))
    y = b.mul(x, c)  # 24
    z = b.add(b.mul(y, b.const(-1, I5)), x)  # 36, then 37
    prog = b.finish([z])
    _, g, f = analysed(prog)
    assert f.noise[g.root(0)] == noise.analyze(prog).bits[z] == 37
    assert f.ckks_depth[g.root(0)] == 2 and f.depth[g.root(0)] == 0


def test_pipeline_reports_and_prunes() -> None:
    b = Builder("pow")
    x = b.arg("x", CT)
    acc = x
    for _ in range(7):
        acc = b.mul(acc, x)
    prog = b.finish([acc])
    res = optimize(prog, "bgv", max_level=3)
    assert res.report["analysis"]["depth_floor"] == [3]  # type: ignore[index]
    with pytest.raises(InfeasibleError, match="needs at least 3 levels"):
        optimize(prog, "bgv", max_level=2)
    boot = optimize(prog, "bgv", max_level=2, bootstrap=True)
    assert boot.report["after"]["ops"]["bootstrap"] == 1  # type: ignore[index]


def test_pipeline_level_budget_with_ilp() -> None:
    # ((x0 x1) x2) x3 as written: depth 3; the loader's balanced form has depth 2
    b = Builder("chain4")
    xs = [b.arg(f"x{i}", CT) for i in range(4)]
    prog = b.finish([b.mul(b.mul(b.mul(xs[0], xs[1]), xs[2]), xs[3])])
    for scheme in ("bgv", "ckks"):
        res = optimize(prog, scheme, max_level=2, extraction="ilp")
        assert res.report["after"]["depth"] == 2  # type: ignore[index]
        assert res.report["extraction"] == "ilp-levels"
        assert "bootstrap" not in res.report["after"]["ops"]  # type: ignore[index]
        with pytest.raises(InfeasibleError):
            optimize(prog, scheme, max_level=1, extraction="ilp")
        boot = optimize(prog, scheme, max_level=1, extraction="ilp", bootstrap=True)
        # both depth-1 products are bootstrapped (a chain would need two as well)
        assert boot.report["after"]["ops"]["bootstrap"] == 2  # type: ignore[index]
        assert boot.report["after"]["noise"]["legal"]  # type: ignore[index]
