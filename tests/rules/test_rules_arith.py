"""Goal tests for the arithmetic families: mul-to-add, factor, depth, fold-real.

Every test optimizes a program with ``eqsat.pipeline.optimize`` and checks the op counts
of the report (``report["after"]["ops"]``) and that the result computes the original's
values (``eqsat.interp.evaluate``).  The full 2..1023 sweep, the 2,000-op runaway checks
(default and ``all`` schedules) and the degree-6/8 polynomials under ``all`` are ``slow``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from eqsat.algebra.chains import brute_force_length, optimal_chain
from eqsat.egraph.limits import Limits
from eqsat.frontend.mlir import parse_mlir
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Builder, Program, Type
from eqsat.pipeline import optimize
from eqsat.rules import REGISTRY, SCHEDULES
from eqsat.rulespec import RInt, check_sound
from eqsat.rulespec import arith_oracles as ao
from eqsat.testing import programs

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXPENSIVE_MUL_PLAIN = {"mul_plain": 100}
MY_FAMILIES = ("mul-to-add", "factor", "depth", "fold-real")
I32, P32 = Type((), "i32", True), Type((), "i32", False)


def example(name: str) -> Program:
    path = EXAMPLES / f"{name}.mlir"
    return parse_mlir(path.read_text(), str(path))[0]


def same_values(a: Program, b: Program) -> bool:
    for seed in range(3):
        inputs = random_inputs(a, seed, bound=1000)
        modulus = None if any(t.is_float for _, t in a.args) else 65537
        if not results_equal(evaluate(a, inputs, modulus), evaluate(b, inputs, modulus), modulus):
            return False
    return True


def products(cs: list[int]) -> Program:
    """One product x_c * c per constant, each on its own input (no sharing across c)."""
    b = Builder("products")
    outs = [b.mul(b.arg(f"x{j}", I32), b.const(c, P32)) for j, c in enumerate(cs)]
    return b.finish(outs)


def chain_ops(ops: dict[str, int]) -> int:
    return ops.get("add", 0) + ops.get("sub", 0) + ops.get("neg", 0)


# -- soundness (the chain rules need their constants pinned to reach every step) --------
def test_families_registered_in_arith_schedule() -> None:
    for name in MY_FAMILIES:
        assert REGISTRY[name].name == name
        assert name in SCHEDULES["all"]
        # factor is opt-in (--rules ...,factor, or the all schedule): on random programs it
        # does not saturate (2,000 ops: stops at the time limit, 29k nodes, 0.7 GB)
        assert (name in SCHEDULES["arith"]) == (name != "factor")


@pytest.mark.parametrize("family", MY_FAMILIES)
def test_rules_sound_on_random_values(family: str) -> None:
    for spec in REGISTRY[family].specs:
        res = check_sound(spec, random.Random(7), samples=120)
        if not spec.name.startswith("m2a-"):
            assert res.checked > 0, spec.name


def test_chain_rules_sound_for_every_step() -> None:
    """Every step of every chain for -80 <= c <= 80 (and a few large c), pinned."""
    specs = {s.name: s for s in REGISTRY["mul-to-add"].specs}
    rng = random.Random(3)
    checked = {name: 0 for name in specs}
    for c in [*range(-80, 81), 255, 1023, -1023, 5000, 70001]:
        for i in range(ao.chain_length(c) + 1):
            for name, spec in specs.items():
                fixed = {"c": RInt(c)} | ({"i": RInt(i)} if "i" in spec.params else {})
                checked[name] += check_sound(spec, rng, samples=2, sizes=(1, 4), fixed=fixed).checked
    assert all(v > 0 for v in checked.values()), checked


# -- item 1: mul-to-add -----------------------------------------------------------
def test_seed_mul_by_9_is_three_doublings_and_one_addition() -> None:
    prog = example("mul_by_9")
    res = optimize(prog, "bgv", costs=EXPENSIVE_MUL_PLAIN)
    assert core(res.report["before"]["ops"]) == {"mul_plain": 1}
    assert core(res.report["after"]["ops"]) == {"add": 4}
    out = res.program
    adds = [out.nodes[i] for i in out.live() if out.nodes[i].op == "add"]
    assert sum(1 for n in adds if n.args[0] == n.args[1]) == 3  # doublings
    assert same_values(prog, out)


def core(ops: dict[str, int]) -> dict[str, int]:
    """Op counts without management ops (relinearize/modswitch/rescale are placed after extraction)."""
    return {k: v for k, v in ops.items() if k not in ("relinearize", "modswitch", "rescale")}


def test_default_bgv_keeps_the_cheap_plaintext_multiplication() -> None:
    res = optimize(example("mul_by_9"), "bgv")
    assert core(res.report["after"]["ops"]) == {"mul_plain": 1}


def test_splat_255_and_negative_scalar_constant() -> None:
    prog = example("mul_by_255")
    res = optimize(prog, "bgv", costs=EXPENSIVE_MUL_PLAIN, rules=["mul-to-add"])
    ops = res.report["after"]["ops"]
    assert "mul_plain" not in ops and ops.get("sub", 0) >= 1
    # 255x: 8 doublings and one subtraction; -3x = x - 4x reuses 4x: at most 11 in all
    assert chain_ops(ops) <= optimal_chain(255).length + optimal_chain(-3).length
    assert same_values(prog, res.program)


HARD = [27, 43, 51, 54, 77, 83, 85, 86, 99, 102, 108, 115, 117, 147, 149, 153, 255, 383, 511, 683, 767, 1023]


def test_extraction_finds_the_optimal_chain_length() -> None:
    """Each extracted chain is an addition-subtraction chain, so >= optimal: equal sums
    mean every constant got a shortest chain."""
    cs = [*range(2, 40), *HARD, *(-c for c in (2, 3, 5, 7, 27, 255, 1023))]
    res = optimize(products(cs), "bgv", costs=EXPENSIVE_MUL_PLAIN, rules=["mul-to-add"])
    ops = res.report["after"]["ops"]
    assert "mul_plain" not in ops
    assert chain_ops(ops) == sum(optimal_chain(c).length for c in cs)
    assert res.report["stop_reason"] == "saturated"


def test_optimal_lengths_match_brute_force() -> None:
    for c in [*range(2, 80), 127, 255]:
        res = optimize(products([c]), "bgv", costs=EXPENSIVE_MUL_PLAIN, rules=["mul-to-add"])
        assert chain_ops(res.report["after"]["ops"]) == brute_force_length(c), c


@pytest.mark.slow
def test_sweep_2_to_1023_is_optimal() -> None:
    """Optimality of the chains, not speed: the sweep saturates in 14 iterations (25,858
    e-nodes), 17.6 s of saturation on a loaded machine -- past the share of the default 30 s
    call, where it was cut at iteration 4 and the source came back (slow run, session 9)."""
    cs = list(range(2, 1024))
    res = optimize(products(cs), "bgv", costs=EXPENSIVE_MUL_PLAIN, rules=["mul-to-add"], limits=Limits(time_s=300))
    assert chain_ops(res.report["after"]["ops"]) == sum(optimal_chain(c).length for c in cs)


# -- item 2: factoring -------------------------------------------------------------
def test_pairwise_products_need_three_multiplications() -> None:
    prog = example("pairwise_products")
    res = optimize(prog, "bgv", rules=["ring", "factor"])
    assert res.report["before"]["ops"]["mul"] == 6
    assert res.report["after"]["ops"]["mul"] == 3
    assert same_values(prog, res.program)


def test_factor_common_factor() -> None:
    b = Builder("f")
    a, x, y = (b.arg(s, I32) for s in "axy")
    prog = b.finish([b.sub(b.add(b.mul(a, x), b.mul(y, a)), b.mul(a, a))])  # ax + ya - aa
    res = optimize(prog, "bgv", rules=["factor"])
    assert res.report["after"]["ops"]["mul"] == 1
    assert same_values(prog, res.program)


def test_horner() -> None:
    prog = example("horner")
    res = optimize(prog, "bgv", rules=["ring", "factor"])
    before, after = res.report["before"], res.report["after"]
    assert before["ops"]["mul"] == 3 and after["ops"]["mul"] == 2
    assert after["ops"]["mul_plain"] == 1  # 3 + x(5 + x(7 + x*2)): full Horner
    assert after["cost"] < before["cost"]
    assert same_values(prog, res.program)


def polynomial(d: int) -> Program:
    """c0 + c1 x + ... + cd x^d, each monomial written x*(x*(...(x*ck))) (distinct ck)."""
    b = Builder(f"poly{d}")
    x = b.arg("x", I32)
    acc = b.const(3, P32)
    for k in range(1, d + 1):
        m = b.mul(x, b.const(2 * k + 3, P32))
        for _ in range(k - 1):
            m = b.mul(x, m)
        acc = b.add(acc, m)
    return b.finish([acc])


@pytest.mark.parametrize("d", [4, 6, 8])
def test_polynomial_reaches_horner(d: int) -> None:
    """ring + factor: exactly Horner's form, d - 1 ciphertext products, 1 plaintext one."""
    prog = polynomial(d)
    res = optimize(prog, "bgv", rules=["ring", "factor"])
    assert res.report["before"]["ops"]["mul"] == d * (d - 1) // 2
    after = res.report["after"]
    assert core(after["ops"]) == {"mul": d - 1, "mul_plain": 1, "add_plain": d}
    assert after["depth"] == d - 1
    assert res.report["stop_reason"] == "saturated"
    assert same_values(prog, res.program)


def test_polynomial_degree_4_under_all_beats_horner() -> None:
    """With squaring and mul-to-add too, the cost model prefers x2 (x c3 + x2 c4) + ...:
    2 ciphertext products at depth 2 (the optimum: degree 4 needs 2 squarings) instead of
    Horner's 3 at depth 3."""
    prog = polynomial(4)
    horner_cost = optimize(prog, "bgv", rules=["ring", "factor"]).report["after"]["cost"]
    res = optimize(prog, "bgv", rules="all")
    after = res.report["after"]
    assert after["ops"]["mul"] == 2 and after["depth"] == 2
    assert after["cost"] < horner_cost
    assert same_values(prog, res.program)


@pytest.mark.slow
@pytest.mark.parametrize(("d", "muls"), [(6, 4), (8, 5)])
def test_polynomial_under_all_schedule(d: int, muls: int) -> None:
    """The rules put a program of at most ``muls`` products in the e-graph; the exact
    extraction finds it. Under ``auto`` the proof stops once the best program has not improved
    for ``eqsat.milp.PROOF_STALL_S`` (0.5 s): here the best start (5 and 7 products) stands
    for 0.5 s and the optimum comes later (0.67 s and 2.7 s of CPU), so ``auto`` returns the
    start with ``proven`` False, as documented; this test is about the rules."""
    prog = polynomial(d)
    res = optimize(prog, "bgv", rules="all", extraction="ilp")
    assert res.report["after"]["ops"]["mul"] <= muls < d - 1
    assert same_values(prog, res.program)


# -- item 3: depth ------------------------------------------------------------------
def test_pow8_by_repeated_squaring() -> None:
    res = optimize(example("pow8"), "bgv")
    assert core(res.report["before"]["ops"]) == {"mul": 7} and res.report["before"]["depth"] == 7
    assert core(res.report["after"]["ops"]) == {"mul": 3} and res.report["after"]["depth"] == 3


def test_pow8_with_used_intermediate_powers() -> None:
    """x^3 is also a result, so the loader keeps the chain; depth rules square it."""
    b = Builder("p")
    x = b.arg("x", I32)
    p = [x]
    for _ in range(7):
        p.append(b.mul(p[-1], x))
    prog = b.finish([p[7], p[2]])  # x^8 and x^3
    res = optimize(prog, "bgv", rules=["depth"])
    assert core(res.report["before"]["ops"]) == {"mul": 7}
    assert core(res.report["after"]["ops"]) == {"mul": 4}  # x2, x3, x4 = x2 x2, x8 = x4 x4
    assert res.report["after"]["depth"] == 3
    assert same_values(prog, res.program)


# -- item 4: folding and identities ------------------------------------------------------
def test_integer_identities() -> None:
    b = Builder("id")
    x, y = b.arg("x", I32), b.arg("y", I32)
    zero, one = b.const(0, P32), b.const(1, P32)
    t = b.add(b.mul(x, one), b.sub(y, y))  # x*1 + (y - y)
    t = b.add(t, b.mul(y, zero))  # + y*0
    t = b.add(b.neg(b.neg(t)), zero)  # --(...) + 0
    t = b.add(t, b.mul(b.const(3, P32), b.const(4, P32)))  # + 3*4
    prog = b.finish([t])
    # ring does the integer folding; the default schedule also gets there but spends its
    # time limit: ring's mul-const-assoc multiplies constants inside the class of 0
    res = optimize(prog, "bgv", rules=["ring", "fold-real", "mul-to-add"])
    assert core(res.report["after"]["ops"]) == {"add_plain": 1}  # x + 12
    assert same_values(prog, res.program)


def test_real_identities() -> None:
    f, pf = Type((4,), "f64", True), Type((4,), "f64", False)
    b = Builder("real")
    x = b.arg("x", f)
    t = b.add(b.mul(x, b.const(1.0, pf)), b.const(0.0, pf))
    t = b.sub(t, b.mul(x, b.const(0.0, pf)))
    prog = b.finish([b.mul(t, b.const(-1.0, pf))])
    res = optimize(prog, "ckks", rules=["ring", "fold-real"])
    assert core(res.report["after"]["ops"]) == {"neg": 1}
    assert same_values(prog, res.program)


# -- runaway ---------------------------------------------------------------------------
def random_program(nops: int, seed: int = 0) -> Program:
    """Scalar i32 arithmetic over 8 inputs: the shared generator's arithmetic shape."""
    return programs.random_program(seed, nops, programs.ARITH, name="big")


def test_all_schedule_on_random_program_stops() -> None:
    prog = random_program(250)
    res = optimize(prog, rules="all")
    assert res.report["stop_reason"] in ("saturated", "iteration_limit", "node_limit", "time_limit")
    assert res.report["egraph"]["nodes"] < 20_000
    assert res.report["after"]["cost"] <= res.report["before"]["cost"]
    assert same_values(prog, res.program)


@pytest.mark.slow
@pytest.mark.parametrize("schedule", ["default", "all"])
def test_2000_ops_stay_within_default_limits(schedule: str) -> None:
    prog = random_program(2000)
    res = optimize(prog, rules=schedule)
    assert res.report["stop_reason"] in ("saturated", "iteration_limit", "node_limit", "time_limit")
    assert res.report["after"]["cost"] <= res.report["before"]["cost"]
    assert same_values(prog, res.program)


def test_arith_scale_experiment_runs_small(tmp_path: Path) -> None:
    import csv
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "experiments" / "arith_scale.py"
    spec = importlib.util.spec_from_file_location("arith_scale", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = module.main(["--sizes", "30", "--schedules", "all", "--timeout", "120", "--out", str(tmp_path)])
    assert [(r["ops"], r["schedule"]) for r in rows] == [(30, "all")]
    with open(tmp_path / "arith_scale.csv") as f:
        written = list(csv.DictReader(f))
    assert len(written) == 1
    for r in written:
        assert r["stop_reason"] in ("saturated", "iteration_limit", "node_limit", "time_limit")
        assert float(r["cost_after"]) <= float(r["cost_before"])
        assert int(r["nodes"]) > 0 and float(r["peak_rss_mb"]) > 0
    assert (tmp_path / "arith_scale.png").stat().st_size > 0
