"""The type after a ``dense<...>`` literal is checked as xDSL checks it, with the check's constraint built once."""

from __future__ import annotations

import pytest

from eqsat.errors import UserError
from eqsat.frontend.mlir import parse_mlir
from eqsat.frontend.mlir.parse import _dense_literal_types


def _program(ty: str) -> str:
    return (f"func.func @f(%a: tensor<4xi16>) -> tensor<4xi16> {{\n  %c = arith.constant dense<1> : {ty}\n"
            f"  %d = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi16>\n  return %a : tensor<4xi16>\n}}\n")


@pytest.mark.parametrize(("ty", "message"), [
    ("tensor<?xi16>", "Dense literal attribute should have a static shape."),
    ("i16", "Expected memref, vector or tensor type of integer, index, float, or complex type"),
])
def test_a_bad_literal_type_is_the_error_xdsl_reports(ty: str, message: str) -> None:
    with pytest.raises(UserError) as exc:
        parse_mlir(_program(ty), "x.mlir")
    assert str(exc.value).splitlines()[0] == f"x.mlir:3:3: error: {message}"


def test_the_constraint_is_built_once() -> None:
    parse_mlir(_program("tensor<4xi16>"), "x.mlir")
    before = _dense_literal_types.cache_info()
    (prog,) = parse_mlir(_program("tensor<4xi32>"), "x.mlir")
    after = _dense_literal_types.cache_info()
    assert after.misses == before.misses == 1 and after.hits == before.hits + 2
    assert prog.name == "f"
