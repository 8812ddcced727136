"""The lowering's and the IR builder's cheap paths (an unrolled loop makes the same values
thousands of times): the results are the ones the plain paths give."""

from __future__ import annotations

import eqsat.frontend.mlir.to_ir as lower
from eqsat.frontend.mlir import parse_mlir
from eqsat.frontend.mlir.parse import parse_module
from eqsat.ir import Builder, Type

STENCIL = """
func.func @f(%img: tensor<16xi16>) -> tensor<16xi16> {
  %cN = arith.constant 16 : index
  %zero = arith.constant 0 : i16
  %w = arith.constant 3 : i16
  %out = affine.for %x = 0 to 16 iter_args(%cur = %img) -> (tensor<16xi16>) {
    %acc = affine.for %d = -1 to 2 iter_args(%s = %zero) -> (i16) {
      %r = arith.addi %x, %d : index
      %one = arith.constant 1 : index
      %r1 = arith.addi %r, %one : index
      %r2 = arith.subi %r1, %one : index
      %wrapped = arith.remui %r2, %cN : index
      %p = tensor.extract %img[%wrapped] : tensor<16xi16>
      %pw = arith.muli %p, %w : i16
      %s2 = arith.addi %s, %pw : i16
      affine.yield %s2 : i16
    }
    %upd = tensor.insert %acc into %cur[%x] : tensor<16xi16>
    affine.yield %upd : tensor<16xi16>
  }
  return %out : tensor<16xi16>
}
"""


def test_known_indices_are_made_once_per_function() -> None:
    parsed = parse_module(STENCIL, "t.mlir")
    fn = lower._top_level_ops(parsed.module)[0]
    lowering = lower._FunctionLowering(parsed, fn)
    prog = lowering.run()
    # every index value the unrolled loops computed is one object per value
    assert set(lowering.indices) >= set(range(16)) | {-1, 17}
    assert all(type(v) is lower.Index and v.known and v.value == k for k, v in lowering.indices.items())
    assert lowering.known_index(5) is lowering.known_index(5)
    # and the program is the one the slot reads say: 16 slots of 3 weighted reads each
    assert sum(n.op == "extract" for n in prog.nodes) == 16
    assert sum(n.op == "insert" for n in prog.nodes) == 16


def test_lowering_gives_the_same_program_as_before() -> None:
    (prog,) = parse_mlir(STENCIL, "t.mlir")
    # slot x reads img[x-1], img[x], img[x+1] (wrapping), in that order
    ext = [n for n in prog.nodes if n.op == "extract"]
    assert [int(n.attrs[0]) for n in ext[:4]] == [15, 0, 1, 2]


def test_type_with_its_own_secrecy_or_shape_is_itself() -> None:
    t = Type((4,), "i16", True)
    assert t.with_secret(True) is t
    assert t.with_secret(False) == Type((4,), "i16", False)
    s = Type((), "i16", False)
    assert s.scalar() is s
    assert t.scalar() == Type((), "i16", True)


def test_builder_hash_conses_by_the_types_fields() -> None:
    b = Builder()
    x = b.arg("x", Type((4,), "i16", True))
    # two equal types made apart: one node
    i = b.add_node("extract", (x,), (1,), Type((), "i16", True))
    j = b.add_node("extract", (x,), (1,), Type((), "i16", True))
    k = b.add_node("extract", (x,), (1,), Type((), "i16", False))
    assert i == j != k
    # the memo's keys hold the type's fields, not the ``Type`` (its hash is Python code)
    assert all(not any(isinstance(part, Type) for part in key) for key in b._memo)
