"""HEIR's ``tensor_ext`` dialect, reduced to the cyclic rotation.

In: ``%r = tensor_ext.rotate %t, %c : tensor<16xi16>, index``.  Out: ``RotateOp`` and
the ``TensorExt`` dialect.  Semantics (HEIR): rotate left over the flattened slots,
``result[i] = t[(i + c) mod n]``; the shift is an ``index`` value
(older HEIR also wrote an integer such as ``i32``; both are read).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerType, TensorType
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, VarConstraint, base, irdl_op_definition, operand_def, result_def


@irdl_op_definition
class RotateOp(IRDLOperation):
    name = "tensor_ext.rotate"

    T: ClassVar = VarConstraint("T", base(TensorType))
    tensor = operand_def(T)
    shift = operand_def(base(IndexType) | base(IntegerType))
    output = result_def(T)

    assembly_format = "$tensor `,` $shift attr-dict `:` type($tensor) `,` type($shift)"


TensorExt = Dialect("tensor_ext", [RotateOp], [])
