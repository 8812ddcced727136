"""The pieces of HEIR's ``secret`` dialect that wrap a plaintext program.

In: ``!secret.secret<T>`` and ``secret.generic`` in both spellings HEIR has used::

    %0 = secret.generic ins(%a, %b : !secret.secret<T>, !secret.secret<T>) {
    ^bb0(%x: T, %y: T):
      ...
      secret.yield %r : T
    } -> (!secret.secret<T>)

    %0 = secret.generic(%a: !secret.secret<T>, %b: !secret.secret<T>) {
    ^body(%x: T, %y: T):
      ...
      secret.yield %r : T
    } -> !secret.secret<T>

Out: ``SecretType``, ``GenericOp``, ``YieldOp`` (the ``Secret`` dialect).  The printer
writes the second (newer) form.  An optional ``attrs = {...}`` dictionary and
per-operand attribute dictionaries are accepted and dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator


@irdl_attr_definition
class SecretType(ParametrizedAttribute, TypeAttribute):
    """``!secret.secret<T>``: an encrypted value whose cleartext has type ``T``."""

    name = "secret.secret"

    value_type: Attribute

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.value_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            return [parser.parse_type()]


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "secret.yield"
    values = var_operand_def()

    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict ($values^ `:` type($values))?"


@irdl_op_definition
class GenericOp(IRDLOperation):
    name = "secret.generic"

    inputs = var_operand_def()
    outputs = var_result_def()
    body = region_def()

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute], body: Region) -> None:
        super().__init__(operands=[inputs], result_types=[result_types], regions=[body])

    @classmethod
    def parse(cls, parser: Parser) -> GenericOp:
        pos = parser.pos
        if parser.parse_optional_characters("ins") is not None:
            names, types = _parse_ins_operands(parser)
        else:
            names, types = _parse_typed_operands(parser)
        inputs = parser.resolve_operands(names, types, pos)
        if parser.parse_optional_characters("attrs") is not None:
            parser.parse_punctuation("=")
            parser.parse_optional_attr_dict()
        body = parser.parse_region()
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = _parse_result_types(parser)
        return cls(inputs, result_types, body)

    def print(self, printer: Printer) -> None:
        with printer.in_parens():
            for i, value in enumerate(self.inputs):
                if i:
                    printer.print_string(", ")
                printer.print_operand(value)
                printer.print_string(": ")
                printer.print_attribute(value.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)
        if not self.outputs:
            return
        printer.print_string(" -> ")
        if len(self.outputs) == 1:
            printer.print_attribute(self.outputs[0].type)
            return
        with printer.in_parens():
            printer.print_list([r.type for r in self.outputs], printer.print_attribute)


def _parse_ins_operands(parser: Parser) -> tuple[list[UnresolvedOperand], list[Attribute]]:
    """``ins(%a, %b : T1, T2)`` (after the ``ins`` keyword)."""
    pos = parser.pos
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types: list[Attribute] = list(parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type))
    parser.parse_punctuation(")")
    if len(names) != len(types):
        parser.raise_error(f"secret.generic has {len(names)} operands but {len(types)} types", pos)
    return names, types


def _parse_typed_operands(parser: Parser) -> tuple[list[UnresolvedOperand], list[Attribute]]:
    """``(%a: T1 {attrs}?, %b: T2)``, or nothing at all."""
    names: list[UnresolvedOperand] = []
    types: list[Attribute] = []

    def one() -> None:
        names.append(parser.parse_unresolved_operand())
        parser.parse_punctuation(":")
        types.append(parser.parse_type())
        parser.parse_optional_attr_dict()

    parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, one)
    return names, types


def _parse_result_types(parser: Parser) -> list[Attribute]:
    """``T`` or ``(T1 {attrs}?, T2)`` (after the arrow)."""

    def one() -> Attribute:
        ty = parser.parse_type()
        parser.parse_optional_attr_dict()
        return ty

    if parser.parse_optional_punctuation("(") is None:
        return [one()]
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, one)
    parser.parse_punctuation(")")
    return types


Secret = Dialect("secret", [GenericOp, YieldOp], [SecretType])
