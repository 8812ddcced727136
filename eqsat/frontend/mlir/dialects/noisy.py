"""The ``noisy`` dialect of the noisy-arithmetic article, in exactly its syntax.

In: MLIR text such as ``%2 = noisy.encode %0 : i5 -> !noisy.i32``.  Out: xDSL
operation classes and the ``!noisy.i32`` type, collected in ``Noisy``::

    %e = noisy.encode %c : i5 -> !noisy.i32      // plaintext -> noisy integer
    %s = noisy.add %a, %b : !noisy.i32           // also noisy.sub, noisy.mul
    %r = noisy.reduce_noise %a : !noisy.i32      // resets the noise
    %d = noisy.decode %a : !noisy.i32 -> i5      // noisy integer -> plaintext
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition, operand_def, result_def


@irdl_attr_definition
class NoisyI32Type(ParametrizedAttribute, TypeAttribute):
    """A 32-bit integer carrying a small plaintext in its top bits plus noise."""

    name = "noisy.i32"


class _NoisyBinary(IRDLOperation):
    lhs = operand_def(NoisyI32Type())
    rhs = operand_def(NoisyI32Type())
    output = result_def(NoisyI32Type())

    assembly_format = "$lhs `,` $rhs attr-dict `:` type($output)"


@irdl_op_definition
class AddOp(_NoisyBinary):
    name = "noisy.add"


@irdl_op_definition
class SubOp(_NoisyBinary):
    name = "noisy.sub"


@irdl_op_definition
class MulOp(_NoisyBinary):
    name = "noisy.mul"


@irdl_op_definition
class ReduceNoiseOp(IRDLOperation):
    name = "noisy.reduce_noise"
    input = operand_def(NoisyI32Type())
    output = result_def(NoisyI32Type())

    assembly_format = "$input attr-dict `:` type($output)"


@irdl_op_definition
class EncodeOp(IRDLOperation):
    name = "noisy.encode"
    input = operand_def(IntegerType)
    output = result_def(NoisyI32Type())

    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"


@irdl_op_definition
class DecodeOp(IRDLOperation):
    name = "noisy.decode"
    input = operand_def(NoisyI32Type())
    output = result_def(IntegerType)

    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"


Noisy = Dialect(
    "noisy",
    [AddOp, SubOp, MulOp, ReduceNoiseOp, EncodeOp, DecodeOp],
    [NoisyI32Type],
)
