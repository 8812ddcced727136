"""A short cut through xDSL's parser for the few operation lines that make up most programs.

In: the parser (``eqsat.frontend.mlir.parse._LocatingParser``) at the start of an operation.
Out: ``parse_line(parser, start)``: the operation, built as xDSL's declarative-format parser
builds it (``op_type.build`` with the same operands, result types and properties), with its
result registered and the parser moved past it -- or None, and the parser untouched, when
the line is not one of these forms exactly:

* ``%r = arith.constant N : T`` (an integer in ``T``'s signed range; ``T`` an ``iN`` or ``index``)
* ``%r = arith.{addi,subi,muli,addf,subf,mulf} %a, %b : T``
* ``%r = tensor.extract %t[%i, ...] : tensor<...>``
* ``%r = tensor.insert %s into %t[%i, ...] : tensor<...>``
* ``%r = tensor_ext.rotate %v, %s : tensor<...>, T``

with each operand defined already with the type the line gives it, the types simple (integer,
float or ``index`` scalars, tensors of them with static shape), no attribute dictionary, flags
or location, and nothing but a comment after it on its line.  Anything else -- a forward
reference, a type mismatch, an unusual spelling -- is left to xDSL, which also reports the
errors; the short cut never raises.

Why: xDSL's generic machinery (tokens, the format's statements, constraint variables) takes
about 1 ms an operation; an unrolled 16x16 stencil has thousands of such lines, and an 8-slot
sum's whole parse was a fifth of a warm command.  ``tests/frontend/mlir/test_fast_ops.py``
parses every program with and without the short cut and compares the modules.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.lexer import Span

from eqsat.frontend.mlir.dialects.tensor_ext import RotateOp

if TYPE_CHECKING:
    from xdsl.parser import Parser

_NAME = r"%[A-Za-z_$.\-0-9][\w$.\-]*"
_SCALAR = r"(?:i[1-9]\d*|f16|f32|f64|bf16|index)"
_TYPE = rf"(?:{_SCALAR}|tensor<(?:\d+x)+{_SCALAR}>)"
_END = r"(?=[ \t]*(?://[^\n]*)?\r?(?:\n|\Z))"  # CRLF line ends too
_HEAD = rf"(?P<res>{_NAME})[ \t]*=[ \t]*"
_LINES = {
    "const": re.compile(rf"{_HEAD}arith\.constant[ \t]+(?P<val>-?\d+)[ \t]*:[ \t]*(?P<ty>{_SCALAR}){_END}"),
    "binary": re.compile(rf"{_HEAD}arith\.(?P<op>addi|subi|muli|addf|subf|mulf)[ \t]+(?P<a>{_NAME})[ \t]*,"
                         rf"[ \t]*(?P<b>{_NAME})[ \t]*:[ \t]*(?P<ty>{_TYPE}){_END}"),
    "extract": re.compile(rf"{_HEAD}tensor\.extract[ \t]+(?P<t>{_NAME})[ \t]*\[(?P<idx>[^\]\n]*)\][ \t]*:"
                          rf"[ \t]*(?P<ty>{_TYPE}){_END}"),
    "insert": re.compile(rf"{_HEAD}tensor\.insert[ \t]+(?P<s>{_NAME})[ \t]+into[ \t]+(?P<t>{_NAME})[ \t]*"
                         rf"\[(?P<idx>[^\]\n]*)\][ \t]*:[ \t]*(?P<ty>{_TYPE}){_END}"),
    "rotate": re.compile(rf"{_HEAD}tensor_ext\.rotate[ \t]+(?P<t>{_NAME})[ \t]*,[ \t]*(?P<s>{_NAME})[ \t]*:"
                         rf"[ \t]*(?P<ty>{_TYPE})[ \t]*,[ \t]*(?P<sty>{_SCALAR}){_END}"),
}
#: which pattern to try, by the operation name's first characters after the ``=``
_BY_PREFIX = (("arith.constant", "const"), ("arith.", "binary"), ("tensor.extract", "extract"),
              ("tensor.insert", "insert"), ("tensor_ext.rotate", "rotate"))
_BINARY = {"addi": arith.AddiOp, "subi": arith.SubiOp, "muli": arith.MuliOp,
           "addf": arith.AddfOp, "subf": arith.SubfOp, "mulf": arith.MulfOp}
#: a whole builtin type spelled as ``_TYPE`` (not followed by more of an identifier or a ``<``):
#: what ``parse._LocatingParser.parse_optional_type`` takes from ``TYPES``
BUILTIN_TYPE = re.compile(rf"{_TYPE}(?![\w$.<])")
_INDEX_LIST = re.compile(rf"[ \t]*{_NAME}(?:[ \t]*,[ \t]*{_NAME})*[ \t]*")
_ONE_NAME = re.compile(_NAME)

#: type spelling -> xDSL attribute (attributes are immutable; the spellings here are few): the
#: types of the lines read here (``_type``) and the builtin types xDSL read (``BUILTIN_TYPE``)
TYPES: dict[str, Attribute] = {}


def _type(parser: Parser, text: str) -> Attribute | None:
    ty = TYPES.get(text)
    if ty is None:
        from xdsl.parser import Parser as _Parser

        try:
            sub = _Parser(parser.ctx, text)
            ty = sub.parse_type()
            if sub.pos != len(text):
                return None
        except Exception:  # an unknown spelling: xDSL's own parse reports it
            return None
        TYPES[text] = ty
    return ty


def _value(parser: Parser, name: str, ty: Attribute | None) -> SSAValue | None:
    """The defined value ``name`` (with its ``%``) when its type is ``ty`` (any: None)."""
    values = parser.ssa_values.get(name[1:])
    if values is None or len(values) != 1:
        return None
    value = values[0]
    return value if ty is None or value.type == ty else None


def _indices(parser: Parser, text: str) -> list[SSAValue] | None:
    if not _INDEX_LIST.fullmatch(text):
        return None
    out = []
    for name in _ONE_NAME.findall(text):
        v = _value(parser, name, IndexType())
        if v is None:
            return None
        out.append(v)
    return out


def _build(op_type: type[Operation], operands: list[SSAValue], result: Attribute,
           properties: dict[str, Attribute] | None = None) -> Operation:
    """The operation as xDSL's format parser builds it (``op_type.build``: IRDL's builder), made
    with ``Operation.create``, xDSL's generic constructor: IRDL's builder only flattens and
    counts the operand and result lists (against the definition: these ops have no segment
    sizes) and then calls the same ``Operation.__init__``, which fills the properties' defaults
    (``IRDLOperation.__post_init__``). 7 us instead of 36 an operation; a wrong count, never made
    here, would be the verifier's to report.  ``tests/frontend/mlir/test_fast_ops.py`` compares
    the modules built with and without the short cut."""
    return op_type.create(operands=operands, result_types=[result], properties=properties or {})


def _const(parser: Parser, m: re.Match[str]) -> Operation | None:
    ty = _type(parser, m["ty"])
    value = int(m["val"])
    if isinstance(ty, IndexType):
        bits = 64
    elif isinstance(ty, IntegerType) and ty.width.data > 1:
        bits = ty.width.data
    else:
        return None
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        return None
    return _build(arith.ConstantOp, [], ty, {"value": IntegerAttr(value, ty)})


def _binary(parser: Parser, m: re.Match[str]) -> Operation | None:
    ty = _type(parser, m["ty"])
    a, b = _value(parser, m["a"], ty), _value(parser, m["b"], ty)
    if ty is None or a is None or b is None:
        return None
    if m["op"].endswith("f") != (getattr(ty, "element_type", ty).name.startswith(("f", "bf"))):
        return None  # an integer op on floats (or the reverse): xDSL's verifier words it
    return _build(_BINARY[m["op"]], [a, b], ty)


def _extract(parser: Parser, m: re.Match[str]) -> Operation | None:
    ty = _type(parser, m["ty"])
    if not isinstance(ty, TensorType):
        return None
    t, idx = _value(parser, m["t"], ty), _indices(parser, m["idx"])
    if t is None or idx is None:
        return None
    return _build(tensor.ExtractOp, [t, *idx], ty.element_type)


def _insert(parser: Parser, m: re.Match[str]) -> Operation | None:
    ty = _type(parser, m["ty"])
    if not isinstance(ty, TensorType):
        return None
    s, t = _value(parser, m["s"], ty.element_type), _value(parser, m["t"], ty)
    idx = _indices(parser, m["idx"])
    if s is None or t is None or idx is None:
        return None
    return _build(tensor.InsertOp, [s, t, *idx], ty)


def _rotate(parser: Parser, m: re.Match[str]) -> Operation | None:
    ty, sty = _type(parser, m["ty"]), _type(parser, m["sty"])
    if not isinstance(ty, TensorType) or sty is None:
        return None
    t, s = _value(parser, m["t"], ty), _value(parser, m["s"], sty)
    if t is None or s is None:
        return None
    return _build(RotateOp, [t, s], ty)


_MAKE = {"const": _const, "binary": _binary, "extract": _extract, "insert": _insert, "rotate": _rotate}


def parse_line(parser: Parser, text: str, start: int, name_at: int) -> Operation | None:
    """The operation whose result name starts at ``start`` (its op name at ``name_at``), or None
    (see the module docstring)."""
    kind = next((k for prefix, k in _BY_PREFIX if text.startswith(prefix, name_at)), None)
    if kind is None:
        return None
    m = _LINES[kind].match(text, start)
    if m is None:
        return None
    res = m["res"][1:]
    if res in parser.ssa_values or res in parser.forward_ssa_references:
        return None  # a redefinition (xDSL words the error) or a forward use to check
    try:
        op = _MAKE[kind](parser, m)
    except Exception:  # e.g. an attribute xDSL refuses: its own parse reports it
        return None
    if op is None:
        return None
    parser._register_ssa_definition(res, op.results, Span(start, start + len(m["res"]), parser.lexer.input))
    parser._resume_from(m.end())
    return op
