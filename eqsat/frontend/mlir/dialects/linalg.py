"""The ``linalg`` ops eqsat reads: xDSL's ``generic``/``yield``/``index`` plus our own named ops.

In: MLIR text in the named-op form MLIR prints (and HEIR's tests write)::

    %y = linalg.matvec ins(%W, %x : tensor<16x16xi16>, tensor<16xi16>)
                       outs(%init : tensor<16xi16>) -> tensor<16xi16>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                                   strides = dense<1> : tensor<2xi64>}
           ins(%img, %f : tensor<1x1x5x5xi16>, tensor<1x1x3x3xi16>) outs(%o : tensor<1x1x3x3xi16>)
           -> tensor<1x1x3x3xi16>
    %t = linalg.transpose ins(%a : tensor<2x3xi16>) outs(%e : tensor<3x2xi16>) permutation = [1, 0]
    %f = linalg.fill ins(%c0 : i16) outs(%e : tensor<4xi16>) -> tensor<4xi16>

Out: ``NamedOp`` subclasses (one per op name in ``NAMED``; an op only records its ``ins``,
``outs``, results and attributes -- its meaning is given by name in
``eqsat.frontend.mlir.linalg_lower``) and the ``Linalg`` dialect, which also holds xDSL's
``linalg.generic``, ``linalg.yield`` and ``linalg.index``.  xDSL 0.74 has no ``matvec``,
``vecmat``, ``dot``, ``conv_1d``, ``conv_2d`` or ``pooling_nchw_sum``, and its own named ops
build hidden regions we do not need, so every named op here is ours.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation, irdl_op_definition, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer


class NamedOp(IRDLOperation):
    """A named structured op: ``{attrs}? ins(...) outs(...) (attrs = {...})? (permutation = [..])? -> T``."""

    inputs = var_operand_def()
    outputs = var_operand_def()
    res = var_result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> NamedOp:
        attrs: dict[str, Attribute] = dict(parser.parse_optional_attr_dict())
        groups: list[list[SSAValue]] = []
        for keyword in ("ins", "outs"):
            pos = parser.pos
            if parser.parse_optional_characters(keyword) is None:
                groups.append([])
                continue
            parser.parse_punctuation("(")
            names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            if len(names) != len(types):
                parser.raise_error(f"{cls.name} {keyword} has {len(names)} operands but {len(types)} types", pos)
            groups.append(list(parser.resolve_operands(names, types, pos)))
        while True:
            if parser.parse_optional_keyword("attrs") is not None:
                parser.parse_punctuation("=")
                attrs.update(parser.parse_optional_attr_dict())
                continue
            word = parser.parse_optional_identifier()
            if word is None:
                break
            parser.parse_punctuation("=")
            if word == "permutation":  # ``permutation = [1, 0]`` (an array of integers)
                ints = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
                attrs[word] = ArrayAttr([IntegerAttr(i, 64) for i in ints])
            else:
                attrs[word] = parser.parse_attribute()
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            if parser.parse_optional_punctuation("(") is not None:
                result_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
                parser.parse_punctuation(")")
            else:
                result_types = [parser.parse_type()]
        else:  # ``linalg.transpose`` (and any op on tensors written without ``->``): the outs' types
            result_types = [v.type for v in groups[1] if isinstance(v.type, TensorType)]
        op = cls.build(operands=[groups[0], groups[1]], result_types=[result_types])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        for keyword, vals in (("ins", self.inputs), ("outs", self.outputs)):
            if vals:
                printer.print_string(f" {keyword}(")
                printer.print_list(vals, printer.print_ssa_value)
                printer.print_string(" : ")
                printer.print_list([v.type for v in vals], printer.print_attribute)
                printer.print_string(")")
        if self.attributes:
            printer.print_string(" attrs = ")
            printer.print_attr_dict(self.attributes)
        if self.res:
            printer.print_string(" -> ")
            printer.print_list([r.type for r in self.res], printer.print_attribute)

    def int_list(self, name: str) -> list[int] | None:
        """An integer-list attribute (``dense<[2, 2]> : tensor<2xi64>``, ``array<i64: ..>``,
        ``[1, 0]``), or None when absent; a single value is returned as one element."""
        attr = self.attributes.get(name)
        if attr is None:
            return None
        if isinstance(attr, DenseArrayBase):
            return [int(v) for v in attr.get_values()]
        if isinstance(attr, ArrayAttr):
            return [int(a.value.data) if isinstance(a, IntegerAttr) else int(str(a)) for a in attr.data]
        if isinstance(attr, IntegerAttr):
            return [int(attr.value.data)]
        get = getattr(attr, "get_values", None)
        if get is not None:
            return [int(v) for v in get()]
        raise ValueError(f"attribute '{name}' is not a list of integers: {attr}")


NAMED = (
    "matvec", "vecmat", "dot", "matmul", "conv_1d", "conv_2d", "conv_2d_nchw_fchw",
    "conv_2d_nhwc_hwcf", "pooling_nchw_sum", "fill", "transpose", "add", "sub", "mul", "copy",
)
"""The named ops read (their meaning: ``eqsat.frontend.mlir.linalg_lower``)."""


def _named(short: str) -> type[NamedOp]:
    cls = type(f"Linalg_{short}", (NamedOp,), {"name": f"linalg.{short}", "__module__": __name__})
    return irdl_op_definition(cls)


NAMED_OPS: dict[str, type[NamedOp]] = {f"linalg.{s}": _named(s) for s in NAMED}

Linalg = Dialect("linalg", [GenericOp, YieldOp, IndexOp, *NAMED_OPS.values()], [IteratorTypeAttr])
