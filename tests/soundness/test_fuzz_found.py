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
