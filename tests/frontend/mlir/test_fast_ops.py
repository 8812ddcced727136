"""The parser's short cut for common operation lines (``eqsat.frontend.mlir.fast_ops``) builds
the module xDSL builds: same operations, operands, types, properties, names and positions --
and leaves every error to xDSL, worded and located as before."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat.frontend.mlir import fast_ops
from eqsat.frontend.mlir import parse as parse_mod
from eqsat.frontend.mlir.errors import MLIRError
from eqsat.testing.mlir_programs import random_text_program
from eqsat.testing.slot_uniform import generate

ROOT = Path(__file__).resolve().parents[3]
FILES = sorted([*ROOT.glob("examples/*.mlir"), *ROOT.glob("tests/heir_cases/*.mlir"),
                *ROOT.glob("tests/frontend/mlir/golden/*.mlir"), *ROOT.glob("tests/frontend/mlir/bad/*.mlir")])


@contextmanager
def _fast(on: bool) -> Iterator[None]:
    old = parse_mod.FAST_OPS
    parse_mod.FAST_OPS = on
    try:
        yield
    finally:
        parse_mod.FAST_OPS = old


def _read(data: str | bytes, fast: bool) -> tuple[str, list[int]] | str:
    """The module in generic form and the operations' positions, or the error's one line."""
    with _fast(fast):
        try:
            pm = parse_mod.parse_module(data, "in.mlir")
        except MLIRError as e:
            return f"error: {e}"
    return str(pm.module), sorted(pm.offsets.values())


def _same(data: str | bytes) -> None:
    assert _read(data, True) == _read(data, False)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_stored_program_parses_to_the_same_module(path: Path) -> None:
    _same(path.read_bytes())


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_random_text_programs_parse_to_the_same_module(seed: int) -> None:
    _same(random_text_program(seed).text)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_random_slot_uniform_programs_parse_to_the_same_module(seed: int) -> None:
    _same(generate(seed, max_size=64).mlir)


def _short_cut_ops(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the operations the short cut builds from here on (appended as they come)."""
    taken: list[str] = []
    real = fast_ops.parse_line

    def counting(parser, text, start, name_at):  # type: ignore[no-untyped-def]
        op = real(parser, text, start, name_at)
        if op is not None:
            taken.append(op.name)
        return op

    monkeypatch.setattr(fast_ops, "parse_line", counting)
    return taken


def test_the_short_cut_takes_the_common_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _short_cut_ops(monkeypatch)
    _read((ROOT / "examples/sum_8.mlir").read_text(), True)
    assert taken.count("arith.constant") == 8 and taken.count("tensor.extract") == 8
    assert taken.count("arith.addi") == 7
    taken.clear()
    _read("""
func.func @f(%v: tensor<8xi16>, %s: i16) -> tensor<8xi16> {
  %c3 = arith.constant 3 : index
  %r = tensor_ext.rotate %v, %c3 : tensor<8xi16>, index  // a comment after it
  %i = tensor.insert %s into %r[%c3] : tensor<8xi16>
  return %i : tensor<8xi16>
}
""", True)
    assert taken == ["arith.constant", "tensor_ext.rotate", "tensor.insert"]


def test_crlf_line_ends_take_the_short_cut_and_read_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "examples/sum_8.mlir").read_text().replace("\n", "\r\n")
    _same(text)
    taken = _short_cut_ops(monkeypatch)
    _read(text, True)
    assert len(taken) == 23


BODY = """func.func @f(%a: i16, %b: i32, %t: tensor<4xi16>, %x: f32) -> i16 {{
  %c1 = arith.constant 1 : index
  {line}
  return %a : i16
}}
"""


@pytest.mark.parametrize("line", [
    "%r = arith.addi %a, %b : i16",  # an operand of another type
    "%r = arith.addi %a, %zz : i16",  # undefined
    "%a = arith.addi %a, %a : i16",  # redefined
    "%r = arith.constant 70000 : i16",  # out of range
    "%r = arith.constant 65535 : i16",
    "%r = arith.constant 1 : i1",
    "%r = arith.constant -1 : index",
    "%r = arith.addf %a, %a : i16",  # a float op on integers
    "%r = arith.addi %x, %x : f32",
    "%r = arith.addi %a, %a {foo = 1 : i32} : i16",  # an attribute dictionary: xDSL's
    "%r = arith.addi %a, %a overflow<nsw> : i16",
    "%r = arith.mulf %x, %x fastmath<fast> : f32",
    "%r = tensor.extract %t[%c1] : tensor<4xi32>",
    "%r = tensor.extract %t[%a] : tensor<4xi16>",  # a non-index index
    "%r = tensor.extract %t[%c1, %c1] : tensor<4xi16>",  # too many indices
    "%r = tensor.extract %t[] : tensor<4xi16>",
    "%r = tensor.insert %b into %t[%c1] : tensor<4xi16>",
    "%r = tensor_ext.rotate %t, %a : tensor<4xi16>, index",
    "%r = tensor_ext.rotate %t, %a : tensor<4xi16>, i16",
    "%r = tensor_ext.rotate %t, %c1 : tensor<4xi16>, index loc(unknown)",
    "%r = arith.addi %a, %a : i16 %s = arith.addi %a, %a : i16",
    "%r = arith.addi %a, %a : tensor<4xi16>",
])
def test_unusual_or_wrong_lines_read_as_without_the_short_cut(line: str) -> None:
    _same(BODY.format(line=line))


def test_a_forward_reference_in_a_graph_region_is_left_to_xdsl() -> None:
    _same("""
func.func @f(%a: i16) -> i16 {
  %0 = secret.generic(%a: i16) {
  ^body(%v: i16):
    %1 = arith.addi %v, %v : i16
    secret.yield %1 : i16
  } -> i16
  return %0 : i16
}
""")
