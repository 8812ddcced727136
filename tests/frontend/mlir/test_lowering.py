"""Lowering: loop unrolling, index folding, styles and secrecy, op mapping."""

from __future__ import annotations

import pytest

import eqsat.frontend.mlir.to_ir as lower
from eqsat.frontend.mlir import MLIRError, parse_mlir
from eqsat.interp import Value, evaluate
from eqsat.ir import Program, Type, op_counts


def one(src: str) -> Program:
    (prog,) = parse_mlir(src, "t.mlir")
    return prog


def run(src: str, **inputs: object) -> list[Value]:
    return evaluate(one(src), inputs)


# -- unrolling -----------------------------------------------------------------


def test_nested_loops_with_iter_args_sum_a_matrix() -> None:
    src = """
    func.func @f(%m: tensor<3x4xi16>) -> i16 {
      %z = arith.constant 0 : i16
      %0 = affine.for %i = 0 to 3 iter_args(%acc = %z) -> (i16) {
        %1 = affine.for %j = 0 to 4 iter_args(%acc2 = %acc) -> (i16) {
          %e = tensor.extract %m[%i, %j] : tensor<3x4xi16>
          %s = arith.addi %acc2, %e : i16
          affine.yield %s : i16
        }
        affine.yield %1 : i16
      }
      return %0 : i16
    }"""
    m = list(range(1, 13))
    assert run(src, m=m) == [sum(m)]
    assert op_counts(one(src))["add"] == 11  # 0 + m[0] is add_plain, then 11 secret adds


def test_negative_lower_bound_step_and_multiple_iter_args() -> None:
    src = """
    func.func @f() -> (i16, i16) {
      %z = arith.constant 0 : i16
      %one = arith.constant 1 : i16
      %0:2 = affine.for %i = -3 to 4 step 2 iter_args(%s = %z, %n = %z) -> (i16, i16) {
        %v = arith.index_cast %i : index to i16
        %s2 = arith.addi %s, %v : i16
        %n2 = arith.addi %n, %one : i16
        affine.yield %s2, %n2 : i16, i16
      }
      return %0#0, %0#1 : i16, i16
    }"""
    assert run(src) == [sum(range(-3, 4, 2)), len(range(-3, 4, 2))]


def test_zero_trip_loop_returns_its_inits() -> None:
    src = """
    func.func @f(%x: i16) -> i16 {
      %0 = affine.for %i = 5 to 5 iter_args(%a = %x) -> (i16) {
        %s = arith.addi %a, %a : i16
        affine.yield %s : i16
      }
      return %0 : i16
    }"""
    assert run(src, x=7) == [7]


def test_bounds_from_constant_symbols_and_min_max_maps() -> None:
    src = """
    func.func @f() -> (i16, i16) {
      %z = arith.constant 0 : i16
      %cm2 = arith.constant -2 : index
      %c5 = arith.constant 5 : index
      %0 = affine.for %i = max affine_map<()[s0] -> (0, s0)>()[%cm2]
                        to min affine_map<()[s0] -> (8, s0)>()[%c5] iter_args(%a = %z) -> (i16) {
        %v = arith.index_cast %i : index to i16
        %s = arith.addi %a, %v : i16
        affine.yield %s : i16
      }
      %1 = affine.for %i = 0 to %c5 iter_args(%a = %z) -> (i16) {
        %v = arith.index_cast %i : index to i16
        %s = arith.addi %a, %v : i16
        affine.yield %s : i16
      }
      return %0, %1 : i16, i16
    }"""
    assert run(src) == [10, 10]


def test_loop_without_iter_args_is_accepted() -> None:
    src = """
    func.func @f(%x: i16) -> i16 {
      affine.for %i = 0 to 3 {
        %c = arith.constant 1 : index
      }
      return %x : i16
    }"""
    assert run(src, x=4) == [4]


def test_scf_for_with_constant_bounds_unrolls() -> None:
    src = """
    func.func @f(%x: tensor<8xi16>) -> i16 {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %z = arith.constant 0 : i16
      %0 = scf.for %i = %c1 to %c8 step %c2 iter_args(%a = %z) -> (i16) {
        %e = tensor.extract %x[%i] : tensor<8xi16>
        %s = arith.addi %a, %e : i16
        scf.yield %s : i16
      }
      return %0 : i16
    }"""
    x = list(range(10, 18))
    assert run(src, x=x) == [sum(x[1::2])]


def test_unrolling_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lower, "MAX_UNROLLED_OPS", 50)
    src = """
    func.func @f(%x: i16) -> i16 {
      %0 = affine.for %i = 0 to 1000000 iter_args(%a = %x) -> (i16) {
        %s = arith.addi %a, %x : i16
        affine.yield %s : i16
      }
      return %0 : i16
    }"""
    with pytest.raises(MLIRError, match="unrolling exceeds 50 operations"):
        one(src)


# -- index folding --------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        ("addi", 7, -9, -2),
        ("subi", 3, 10, -7),
        ("muli", -4, 6, -24),
        ("remui", -1, 256, 255),  # HEIR's wrap-around indexing: non-negative remainder
        ("remui", 17, 16, 1),
        ("remsi", -7, 3, -1),  # sign of the dividend
        ("divsi", -7, 2, -3),  # rounds toward zero
        ("divui", 9, 2, 4),
        ("floordivsi", -7, 2, -4),
        ("ceildivsi", 7, 2, 4),
        ("maxsi", -3, 2, 2),
        ("minsi", -3, 2, -3),
    ],
)
def test_index_arithmetic_folds(op: str, a: int, b: int, expected: int) -> None:
    src = f"""
    func.func @f() -> i32 {{
      %a = arith.constant {a} : index
      %b = arith.constant {b} : index
      %r = arith.{op} %a, %b : index
      %v = arith.index_cast %r : index to i32
      return %v : i32
    }}"""
    prog = one(src)
    assert evaluate(prog, {}) == [expected]
    assert [n.op for n in prog.nodes] == ["const"]  # everything folded away


def test_affine_apply_folds() -> None:
    src = """
    func.func @f() -> i32 {
      %c5 = arith.constant 5 : index
      %cm2 = arith.constant -2 : index
      %j = affine.apply affine_map<(d0)[s0] -> (d0 * 2 + s0 mod 4)>(%c5)[%cm2]
      %v = arith.index_cast %j : index to i32
      return %v : i32
    }"""
    assert run(src) == [12]


def test_index_division_by_zero() -> None:
    src = """
    func.func @f() -> i32 {
      %a = arith.constant 5 : index
      %b = arith.constant 0 : index
      %r = arith.remui %a, %b : index
      %v = arith.index_cast %r : index to i32
      return %v : i32
    }"""
    with pytest.raises(MLIRError, match=r"t.mlir:5:12: error: index division by zero"):
        one(src)


def test_unused_index_argument_is_rejected() -> None:
    with pytest.raises(MLIRError, match="index-typed function argument '%n'"):
        one("func.func @f(%x: i16, %n: index) -> i16 {\n  return %x : i16\n}")


# -- op mapping -----------------------------------------------------------------


def test_rotate_is_left_rotation() -> None:
    src = """
    func.func @f(%t: tensor<8xi16>) -> tensor<8xi16> {
      %c3 = arith.constant 3 : index
      %0 = tensor_ext.rotate %t, %c3 : tensor<8xi16>, index
      return %0 : tensor<8xi16>
    }"""
    t = list(range(10, 18))
    assert run(src, t=t) == [[t[(i + 3) % 8] for i in range(8)]]
    assert op_counts(one(src)) == {"rotate": 1}


def test_rotate_accepts_an_integer_shift_and_rejects_a_secret_one() -> None:
    src = """
    func.func @f(%t: tensor<8xi16>) -> tensor<8xi16> {
      %c = arith.constant -1 : i32
      %0 = tensor_ext.rotate %t, %c : tensor<8xi16>, i32
      return %0 : tensor<8xi16>
    }"""
    t = list(range(8))
    assert run(src, t=t) == [t[-1:] + t[:-1]]
    bad = """func.func @f(%t: tensor<8xi16>, %k: i32) -> tensor<8xi16> {
  %0 = tensor_ext.rotate %t, %k : tensor<8xi16>, i32
  return %0 : tensor<8xi16>
}"""
    with pytest.raises(
        MLIRError, match=r"t.mlir:2:8: error: shift of 'tensor_ext.rotate' is not a compile-time"
    ):
        one(bad)


def test_two_dimensional_indices_flatten_row_major() -> None:
    src = """
    func.func @f(%m: tensor<3x4xi16>, %s: i16) -> (i16, tensor<3x4xi16>) {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %e = tensor.extract %m[%c1, %c2] : tensor<3x4xi16>
      %i = tensor.insert %s into %m[%c2, %c1] : tensor<3x4xi16>
      return %e, %i : i16, tensor<3x4xi16>
    }"""
    prog = one(src)
    assert [n.attrs for n in prog.nodes if n.op in ("extract", "insert")] == [(6,), (9,)]
    m = list(range(12))
    assert evaluate(prog, {"m": m, "s": 99}) == [6, [*m[:9], 99, *m[10:]]]


def test_extract_of_plaintext_constants_folds() -> None:
    src = """
    func.func @f(%x: i16) -> i16 {
      %c1 = arith.constant 1 : index
      %w = arith.constant dense<[5, 6, 7]> : tensor<3xi16>
      %e = tensor.extract %w[%c1] : tensor<3xi16>
      %two = arith.constant 2 : i16
      %three = arith.constant 3 : i16
      %fe = tensor.from_elements %two, %three : tensor<2xi16>
      %sp = tensor.splat %two : tensor<4xi16>
      %f = tensor.extract %sp[%c1] : tensor<4xi16>
      %g = tensor.extract %fe[%c1] : tensor<2xi16>
      %0 = arith.muli %x, %e : i16
      %1 = arith.addi %0, %f : i16
      %2 = arith.addi %1, %g : i16
      return %2 : i16
    }"""
    prog = one(src)
    assert "extract" not in {prog.nodes[i].op for i in prog.live()}
    assert evaluate(prog, {"x": 3}) == [3 * 6 + 2 + 3]


def test_zero_minus_x_reads_as_neg_and_negf() -> None:
    src = """
    func.func @f(%x: tensor<4xi16>, %y: f64) -> (tensor<4xi16>, f64) {
      %z = arith.constant dense<0> : tensor<4xi16>
      %0 = arith.subi %z, %x : tensor<4xi16>
      %1 = arith.negf %y : f64
      return %0, %1 : tensor<4xi16>, f64
    }"""
    prog = one(src)
    assert op_counts(prog) == {"neg": 2}
    assert evaluate(prog, {"x": [1, 2, 3, 4], "y": 0.5}) == [[-1, -2, -3, -4], -0.5]


def test_constants_scalar_dense_and_splat() -> None:
    src = """
    func.func @f() -> (i16, tensor<2x2xi16>, tensor<3xf32>, f64) {
      %a = arith.constant -3 : i16
      %b = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi16>
      %c = arith.constant dense<2.5> : tensor<3xf32>
      %d = arith.constant 1.25 : f64
      return %a, %b, %c, %d : i16, tensor<2x2xi16>, tensor<3xf32>, f64
    }"""
    assert run(src) == [-3, [1, 2, 3, 4], [2.5, 2.5, 2.5], 1.25]


def test_mgmt_ops_are_read() -> None:
    src = """
    func.func @f(%x: tensor<4xi16>, %y: tensor<4xf32>) -> (tensor<4xi16>, tensor<4xf32>) {
      %0 = arith.muli %x, %x : tensor<4xi16>
      %1 = mgmt.relinearize %0 : tensor<4xi16>
      %2 = mgmt.modswitch %1 : tensor<4xi16>
      %3 = mgmt.modreduce %2 : tensor<4xi16>
      %4 = mgmt.bootstrap %3 : tensor<4xi16>
      %5 = mgmt.modreduce %y : tensor<4xf32>
      %6 = mgmt.rescale %5 : tensor<4xf32>
      return %4, %6 : tensor<4xi16>, tensor<4xf32>
    }"""
    counts = op_counts(one(src))
    assert counts == {"mul": 1, "relinearize": 1, "modswitch": 2, "bootstrap": 1, "rescale": 2}


# -- styles, names, secrecy ---------------------------------------------------------

OLD_GENERIC = """
func.func @g(%a: !secret.secret<tensor<4xi16>>, %p: i16) -> !secret.secret<tensor<4xi16>> {
  %0 = secret.generic ins(%a, %p : !secret.secret<tensor<4xi16>>, i16) {
  ^bb0(%x: tensor<4xi16>, %q: i16):
    %s = tensor.splat %q : tensor<4xi16>
    %1 = arith.addi %x, %s : tensor<4xi16>
    secret.yield %1 : tensor<4xi16>
  } -> (!secret.secret<tensor<4xi16>>)
  return %0 : !secret.secret<tensor<4xi16>>
}"""

NEW_GENERIC = """
func.func @g(%a: !secret.secret<tensor<4xi16>>, %p: i16) -> !secret.secret<tensor<4xi16>> {
  %0 = secret.generic(%a: !secret.secret<tensor<4xi16>>, %p: i16) {
  ^body(%x: tensor<4xi16>, %q: i16):
    %s = tensor.splat %q : tensor<4xi16>
    %1 = arith.addi %x, %s : tensor<4xi16>
    secret.yield %1 : tensor<4xi16>
  } -> !secret.secret<tensor<4xi16>>
  return %0 : !secret.secret<tensor<4xi16>>
}"""


@pytest.mark.parametrize("src", [OLD_GENERIC, NEW_GENERIC])
def test_secret_generic_forms(src: str) -> None:
    prog = one(src)
    assert prog.style == "secret" and prog.name == "g"
    assert prog.args == [("a", Type((4,), "i16", True)), ("p", Type((), "i16", False))]
    assert evaluate(prog, {"a": [1, 2, 3, 4], "p": 10}) == [[11, 12, 13, 14]]


def test_plain_style_arguments_are_secret_and_named() -> None:
    prog = one("func.func @h(%img: tensor<4xi16>, %k: i16) -> i16 {\n  return %k : i16\n}")
    assert prog.style == "plain"
    assert prog.args == [("img", Type((4,), "i16", True)), ("k", Type((), "i16", True))]


def test_noisy_types() -> None:
    src = """
    func.func @n(%x: !noisy.i32) -> i5 {
      %c = arith.constant 3 : i5
      %e = noisy.encode %c : i5 -> !noisy.i32
      %m = noisy.mul %x, %e : !noisy.i32
      %r = noisy.reduce_noise %m : !noisy.i32
      %d = noisy.decode %r : !noisy.i32 -> i5
      return %d : i5
    }"""
    prog = one(src)
    assert prog.style == "noisy"
    assert prog.args == [("x", Type((), "i5", True))]
    assert [prog.nodes[i].op for i in prog.live()] == [
        "input",
        "const",
        "encode",
        "mul",
        "reduce_noise",
        "decode",
    ]
    assert not prog.nodes[prog.results[0]].type.secret


def test_module_wrapper_declarations_and_order() -> None:
    src = """
    module {
      func.func private @external(tensor<4xi16>) -> tensor<4xi16>
      func.func @first(%x: i16) -> i16 {
        return %x : i16
      }
      func.func @second(%y: i16) -> i16 {
        %0 = arith.addi %y, %y : i16
        return %0 : i16
      }
    }"""
    progs = parse_mlir(src)
    assert [p.name for p in progs] == ["first", "second"]
    assert evaluate(progs[1], {"y": 4}) == [8]
