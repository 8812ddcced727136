"""Two short cuts of ``parse_module``: one verification per signature (``parse._signature``:
class, operand and result types, small properties) of the classes whose verification reads nothing
else, every other operation always -- fewer ``verify_`` calls, the same errors; and builtin types
read once per spelling (``_LocatingParser.parse_optional_type``)."""

from __future__ import annotations

from typing import Any

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.utils.exceptions import VerifyException

from eqsat.frontend.mlir import parse as parse_mod
from eqsat.frontend.mlir.dialects.tensor_ext import RotateOp
from eqsat.frontend.mlir.errors import MLIRError

PROGRAM = """func.func @f(%v: tensor<8xi16>, %w: tensor<4xi16>) -> tensor<8xi16> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor_ext.rotate %v, %c1 : tensor<8xi16>, index
  %b = tensor_ext.rotate %a, %c2 : tensor<8xi16>, index
  %c = tensor_ext.rotate %b, %c1 : tensor<8xi16>, index
  %d = tensor_ext.rotate %w, %c1 : tensor<4xi16>, index
  %s = arith.addi %a, %b : tensor<8xi16>
  %t = arith.addi %s, %c : tensor<8xi16>
  return %t : tensor<8xi16>
}
"""


def _counting(monkeypatch: pytest.MonkeyPatch, cls: type[Any], calls: list[Any], fail_on: Any = None) -> None:
    orig = cls.verify_

    def verify_(self: Any) -> None:
        calls.append(self.results[0].type)
        if fail_on is not None and self.results[0].type == fail_on:
            raise VerifyException("refused by the test")
        orig(self)

    monkeypatch.setattr(cls, "verify_", verify_)


def test_one_verification_per_signature(monkeypatch: pytest.MonkeyPatch) -> None:
    rotations: list[Any] = []
    adds: list[Any] = []
    _counting(monkeypatch, RotateOp, rotations)
    _counting(monkeypatch, arith.AddiOp, adds)
    parse_mod.parse_module(PROGRAM, "in.mlir")
    assert [str(t) for t in rotations] == ["tensor<8xi16>", "tensor<4xi16>"]  # 3 + 1 rotations
    assert len(adds) == 1


def test_a_new_signature_is_verified_and_its_error_located(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    _counting(monkeypatch, RotateOp, calls, fail_on=TensorType(IntegerType(16), [4]))
    with pytest.raises(MLIRError) as err:
        parse_mod.parse_module(PROGRAM, "in.mlir")
    assert str(err.value).startswith("in.mlir:7:8: error: refused by the test")


def test_signatures_only_for_local_verifiers() -> None:
    pm = parse_mod.parse_module("""func.func @g(%v: tensor<4xi16>) -> tensor<4xi16> {
  %k = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi16>
  %c1 = arith.constant 1 : index
  %r = affine.for %i = 0 to 2 iter_args(%a = %v) -> (tensor<4xi16>) {
    %x = tensor_ext.rotate %a, %c1 : tensor<4xi16>, index
    affine.yield %x : tensor<4xi16>
  }
  %m = arith.muli %r, %k : tensor<4xi16>
  return %m : tensor<4xi16>
}
""", "in.mlir")
    sig = {op.name: parse_mod._signature(op) for op in pm.module.walk()}
    assert sig["affine.for"] is None and sig["affine.yield"] is None and sig["func.func"] is None
    assert sig["arith.constant"] is not None  # the last one: ``%c1`` (the dense literal's has none)
    dense = next(op for op in pm.module.walk() if op.name == "arith.constant")
    assert parse_mod._signature(dense) is None
    assert sig["tensor_ext.rotate"] is not None and sig["arith.muli"] is not None


LOOP = """func.func @h(%v: tensor<16xi16>) -> tensor<16xi16> {
  %c1 = arith.constant 1 : index
  %r = affine.for %i = 0 to 3 iter_args(%a = %v) -> (tensor<16xi16>) {
    %x = tensor_ext.rotate %a, %c1 : tensor<16xi16>, index
    affine.yield %x : tensor<16xi16>
  }
  return %r : tensor<16xi16>
}
"""


def test_builtin_types_read_once_by_spelling(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_LocatingParser.parse_optional_type``: a builtin type xDSL read once is taken by its
    spelling afterwards (the loop's, the yield's, the signature's), the same attribute."""
    from xdsl.parser.attribute_parser import AttrParser

    from eqsat.frontend.mlir import fast_ops

    monkeypatch.setattr(fast_ops, "TYPES", {})
    calls: list[str] = []
    orig = AttrParser._parse_optional_builtin_parametrized_type

    def counting(self: Any) -> Any:
        calls.append(self._current_token.text)
        return orig(self)

    monkeypatch.setattr(AttrParser, "_parse_optional_builtin_parametrized_type", counting)
    first = parse_mod.parse_module(LOOP, "in.mlir")
    assert calls == ["tensor"]  # the signature's; every later ``tensor<16xi16>`` from the table
    calls.clear()
    second = parse_mod.parse_module(LOOP.replace("%v", "%w"), "in.mlir")
    assert calls == []
    assert fast_ops.TYPES["tensor<16xi16>"] == TensorType(IntegerType(16), [16])
    types = [[r.type for r in op.results] for op in first.module.walk()]
    assert types == [[r.type for r in op.results] for op in second.module.walk()]


def test_a_type_spelling_cut_short_is_xdsls_to_read(monkeypatch: pytest.MonkeyPatch) -> None:
    from eqsat.frontend.mlir import fast_ops

    monkeypatch.setattr(fast_ops, "TYPES", {"tensor<16xi16>": TensorType(IntegerType(16), [16])})
    with pytest.raises(MLIRError):  # ``tensor<16xi16x`` is no spelling of the table's
        parse_mod.parse_module(LOOP.replace("-> (tensor<16xi16>)", "-> (tensor<16xi16x)"), "in.mlir")
