"""Ciphertext-management ops, one dialect ``mgmt`` (identity on cleartext values).

In/out syntax (``T`` is the operand type, which the result shares)::

    %r = mgmt.relinearize %x : T     // back to a two-part ciphertext after a mul
    %r = mgmt.modreduce %x : T       // HEIR's op, and what the printer writes: read as
                                     // modswitch (integers) or rescale (floats)
    %r = mgmt.bootstrap %x : T       // refresh the noise budget
    %r = mgmt.modswitch %x : T       // eqsat's older names, still read: BGV drop one
    %r = mgmt.rescale %x : T         // modulus / CKKS divide by the scale (HEIR has neither)
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Dialect
from xdsl.irdl import AnyAttr, IRDLOperation, VarConstraint, irdl_op_definition, operand_def, result_def


class _MgmtUnary(IRDLOperation):
    T: ClassVar = VarConstraint("T", AnyAttr())
    input = operand_def(T)
    output = result_def(T)

    assembly_format = "$input attr-dict `:` type($output)"


@irdl_op_definition
class RelinearizeOp(_MgmtUnary):
    name = "mgmt.relinearize"


@irdl_op_definition
class ModswitchOp(_MgmtUnary):
    name = "mgmt.modswitch"


@irdl_op_definition
class RescaleOp(_MgmtUnary):
    name = "mgmt.rescale"


@irdl_op_definition
class BootstrapOp(_MgmtUnary):
    name = "mgmt.bootstrap"


@irdl_op_definition
class ModreduceOp(_MgmtUnary):
    name = "mgmt.modreduce"


Mgmt = Dialect("mgmt", [RelinearizeOp, ModswitchOp, RescaleOp, BootstrapOp, ModreduceOp], [])
