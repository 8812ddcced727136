"""Printer: IR programs in every style print as MLIR that parses back to the same meaning."""

from __future__ import annotations

import pytest
from mlir_testutil import same_meaning

from eqsat.frontend.mlir import parse_mlir, print_mlir
from eqsat.interp import evaluate
from eqsat.ir import Builder, IRError, Program, Type, op_counts

T44 = Type((4, 4), "i16", False)


def round_trip(prog: Program) -> tuple[str, Program]:
    text = print_mlir(prog)
    (again,) = parse_mlir(text, "printed.mlir")
    assert same_meaning(prog, again)
    assert print_mlir(again) == text
    return text, again


def tensor_program(style: str, secret_y: bool) -> Program:
    b = Builder("mix", style=style)
    x = b.arg("x", Type((4, 4), "i16", True))
    y = b.arg("y", Type((), "i16", secret_y))
    m = b.unary("modswitch", b.unary("relinearize", b.mul(b.rotate(x, 5), x)))
    e = b.extract(b.add(b.neg(m), b.splat(y, T44)), 7)
    ins = b.insert(e, b.empty(T44), 13)
    out = b.sub(b.mul(ins, b.const(tuple(range(16)), T44)), b.const(3, T44))
    fe = b.from_elements([e, y, e, y], Type((4,), "i16", False))
    return b.finish([out, fe, e])


@pytest.mark.parametrize(("style", "secret_y"), [("plain", True), ("secret", True), ("secret", False)])
def test_every_op_round_trips(style: str, secret_y: bool) -> None:
    prog = tensor_program(style, secret_y)
    text, again = round_trip(prog)
    assert op_counts(again) == op_counts(prog)
    assert again.args == prog.args
    assert "builtin.module" not in text
    assert "tensor_ext.rotate %" in text and "arith.constant 5 : index" in text
    assert "mgmt.relinearize" in text and "mgmt.modswitch" in text
    assert ("secret.generic(" in text) == (style == "secret")


def test_plaintext_arguments_force_the_secret_wrapper() -> None:
    text, again = round_trip(tensor_program("plain", secret_y=False))
    assert "%y: i16" in text and "%x: !secret.secret<tensor<4x4xi16>>" in text
    assert again.style == "secret"
    assert dict(again.args)["y"] == Type((), "i16", False)


def test_secret_style_shape() -> None:
    text, _ = round_trip(tensor_program("secret", True))
    lines = text.splitlines()
    assert lines[0].startswith("func.func @mix(%x: !secret.secret<tensor<4x4xi16>>, %y: !secret.secret<i16>)")
    assert any(line.strip().startswith("^body(%input0: tensor<4x4xi16>, %input1: i16):") for line in lines)
    assert any(line.strip().startswith("secret.yield ") for line in lines)
    assert lines[-2].strip().startswith("return %")


def test_float_program() -> None:
    b = Builder("fl")
    x = b.arg("x", Type((8,), "f64", True))
    n = b.neg(b.mul(x, b.const(0.5, Type((8,), "f64", False))))
    text, again = round_trip(b.finish([b.unary("rescale", b.unary("bootstrap", n))]))
    assert "arith.negf" in text and "mgmt.rescale" in text and "dense<5.000000e-01>" in text
    assert op_counts(again) == {"mul_plain": 1, "neg": 1, "bootstrap": 1, "rescale": 1}


def test_noisy_program_encodes_plaintext_operands() -> None:
    b = Builder("nz", style="noisy")
    x = b.arg("x", Type((), "i5", True))
    c = b.const(3, Type((), "i5", False))
    m = b.unary("reduce_noise", b.mul(x, b.unary("encode", c)))
    a = b.add(m, c)  # secret + plaintext: printed as noisy.add of an encoding
    d = b.unary("decode", b.neg(a))
    text, _ = round_trip(b.finish([d, a]))
    assert "%x: !noisy.i32" in text and "noisy.reduce_noise" in text and "-> (i5, !noisy.i32)" in text
    assert text.count("noisy.encode %c3_i5 : i5 -> !noisy.i32") == 1
    assert "arith." not in text.replace("arith.constant", "")


def test_noisy_article_output_form() -> None:
    src = """func.func @t() -> i5 {
  %0 = arith.constant 3 : i5
  %1 = arith.constant 4 : i5
  %2 = noisy.encode %0 : i5 -> !noisy.i32
  %3 = noisy.encode %1 : i5 -> !noisy.i32
  %4 = noisy.mul %2, %3 : !noisy.i32
  %5 = noisy.reduce_noise %4 : !noisy.i32
  %6 = noisy.add %5, %3 : !noisy.i32
  %7 = noisy.decode %6 : !noisy.i32 -> i5
  %8 = noisy.decode %2 : !noisy.i32 -> i5
  %9 = arith.addi %7, %8 : i5
  return %9 : i5
}"""
    expected = """func.func @t() -> i5 {
  %c3_i5 = arith.constant 3 : i5
  %c4_i5 = arith.constant 4 : i5
  %0 = noisy.encode %c3_i5 : i5 -> !noisy.i32
  %1 = noisy.encode %c4_i5 : i5 -> !noisy.i32
  %2 = noisy.mul %0, %1 : !noisy.i32
  %3 = noisy.reduce_noise %2 : !noisy.i32
  %4 = noisy.add %3, %1 : !noisy.i32
  %5 = noisy.decode %4 : !noisy.i32 -> i5
  %6 = noisy.decode %0 : !noisy.i32 -> i5
  %7 = arith.addi %5, %6 : i5
  return %7 : i5
}
"""
    assert print_mlir(parse_mlir(src)) == expected


def test_noisy_style_cannot_hold_secret_tensors() -> None:
    b = Builder("bad", style="noisy")
    x = b.arg("x", Type((4,), "i16", True))
    with pytest.raises(IRError, match="noisy"):
        print_mlir(b.finish([b.add(x, x)]))


def test_names_are_sanitised_and_unique() -> None:
    b = Builder("names")
    x = b.arg("c5", Type((8,), "i16", True))  # clashes with the index constant's name
    y = b.arg("0bad", Type((8,), "i16", True))  # not a valid SSA name
    prog = b.finish([b.add(b.rotate(x, 5), y)])
    text = print_mlir(prog)
    (again,) = parse_mlir(text)
    assert [n for n, _ in again.args] == ["c5", "arg1"]
    u, v = list(range(8)), list(range(10, 18))
    assert evaluate(again, {"c5": u, "arg1": v}) == evaluate(prog, {"c5": u, "0bad": v})
    assert "%c5_1 = arith.constant 5 : index" in text


def test_wide_constants_are_refused_not_wrapped() -> None:
    # integers mean arithmetic mod t; wrapping 300 to 44 in i8 would change the program
    from eqsat.interp import WidthError

    b = Builder("wide")
    x = b.arg("x", Type((), "i8", True))
    with pytest.raises(WidthError, match="300 does not fit i8"):
        print_mlir(b.finish([b.add(x, b.const(300, Type((), "i8", False)))]))
    with pytest.raises(WidthError, match="200 does not fit i8"):  # MLIR would read it back as -56
        print_mlir(b.finish([b.add(x, b.const(200, Type((), "i8", False)))]))
    ok = print_mlir(b.finish([b.add(x, b.const(-128, Type((), "i8", False)))]))
    assert "arith.constant -128 : i8" in ok


def test_list_of_programs_and_single_program() -> None:
    a, b = tensor_program("plain", True), tensor_program("secret", True)
    b.name = "mix2"
    both = print_mlir([a, b])
    assert both == print_mlir(a) + "\n" + print_mlir(b)
    assert [p.style for p in parse_mlir(both)] == ["plain", "secret"]


def test_dead_nodes_are_not_printed() -> None:
    b = Builder("dead")
    x = b.arg("x", Type((4,), "i16", True))
    b.mul(x, x)
    text = print_mlir(b.finish([b.add(x, x)]))
    assert "arith.muli" not in text
