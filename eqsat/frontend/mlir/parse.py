"""Parser front: MLIR text -> a verified xDSL module plus each operation's position.

In: the raw file contents (``str`` or ``bytes``) and a path for diagnostics.  Out:
``ParsedModule``: the xDSL ``ModuleOp`` and ``where(op) -> (line, col)``, the position
of each operation's name (where MLIR itself points its diagnostics).  Every failure —
undecodable or binary input, an empty file, xDSL parse or verification errors — is
raised as ``MLIRError``; no xDSL exception escapes.  With a ``deadline`` (a
``time.perf_counter()`` value) reading stops at the first operation parsed or verified after
it, with ``ReadTimeLimit`` located there: xDSL's parser cannot be interrupted from outside
(minutes for a 100,000-op file), so the check runs in our parser's per-operation hook.
"""

from __future__ import annotations

import functools
import re
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ComplexType,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    RankedStructure,
)
from xdsl.ir import Operation, TypeAttribute
from xdsl.irdl import base
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from eqsat.errors import InternalError
from eqsat.frontend.mlir import fast_ops
from eqsat.frontend.mlir.dense import prepass
from eqsat.frontend.mlir.dialects import make_context
from eqsat.frontend.mlir.errors import MLIRError, ReadTimeLimit, line_col, line_count

_RESULTS = re.compile(r"(?:%[\w$.\-]+(?::\d+)?\s*,\s*)*%[\w$.\-]+(?::\d+)?\s*=\s*")
_COMMENT = re.compile(r"//[^\n]*")
_UNREGISTERED = re.compile(r"Operation (\S+) is not registered")
#: parse the common operation lines without xDSL's generic machinery (False: always xDSL's; tests)
FAST_OPS = True


class _LocatingParser(Parser):
    """An xDSL parser that records where each operation's name starts.

    It also re-points two xDSL diagnostics at the offending operation: an unknown
    operation name (xDSL points past it) and a use of an undefined value (xDSL points
    at the end of the file).
    """

    def __init__(self, text: str, path: str, deadline: float | None = None) -> None:
        super().__init__(make_context(), text, path)
        self.text = text
        self.path = path
        self.deadline = deadline
        self.offsets: dict[Operation, int] = {}
        #: the short cut for the common operation lines (``eqsat.frontend.mlir.fast_ops``)
        self.fast = FAST_OPS

    def _name_offset(self, start: int) -> int:
        m = _RESULTS.match(self.text, start)
        return m.end() if m else start

    def _error_at(self, offset: int, message: str) -> ParseError:
        return ParseError(Span(offset, offset + 1, self.lexer.input), message)

    def parse_operation(self) -> Operation:
        first = self._current_token.span.start
        start = self._name_offset(first)
        if self.deadline is not None and time.perf_counter() > self.deadline:
            line, col = line_col(self.text, start)
            raise ReadTimeLimit(self.path, line, col, "parse", line_count(self.text))
        if self.fast and start != first and (op := fast_ops.parse_line(self, self.text, first, start)) is not None:
            self.offsets[op] = start
            return op
        try:
            op = super().parse_operation()
        except ReadTimeLimit:
            raise
        except ParseError as exc:
            m = _UNREGISTERED.fullmatch(exc.msg)
            if m and self.text.startswith(m.group(1), start):
                raise self._error_at(start, f"unknown operation '{m.group(1)}'") from None
            raise
        except Exception as exc:  # custom parsers and verifiers may raise other errors
            name = self.text[start:].split(None, 1)[0] if self.text[start:].strip() else "operation"
            raise self._error_at(start, f"invalid '{name}': {exc}") from None
        self.offsets[op] = start
        return op

    def parse_optional_type(self) -> Any:
        """xDSL's, except that a builtin type spelled as ``fast_ops`` spells them (an integer,
        float or ``index`` scalar, or a static tensor of one: ``tensor<32xi16>``) is read once
        per process and then taken from ``fast_ops``' table by its spelling: xDSL reads
        ``tensor<32xi16>`` in about 70 us (its tokens, the shape, the element type), and the
        types of a loop's ``iter_args``, its results, a ``yield`` and a signature are read that
        way (the lines ``fast_ops`` reads take their types from the same table).  A builtin
        spelling names one type whatever the input (no alias starts without ``!``).  Part of the
        short cut: off with ``FAST_OPS``."""
        tok = self._current_token
        m = (fast_ops.BUILTIN_TYPE.match(self.text, tok.span.start)
             if self.fast and tok.kind == MLIRTokenKind.BARE_IDENT else None)
        if m is None:
            return super().parse_optional_type()
        spelled = m.group()
        ty = fast_ops.TYPES.get(spelled)
        if ty is not None:
            self._resume_from(m.end())
            return ty
        ty = super().parse_optional_type()
        if ty is not None and not self.text[m.end():self._current_token.span.start].strip():
            fast_ops.TYPES[spelled] = ty  # read exactly the spelling (no comment after it either)
        return ty

    def _parse_dense_literal_type(self) -> Any:
        """The type after a ``dense<...>`` literal, checked as xDSL checks it, with the check's
        constraint built once per process: xDSL 0.74 builds it from the type expression on
        every literal (about 2 ms each, most of a linalg kernel's constants)."""
        ty = self.expect(self.parse_optional_type, "Dense attribute must be typed!")
        if not _dense_literal_types().verifies(ty):
            self.raise_error("Expected memref, vector or tensor type of integer, index, float, or complex type")
        if DYNAMIC_INDEX in tuple(ty.get_shape()):  # type: ignore[attr-defined]
            self.raise_error("Dense literal attribute should have a static shape.")
        return ty

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as exc:
            if not exc.msg.startswith("values used but not defined") or not self.forward_ssa_references:
                raise
            name, refs = next(iter(self.forward_ssa_references.items()))
            users = [use.operation for ref in refs.values() for use in ref.uses]
            located = [self.offsets[u] for u in users if u in self.offsets]
            if not located:
                raise
            raise self._error_at(min(located), f"use of undefined value '%{name}'") from None


@functools.cache
def _dense_literal_types() -> Any:
    """The constraint on a dense literal's type: a shaped type of integers, indices, floats or
    complex numbers (``_LocatingParser._parse_dense_literal_type``)."""
    return base(RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType])  # type: ignore[misc]


@functools.cache
def _local_verify() -> frozenset[type[Operation]]:
    """The operation classes whose ``verify_`` reads nothing but the op's signature
    (``_signature``): IRDL constraints on operand and result types and properties, and traits
    that compare those (``Pure``, ``ConstantLike``, ``SameOperandsAndResultType``); no regions,
    successors, parents or users.  The ops of ``fast_ops``: most lines of a program."""
    from xdsl.dialects import arith, tensor

    from eqsat.frontend.mlir.dialects.tensor_ext import RotateOp

    return frozenset({arith.ConstantOp, arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.AddfOp, arith.SubfOp,
                      arith.MulfOp, tensor.ExtractOp, tensor.InsertOp, RotateOp})


@functools.cache
def _small_attrs() -> tuple[type[Any], ...]:
    """The property and attribute kinds a signature holds (``_signature``): small values, cheap to
    hash and compare (a dense literal is neither)."""
    from xdsl.dialects.arith import FastMathFlagsAttr, IntegerOverflowAttr
    from xdsl.dialects.builtin import FloatAttr

    return (IntegerAttr, FloatAttr, TypeAttribute, IntegerOverflowAttr, FastMathFlagsAttr)


def _signature(op: Operation) -> tuple[Any, ...] | None:
    """What ``op.verify_()`` depends on, for an op of ``_local_verify``'s classes without regions
    or successors whose properties and attributes are small (``_small_attrs``): its class, operand
    types, result types, properties and attributes (xDSL attributes compare by value); None
    for any other op, which is always verified.  Two ops with one signature verify alike, so
    ``parse_module`` verifies one of them (an unrolled program repeats a few signatures: each
    ``verify_`` is 20-50 us of xDSL's constraint machinery)."""
    if type(op) not in _local_verify() or op.regions or op.successors:
        return None
    extra = (*op.properties.items(), *op.attributes.items())
    if not all(isinstance(v, _small_attrs()) for _, v in extra):
        return None
    return (type(op), tuple(v.type for v in op.operands), tuple(r.type for r in op.results), extra)


@dataclass
class ParsedModule:
    """A parsed module and the source position of each of its operations."""

    module: ModuleOp
    path: str
    text: str
    offsets: dict[Operation, int] = field(default_factory=dict)
    #: reading (here and in the lowering) stops with ``ReadTimeLimit`` after this moment
    deadline: float | None = None
    #: values of the ``arith.constant`` ops whose large dense literal was read before parsing
    #: (``eqsat.frontend.mlir.dense``): the op's attribute is a splat placeholder, use these
    dense: dict[Operation, np.ndarray] = field(default_factory=dict)

    def check_deadline(self, op: Operation, phase: str) -> None:
        """``ReadTimeLimit`` at ``op`` when the deadline has passed."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            line, col = self.where(op)
            raise ReadTimeLimit(self.path, line, col, phase, line_count(self.text))

    def where(self, op: Operation) -> tuple[int, int]:
        """The 1-based (line, column) of ``op``'s name, or of its closest located parent."""
        cur: Operation | None = op
        while cur is not None:
            if cur in self.offsets:
                return line_col(self.text, self.offsets[cur])
            cur = cur.parent_op()
        return 1, 1

    def error(self, op: Operation, message: str) -> MLIRError:
        line, col = self.where(op)
        return MLIRError(self.path, line, col, message)


def decode_input(data: str | bytes, path: str) -> str:
    """The text of the input, or ``MLIRError`` at 1:1 for binary or empty input."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line, col = line_col(data[: exc.start].decode("utf-8", "replace"), exc.start)
            raise MLIRError(path, 1, 1, f"input is not UTF-8 text (invalid byte at {line}:{col})") from None
    else:
        text = data
    text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark is not part of the text
    if "\x00" in text:
        raise MLIRError(path, 1, 1, "input is binary (contains NUL bytes), not MLIR text")
    if not _COMMENT.sub("", text).strip():
        raise MLIRError(path, 1, 1, "empty input: expected at least one func.func")
    return text


def check_string_literals(text: str, path: str) -> None:
    """Reject a string literal left open at the end of its line (MLIR strings never span lines).

    xDSL 0.74's string-literal regex nests quantifiers, so an unterminated string such as
    ``func.func$"abc...`` makes its lexer backtrack exponentially (a hang, found by the
    fuzz test); this linear scan answers with a located error first.
    """
    for lineno, line in enumerate(text.split("\n"), start=1):
        if '"' not in line:  # most lines: no scan (seconds on a 100,000-line file otherwise)
            continue
        i, start, in_str = 0, 0, False
        while i < len(line):
            ch = line[i]
            if in_str:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str, start = True, i
            elif line.startswith("//", i):
                break
            i += 1
        if in_str:
            raise MLIRError(path, lineno, start + 1, "unterminated string literal")


def parse_module(data: str | bytes, path: str, deadline: float | None = None) -> ParsedModule:
    """Parse and verify ``data``; see the module docstring."""
    text = decode_input(data, path)
    check_string_literals(text, path)
    pre = prepass(text)  # big dense literals read with numpy; every position unchanged
    parser = _LocatingParser(pre.text, path, deadline)
    try:
        module = parser.parse_module()
    except ReadTimeLimit:
        raise
    except ParseError as exc:
        line, col = line_col(text, exc.span.start)
        raise MLIRError(path, line, col, exc.msg) from None
    except Exception as exc:  # xDSL raises plain exceptions from some custom parsers
        line, col = line_col(text, parser.pos)
        raise MLIRError(path, line, col, f"cannot parse: {exc}") from None
    parsed = ParsedModule(module, path, text, parser.offsets, deadline)
    if pre.values:
        parsed.dense = {op: pre.values[off] for op, off in parser.offsets.items() if off in pre.values}
        for op in parsed.dense:
            attr = getattr(op, "value", None)
            if op.name != "arith.constant" or not isinstance(attr, DenseIntOrFPElementsAttr):
                raise InternalError(f"dense prepass: a literal was read for '{op.name}'")
        if len(parsed.dense) != len(pre.values):
            raise InternalError("dense prepass: a literal read before parsing belongs to no arith.constant")
    verified: set[tuple[Any, ...]] = set()  # signatures verified already (``_signature``)
    for op in module.walk():
        parsed.check_deadline(op, "verify")
        sig = _signature(op)
        if sig is not None and sig in verified:
            continue
        try:
            op.verify_()
            if sig is not None:
                verified.add(sig)
        except VerifyException as exc:
            raise parsed.error(op, str(exc)) from None
        except Exception as exc:
            raise parsed.error(op, f"invalid operation: {exc}") from None
    return parsed
