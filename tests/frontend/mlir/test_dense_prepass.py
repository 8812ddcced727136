"""Large dense literals read before parsing (eqsat.frontend.mlir.dense) mean what xDSL reads.

For random tensors of every element type the pre-pass handles (and values at the edges of
each type: the upper half of ``iN`` that xDSL reads as negative, floats rounded to ``f16`` /
``f32``), the values handed to the lowering equal xDSL's ``get_values()`` on the untouched
text, and the programs lowered either way are equal.  Malformed literals and errors elsewhere
in the file give the same ``file:line:col`` message with and without the pre-pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat.frontend.mlir import MLIRError, dense, parse_mlir
from eqsat.frontend.mlir.parse import parse_module

ELEMS = ["i8", "i16", "i32", "i64", "f16", "f32", "f64"]


def literal(values: np.ndarray) -> str:
    if values.ndim == 1:
        return "[" + ", ".join(_num(v) for v in values.tolist()) + "]"
    return "[" + ", ".join(literal(row) for row in values) + "]"


def _num(v: object) -> str:
    return f"{v:.17e}" if isinstance(v, float) else str(v)  # MLIR floats need a point: 1.00...e-05


def program(values: np.ndarray, elem: str, tail: str = "") -> str:
    shape = "x".join(str(d) for d in values.shape)
    return (f"func.func @f(%x: tensor<{values.shape[-1]}x{elem}>) -> tensor<{shape}x{elem}> {{\n"
            f"  %w = arith.constant dense<{literal(values)}> : tensor<{shape}x{elem}>{tail}\n"
            f"  return %w : tensor<{shape}x{elem}>\n}}\n")


@st.composite
def tensors(draw: st.DrawFn) -> tuple[np.ndarray, str]:
    elem = draw(st.sampled_from(ELEMS))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    count = int(np.prod(shape))
    if elem.startswith("i"):
        w = int(elem[1:])
        lo, hi = -(1 << (w - 1)), (1 << w) - 1 if w < 64 else (1 << 63) - 1
        edge = st.sampled_from([lo, hi, 0, -1, (1 << (w - 1)) - 1, 1 << (w - 1)] if w < 64 else [lo + 1, hi - 1, 0])
        vals: list[object] = draw(st.lists(st.one_of(st.integers(lo if w < 64 else lo + 1, hi if w < 64 else hi - 1),
                                                     edge), min_size=count, max_size=count))
        return np.array(vals, dtype=object).reshape(shape), elem
    big = {"f16": 6e4, "f32": 3e38, "f64": 1e300}[elem]
    vals = draw(st.lists(st.floats(-big, big, allow_nan=False, allow_infinity=False), min_size=count, max_size=count))
    return np.array(vals, dtype=np.float64).reshape(shape), elem


def xdsl_values(text: str, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    with monkeypatch.context() as m:
        m.setattr(dense, "MIN_LITERAL_CHARS", 1 << 60)  # the pre-pass never applies
        parsed = parse_module(text, "t.mlir")
    (op,) = [op for op in parsed.module.walk() if op.name == "arith.constant"]
    assert not parsed.dense
    return list(op.value.get_values())  # type: ignore[attr-defined]


@settings(max_examples=150, deadline=None)
@given(tensors())
def test_prepass_values_equal_xdsls(case: tuple[np.ndarray, str]) -> None:
    values, elem = case
    text = program(values, elem)
    mp = pytest.MonkeyPatch()
    want = xdsl_values(text, mp)
    mp.setattr(dense, "MIN_LITERAL_CHARS", 0)  # every literal long enough for a placeholder
    try:
        parsed = parse_module(text, "t.mlir")
        got = list(parsed.dense.values())
        if got:  # read before parsing: the values xDSL would have given
            assert got[0].shape == values.shape
            assert got[0].reshape(-1).tolist() == want
        else:  # too short for the placeholder (a single i64): xDSL read it
            assert len(text) < 200
        assert [str(p) for p in parse_mlir(text, "t.mlir")] == [str(p) for p in _without(text)]
    finally:
        mp.undo()


def _without(text: str) -> list[object]:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(dense, "MIN_LITERAL_CHARS", 1 << 60)
        return list(parse_mlir(text, "t.mlir"))


def _outcome(text: str, min_chars: int) -> str:
    """The error message, or the lowered programs, with the pre-pass from ``min_chars`` on."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(dense, "MIN_LITERAL_CHARS", min_chars)
        try:
            return "\n".join(str(p) for p in parse_mlir(text, "t.mlir"))
        except MLIRError as exc:
            return "error: " + str(exc)


def _error(text: str, min_chars: int) -> str:
    out = _outcome(text, min_chars)
    assert out.startswith("error: "), out[:200]
    return out


BIG = np.arange(64 * 40).reshape(64, 40) % 7 - 3  # a literal of several thousand characters


@pytest.mark.parametrize("broken", [
    # errors after a replaced literal: same line and column
    program(BIG, "i16", tail="  %bad = arith.frob %x : tensor<40xi16>"),
    program(BIG, "i16").replace("  return %w", "  %y = arith.addi %w, %nope : tensor<64x40xi16>\n  return %w"),
    program(BIG, "i16").replace("\n  return", " // a comment\n  %q = unknown.op\n  return"),
    # malformed (or unusual) literals: left to xDSL, which reports or reads them
    program(BIG, "i16").replace("[-3, -2", "[-3, - 2", 1),
    program(BIG, "i16").replace("[-3, -2", "[-3,, -2", 1),
    program(BIG, "i16").replace("[-3, -2", "[-3, 1.5", 1),
    program(BIG, "i16").replace("], [", "], [[", 1),
    program(BIG, "i16").replace("tensor<64x40xi16>", "tensor<64x41xi16>", 1),
    program(BIG, "i8").replace("[-3, -2", "[-3, 300", 1),
    program(BIG.astype(float) / 4, "f32").replace("[-0.75, -0.5", "[-0.75, 1e5", 1),
    program(BIG.astype(float) / 4, "f32").replace("[-0.75, -0.5", "[-0.75, +0.5", 1),
    program(BIG.astype(float) / 4, "f16").replace("[-0.75, -0.5", "[-0.75, 70000.0", 1),
])
def test_errors_point_where_xdsl_points(broken: str) -> None:
    assert _outcome(broken, 0) == _outcome(broken, 1 << 60)


def test_a_literal_spanning_lines_keeps_later_positions() -> None:
    rows = ",\n      ".join(literal(r) for r in BIG)
    text = (f"func.func @f(%x: tensor<40xi16>) -> tensor<64x40xi16> {{\n"
            f"  %w = arith.constant dense<[{rows}]> : tensor<64x40xi16>\n"
            f"  %y = arith.frob %w : tensor<64x40xi16>\n  return %w : tensor<64x40xi16>\n}}\n")
    pre = dense.prepass(text, 0)
    assert len(pre.text) == len(text) and pre.text.count("\n") == text.count("\n")
    assert [len(a) for a in pre.text.split("\n")] == [len(a) for a in text.split("\n")]
    (arr,) = pre.values.values()
    assert np.array_equal(arr, BIG)
    assert _error(text, 0) == _error(text, 1 << 60)
    assert "t.mlir:66:8: error: unknown operation" in _error(text, 0)  # the line after the 64 rows


def test_literals_in_comments_strings_and_generic_form_stay() -> None:
    lit = literal(BIG)
    text = (f"// %v = arith.constant dense<{lit}> : tensor<64x40xi16>\n"
            f"func.func @f(%x: tensor<40xi16>) -> tensor<64x40xi16> {{\n"
            f"  %w = \"arith.constant\"() <{{value = dense<{lit}> : tensor<64x40xi16>}}> : () -> tensor<64x40xi16>\n"
            f"  return %w : tensor<64x40xi16>\n}}\n")
    assert dense.prepass(text, 0).values == {}
    assert [str(p) for p in parse_mlir(text, "t.mlir")] == [str(p) for p in _without(text)]


@pytest.mark.parametrize("shape", [(300,), (16, 20)])
def test_printer_writes_large_constants_as_xdsl_does(shape: tuple[int, ...]) -> None:
    """Large integer constants packed by numpy (``printer_xdsl._int_dense``, ``held_constant``
    for vectors held by handle; the text printer's ``dense_text``) print as with xDSL's
    ``from_list``; the text reads back the same."""
    from eqsat.frontend.mlir import print_mlir, printer_xdsl
    from eqsat.ir import Builder, Type

    n = int(np.prod(shape))
    rng = np.random.default_rng(n)
    b = Builder("big")
    ty = Type(shape, "i16", True)
    x = b.arg("x", ty)
    acc = x
    for _ in range(3):  # three large constants (names cst, cst_1, cst_2) and a small one
        vals = tuple(int(v) for v in rng.integers(-(2**15), 2**15, size=n))
        acc = b.add(b.mul(acc, b.const(vals, ty.with_secret(False))), b.const(tuple(range(n)), ty.with_secret(False)))
    acc = b.mul(acc, b.const(7, ty.with_secret(False)))
    from eqsat.algebra import linmap
    from eqsat.ir import VecRef

    held = VecRef(linmap.register_vector(rng.integers(-(2**15), 2**15, size=n)))  # a diagonal by handle
    acc = b.add(acc, b.mul(x, b.const(held, ty.with_secret(False))))
    prog = b.finish([acc])
    fast = print_mlir(prog)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(printer_xdsl, "BIG_CONSTANT", 1 << 60)
        slow = printer_xdsl.print_mlir_xdsl(prog)
    assert fast == slow
    (back,) = parse_mlir(fast, "t.mlir")
    assert print_mlir(back) == fast
