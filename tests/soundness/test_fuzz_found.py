"""Bugs the fuzzer found (issue 13), each on its minimal program.

The MLIR regressions replay from ``tests/fuzz_regressions/``; the ones here need an IR
program the printer would change (a noisy plaintext operand prints as ``noisy.encode``).
"""

from __future__ import annotations

import eqsat
from eqsat.ir import Builder, Type
from eqsat.mgmt.levels import rescale_points
from eqsat.milp import Milp
from eqsat.testing.reread import report_differences


def test_noisy_input_returned_unchanged_reports_its_printed_form() -> None:
    # fuzz seed 10065 (shrunk): under a cost table where encode + mul costs more than the
    # source's mul_plain, the input comes back unchanged; its report counted mul_plain
    # while the printed program (the constant encoded) reads back as a ct x ct mul
    i5 = Type((), "i5", False)
    b = Builder("f", style="noisy")
    x = b.unary("encode", b.const(14, i5))
    prog = b.finish([b.unary("decode", b.mul(x, b.const(3, i5)))])
    costs = {"add": 1.0, "add_plain": 0.5, "mul": 4.0, "mul_plain": 1.0, "sub": 2.0, "neg": 1.0,
             "reduce_noise": 20.0}
    res = eqsat.optimize(prog, scheme="noisy", rules="arith", costs=costs)
    assert report_differences(res, "noisy", costs) == []
    assert res.report["after"]["ops"] == {"mul": 1}  # type: ignore[index]
    assert res.report["before"]["ops"] == {"mul": 1}  # type: ignore[index]


def test_empty_milp_is_optimal() -> None:
    # fuzz seed 67: x1 - x1 under CKKS leaves no secret value; the rescale ILP had no
    # column, HiGHS answered "empty" and the program was rejected as infeasible
    assert Milp().solve(1.0, None) == ("optimal", [], 0.0, 0.0)
    f = Type((4,), "f32", True)
    b = Builder("g")
    b.arg("x", f)
    prog = b.finish([b.const(0.0, f.with_secret(False))])
    assert rescale_points(prog) == set()
    src = "func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.subf %x, %x : tensor<4xf32>\n" \
          "  return %0 : tensor<4xf32>\n}\n"
    res = eqsat.optimize(eqsat.parse_mlir(src)[0], scheme="ckks")
    assert res.report["after"]["ops"] == {}  # type: ignore[index]


def test_depth_floor_of_a_class_that_folds_to_a_constant() -> None:
    # fuzz seed 10097: x0*x1 - x0*x1 is 0; the analysis kept the floor 1 of the product, so
    # max_level=0 was refused although the optimized program is the plaintext 0
    src = ("func.func @f(%x0: i32, %x1: i32) -> i32 {\n  %0 = arith.muli %x0, %x1 : i32\n"
           "  %1 = arith.subi %0, %0 : i32\n  return %1 : i32\n}\n")
    res = eqsat.optimize(eqsat.parse_mlir(src)[0], scheme="bgv", max_level=0)
    assert res.report["after"]["ops"] == {}  # type: ignore[index]
    assert res.report["analysis"]["depth_floor"] == [None]  # type: ignore[index]


def test_plaintext_argument_is_not_a_ciphertext_in_the_analysis() -> None:
    # fuzz seed 10162: y[0] * w[1] with w a plaintext argument of a secret.generic is a
    # plaintext product (depth 0), but the analysis counted every argument as a ciphertext
    # (depth floor 1): max_level=0 was refused
    src = """func.func @f(%sy: !secret.secret<tensor<8xi32>>, %w: tensor<8xi32>) -> !secret.secret<i32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = secret.generic ins(%sy : !secret.secret<tensor<8xi32>>) {
  ^bb0(%y: tensor<8xi32>):
    %1 = tensor.extract %y[%c0] : tensor<8xi32>
    %2 = tensor.extract %w[%c1] : tensor<8xi32>
    %3 = arith.muli %2, %1 : i32
    secret.yield %3 : i32
  } -> !secret.secret<i32>
  return %0 : !secret.secret<i32>
}
"""
    prog = eqsat.parse_mlir(src)[0]
    res = eqsat.optimize(prog, scheme="bgv", max_level=0)
    assert res.report["analysis"]["depth_floor"] == [0]  # type: ignore[index]
    assert res.report["after"]["ops"].get("mul", 0) == 0  # type: ignore[union-attr, index]


def test_noisy_source_over_the_budget_may_cost_less_than_its_legal_result() -> None:
    # fuzz seed 10299 reported cost 10 -> 49 with status ok: the source needs 28 bits of a
    # 26-bit budget (illegal), so the result pays the reduce_noise it needs; the row says so
    from eqsat.testing.fuzz import check, draw_case, run_case

    case = draw_case(10299)
    assert case.scheme == "noisy"
    status, detail, rep = check(case)
    before, after = rep["before"], rep["after"]
    assert status == "ok"
    assert before["noise"] == {"model": "noisy", "max_bits": 28.0, "budget": 26, "legal": False}  # type: ignore[index]
    assert after["noise"]["legal"] and after["ops"].get("reduce_noise", 0) >= 1  # type: ignore[index, union-attr]
    assert detail.startswith("source illegal (28 > 26 bits): cost 10 -> ") and "management it needs" in detail
    row = run_case(10299)
    assert row["source_legal"] is False and row["detail"] == detail


def test_cost_verdict_flags_a_costlier_result_from_a_legal_source() -> None:
    from eqsat.testing.fuzz import cost_verdict

    legal = {"max_bits": 20.0, "budget": 26, "legal": True}
    over = {"max_bits": 30.0, "budget": 26, "legal": False}
    same = cost_verdict({"before": {"cost": 5.0, "noise": legal}, "after": {"cost": 5.0, "noise": legal}})
    assert same == (False, "")
    bad = cost_verdict({"before": {"cost": 5.0, "noise": legal}, "after": {"cost": 6.0, "noise": legal}})
    assert bad[0] and "5 -> 6" in bad[1]
    ok, why = cost_verdict({"before": {"cost": 5.0, "noise": over}, "after": {"cost": 45.0, "noise": legal}})
    assert not ok and why.startswith("source illegal (30 > 26 bits)")
