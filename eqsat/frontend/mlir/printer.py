"""Printer: ``eqsat.ir.Program`` -> MLIR text in the program's own dialects.

In: one program or a list.  Out: MLIR text, one top-level ``func.func`` per program, so
``parse_mlir`` reads it back to programs with the same meaning (and printing that again
gives the same text).  The text is written straight from the IR, byte for byte what xDSL's
printer writes for the operations ``printer_xdsl`` builds (the reference, compared by the
tests on every example and on random programs): its SSA names (``%0``, ``%1``, ... in
print order; a name hint loses a ``_N`` suffix and takes ``_1``, ``_2``, ... when taken),
its float spelling (``%.6e`` when that reads back exactly, else 9 or 17 significant
digits, else the bit pattern in hex) and its dense literals (a splat as one value, more
than 100 values as the hex of their little-endian bytes).  Building xDSL operations cost
5-10 ms for a small kernel and seconds for an unrolled one; this writes the same text
from a few string operations per node.  A constant of type ``index``, or a dense one of
integers wider than 64 bits (no fixed-size packing), is left to the reference printer.

Styles (``Program.style``):

* ``plain``: ``func.func @f(%x: tensor<8xi16>) -> i16`` over ``arith``, ``tensor`` and
  ``tensor_ext.rotate`` (offsets as ``arith.constant N : index``, hoisted to the top).
* ``secret``: the same (also used for ``plain`` programs with plaintext arguments,
  which ``plain`` MLIR cannot express), with secret arguments typed ``!secret.secret<T>`` and the body
  inside one ``secret.generic(...) { ^body(...): ... secret.yield ... }`` (HEIR's newer
  form); every result leaves the generic as ``!secret.secret<T>``.
* ``noisy``: the article's syntax: secret scalars are ``!noisy.i32``; ``encode``,
  ``decode`` and secret ``add/sub/mul`` print as ``noisy.*``; a plaintext operand of a
  noisy op is encoded first; plaintext arithmetic stays in ``arith``.

Integers print as ``arith.subi 0, x`` for ``neg`` (``parse_mlir`` reads that back as
``neg``); management ops as ``mgmt.*`` (``noisy.reduce_noise`` in noisy programs) in the
spelling HEIR's ``heir-opt`` reads: ``mgmt.relinearize``, ``mgmt.bootstrap``, and
``mgmt.modreduce`` for a BGV modswitch on integers and a CKKS rescale on floats (the element
type tells them apart when read back; the other pairing keeps eqsat's own
``mgmt.modswitch`` / ``mgmt.rescale``, which HEIR does not have);
``encode``/``decode`` outside noisy programs print as nothing (they are the identity on
values there).  Programs a style cannot express raise ``IRError``.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from eqsat.interp import WidthError
from eqsat.ir import ALL_OPS, IRError, Node, Program, Type, VecRef

_VALID_NAME = re.compile(r"[A-Za-z_$.\-][\w$.\-]*")  # an SSA name hint xDSL accepts
_NAME_SUFFIX = re.compile(r"_\d+$")  # dropped from a hint by xDSL (it numbers clashes itself)
_BARE_IDENTIFIER = re.compile(r"[a-zA-Z_][a-zA-Z0-9_$.]*")  # a symbol or key printed unquoted
_INT_TYPE = re.compile(r"i[1-9]\d*")
_FLOAT_FORMATS = {"f16": "<e", "f32": "<f", "f64": "<d"}
_BINARY = {
    (False, "add"): "arith.addi", (False, "sub"): "arith.subi", (False, "mul"): "arith.muli",
    (True, "add"): "arith.addf", (True, "sub"): "arith.subf", (True, "mul"): "arith.mulf",
}
_NOISY_BINARY = {"add": "noisy.add", "sub": "noisy.sub", "mul": "noisy.mul"}
_MGMT = {
    "relinearize": "mgmt.relinearize",
    "modswitch": "mgmt.modswitch",
    "rescale": "mgmt.rescale",
    "bootstrap": "mgmt.bootstrap",
    "reduce_noise": "noisy.reduce_noise",
}
NOISY_I32 = "!noisy.i32"
#: dense constants of more values than this print as the hex of their bytes (xDSL's rule)
HEX_DENSE = 100


class _Fallback(Exception):
    """A program this printer does not model; ``printer_xdsl`` prints it."""


def print_mlir(progs: Program | Sequence[Program]) -> str:
    """MLIR text for ``progs``; see the module docstring."""
    from eqsat.algebra.linmap_realize import expand_linmaps  # a linmap prints as its plan

    if isinstance(progs, Program):
        progs = [progs]
    chunks = []
    for prog in progs:
        expanded = expand_linmaps(prog)
        try:
            chunks.append(_Function(expanded).text())
        except _Fallback:
            from eqsat.frontend.mlir.printer_xdsl import function_text_xdsl

            chunks.append(function_text_xdsl(expanded))
    return "\n".join(chunks)


def print_mlir_xdsl(progs: Program | Sequence[Program]) -> str:
    """The reference: the same text through xDSL operations (``printer_xdsl``)."""
    from eqsat.frontend.mlir.printer_xdsl import print_mlir_xdsl as reference

    return reference(progs)


# -- spelling of types and attributes ------------------------------------------------


@lru_cache(maxsize=256)
def elem_text(elem: str) -> str:
    """The MLIR element type of an IR element type name (``i16``, ``f32``, ...)."""
    if elem in _FLOAT_FORMATS or elem == "index" or _INT_TYPE.fullmatch(elem):
        return elem
    raise IRError(f"element type '{elem}' has no MLIR spelling")


@lru_cache(maxsize=1024)
def plain_type_text(ty: Type) -> str:
    """The MLIR type of an IR type, ignoring secrecy."""
    el = elem_text(ty.elem)
    if ty.is_scalar:
        return el
    return "tensor<" + "".join(f"{d}x" for d in ty.shape) + el + ">"


def string_literal(s: str) -> str:
    """``s`` as an MLIR string literal, escaped as xDSL does (UTF-8 bytes; ``\\\\``; other
    bytes outside printable ASCII, and ``"``, as ``\\XX``)."""
    out = ['"']
    for byte in s.encode("utf-8"):
        if byte == 0x5C:
            out.append("\\\\")
        elif byte < 0x20 or byte > 0x7E or byte == 0x22:
            out.append(f"\\{byte:02X}")
        else:
            out.append(chr(byte))
    out.append('"')
    return "".join(out)


def identifier(s: str) -> str:
    """A symbol name or attribute key: bare when it is an identifier, else a string literal."""
    return s if _BARE_IDENTIFIER.fullmatch(s) else string_literal(s)


def float_text(value: float, elem: str) -> str:
    """xDSL's spelling of a float of type ``elem`` (``Printer.print_float``): ``%.6e`` when
    that reads back to the same value of the type, else 9 (f32) or 17 (f64) significant
    digits when they show a point, else the bits in hex; NaN and infinities as their bits."""
    fmt = _FLOAT_FORMATS[elem]
    if math.isnan(value) or math.isinf(value):
        return "0x" + struct.pack(fmt, value)[::-1].hex()
    s = f"{value:.5e}"
    e = s.find("e")
    s = s[:e] + "0" + s[e:]
    if struct.unpack(fmt, struct.pack(fmt, float(s)))[0] == value:
        return s
    if elem == "f32":
        s = f"{value:.9g}"
        return s if "." in s else f"0x{struct.unpack('<I', struct.pack('<f', value))[0]:X}"
    if elem == "f64":
        s = f"{value:.17g}"
        return s if "." in s else f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:X}"
    return repr(value)


def _round_float(value: float, elem: str) -> float:
    """``value`` at the precision of ``elem`` (as ``FloatAttr`` stores it)."""
    fmt = _FLOAT_FORMATS[elem]
    return float(struct.unpack(fmt, struct.pack(fmt, value))[0])


def int_text(v: int, width: int) -> str:
    """An integer literal; ``i1`` as ``true``/``false``."""
    if width == 1:
        return "true" if v else "false"
    return str(v)


def _int_value(v: int, width: int) -> int:
    """``v`` as an MLIR ``iN`` literal, unchanged; a value that does not fit N bits raises
    ``WidthError`` (wrapping it would change the program's meaning mod t, see ``eqsat.interp``)."""
    if -(1 << (width - 1)) <= v < (1 << (width - 1)):
        return v
    raise WidthError(f"constant {v} does not fit i{width}: the program's values exceed its declared width "
                     "(widen the type)")


def _int_dtype(width: int) -> str:
    """The little-endian numpy type xDSL packs an ``iN`` into (whole bytes, 1/2/4/8)."""
    size = (width + 7) >> 3
    if size > 8:
        raise _Fallback(f"i{width}")
    return {1: "<i1", 2: "<i2", 3: "<i4", 4: "<i4"}.get(size, "<i8")


def _nested(items: Sequence[str], shape: Sequence[int]) -> str:
    """``[a, b, ...]``, nested row-major by ``shape``."""
    if len(shape) > 1:
        k = len(items) // shape[0]
        return "[" + ", ".join(_nested(items[i:i + k], shape[1:]) for i in range(0, len(items), k)) + "]"
    return "[" + ", ".join(items) + "]"


def dense_text(values: Sequence[int] | Sequence[float] | np.ndarray, ty: Type) -> str:
    """``dense<...> : tensor<...>`` for ``values`` (one value: a splat over the shape), as
    ``DenseIntOrFPElementsAttr.from_list`` and its printing write it."""
    elem = ty.elem
    n = math.prod(ty.shape)
    if elem in _FLOAT_FORMATS:
        fmt = _FLOAT_FORMATS[elem]
        raw = struct.pack(f"{fmt[0]}{len(values)}{fmt[1:]}", *values)
        if len(values) == 1 and n != 1:
            raw *= n
        count = len(raw) // struct.calcsize(fmt)
        unpacked: tuple[Any, ...] = struct.unpack(f"{fmt[0]}{count}{fmt[1:]}", raw)
        splat = count > 0 and unpacked.count(unpacked[0]) == count

        def one(v: Any) -> str:
            return float_text(v, elem)
    else:
        if elem == "index":
            raise _Fallback("index constant")
        width = int(elem[1:])
        dtype = _int_dtype(width)
        arr = np.asarray(values, dtype=np.int64) if not isinstance(values, np.ndarray) else values
        packed = arr.astype(dtype)
        if len(packed) == 1 and n != 1:
            packed = np.repeat(packed, n)
        count = len(packed)
        splat = count > 0 and bool(np.all(packed == packed[0]))
        raw = b""
        unpacked = ()

        def one(v: Any) -> str:
            return int_text(int(v), width)

        if count > HEX_DENSE and not splat:
            raw = packed.tobytes()
        elif count:
            unpacked = tuple(packed.tolist())
    if count == 0:
        body = ""
    elif splat:
        body = one(unpacked[0])
    elif count > HEX_DENSE:
        body = f'"0x{raw.hex().upper()}"'
    else:
        complete = all(d >= 1 for d in ty.shape) and n == count
        body = _nested([one(v) for v in unpacked], ty.shape if complete else (count,))
    return f"dense<{body}> : {plain_type_text(ty)}"


def _layout_dict(lay: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> str:
    """`` {...}``: the attributes ``layout_attrs._dict`` builds, as xDSL prints them."""
    from eqsat.frontend.mlir.layout_attrs import relation

    items = [
        ("tensor_ext.layout", string_literal(relation(lay))),
        ("eqsat.layout", string_literal(str(lay["name"]))),
        ("eqsat.shape", string_literal("x".join(str(s) for s in lay["shape"]))),
        ("eqsat.slots", f"{int(lay['slots'])} : i64"),
    ]
    for k, v in (extra or {}).items():
        items.append((k, string_literal(v) if isinstance(v, str) else f"{int(v)} : i64"))
    return " {" + ", ".join(f"{identifier(k)} = {v}" for k, v in items) + "}"


# -- one function ----------------------------------------------------------------------

#: one printed operation: (result value, text before the operands, operand values, the
#: separator between operands, the text after them, the number of operands before ``[``):
#: ``%r = <head>%a<sep>%b...<tail>``, or with ``front`` = k > 0 the first k operands joined
#: by ``sep`` and the rest as indices: ``%r = <head>%a<sep>%b[%i, %j<tail>``
_Op = tuple[int, str, tuple[int, ...], str, str, int]


class _Function:
    """The ``func.func`` text of one program; mirrors ``printer_xdsl._FunctionBuilder`` step
    for step (the same checks and errors in the same order), recording text instead of
    operations. Values are numbered; each has a name hint (or None) and a type."""

    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.live, self.first, self.type_number = _deduplicated(prog)
        self.style = prog.style if prog.style in ("plain", "secret", "noisy") else "plain"
        if self.style == "plain" and any(not t.secret for _, t in prog.args):
            self.style = "secret"  # only the secret wrapper can say which arguments are plaintext
        self.hints: list[str | None] = []
        self.types: list[str] = []
        self.values: dict[int, int] = {}
        self.encoded: dict[int, int] = {}
        self.index_consts: dict[int, int] = {}
        self.ops: list[_Op] = []
        self.used: set[str] = set()
        self.plain_types: dict[int, str] = {}  # by type number (hashing a Type costs a microsecond)
        self.value_types: dict[int, str] = {}

    # -- values and names --------------------------------------------------------------
    def new_value(self, ty: str, hint: str | None = None) -> int:
        if hint is not None:
            m = _NAME_SUFFIX.search(hint)
            if m:
                hint = hint[: m.start()]
        self.hints.append(hint)
        self.types.append(ty)
        return len(self.types) - 1

    def arg_hint(self, name: str, i: int) -> str:
        """The builder's hint for argument ``i`` (``_FunctionBuilder.arg_name``)."""
        if _VALID_NAME.fullmatch(name) and name not in self.used:
            self.used.add(name)
            return name
        k = 0
        hint = f"arg{i}"
        while hint in self.used:
            k += 1
            hint = f"arg{i}_{k}"
        self.used.add(hint)
        return hint

    # -- types -------------------------------------------------------------------------
    def node_plain_type(self, i: int) -> str:
        """``plain_type_text`` of node ``i``'s type, once per distinct type."""
        k = self.type_number[i]
        got = self.plain_types.get(k)
        if got is None:
            got = self.plain_types[k] = plain_type_text(self.prog.nodes[i].type)
        return got

    def node_value_type(self, i: int) -> str:
        """``value_type`` of node ``i``'s type, once per distinct type."""
        k = self.type_number[i]
        got = self.value_types.get(k)
        if got is None:
            got = self.value_types[k] = self.value_type(self.prog.nodes[i].type)
        return got

    def value_type(self, ty: Type) -> str:
        if self.style == "noisy" and ty.secret:
            if not ty.is_scalar:
                raise IRError(
                    "the noisy dialect has only scalars; a secret tensor cannot be printed as noisy MLIR"
                )
            return NOISY_I32
        return plain_type_text(ty)

    def boundary_type(self, ty: Type) -> str:
        """The type of a function argument or result."""
        if self.style == "secret" and ty.secret:
            return f"!secret.secret<{plain_type_text(ty)}>"
        return self.value_type(ty)

    # -- structure ---------------------------------------------------------------------
    def text(self) -> str:
        prog = self.prog
        arg_types = [self.boundary_type(t) for _, t in prog.args]
        outer = [self.new_value(t, self.arg_hint(name, i))
                 for i, ((name, _), t) in enumerate(zip(prog.args, arg_types, strict=True))]
        input_ids = {str(prog.nodes[i].attrs[0]): i for i in self.live if prog.nodes[i].op == "input"}
        if self.style == "secret":
            return self.text_secret(outer, input_ids)
        for (name, _), arg in zip(prog.args, outer, strict=True):
            if name in input_ids:
                self.values[input_ids[name]] = arg
        results = self.emit_body()
        res_types = [self.boundary_type(prog.nodes[r].type) for r in prog.results]
        names = _Names(self.hints)
        lines = [self.header(names, outer, res_types)]
        lines += self.index_lines(names, "  ")
        lines += [names.render(op, "  ") for op in self.ops]
        lines.append(self.return_line(names, results))
        lines.append("}\n")
        return "\n".join(lines)

    def text_secret(self, outer: list[int], input_ids: dict[str, int]) -> str:
        prog = self.prog
        inner_types = [plain_type_text(t) for _, t in prog.args]
        inner = []
        for i, (name, _) in enumerate(prog.args):
            arg = self.new_value(inner_types[i], f"input{i}")
            inner.append(arg)
            if name in input_ids:
                self.values[input_ids[name]] = arg
        results = self.emit_body()
        res_types = [f"!secret.secret<{plain_type_text(prog.nodes[r].type)}>" for r in prog.results]
        generic = [self.new_value(t) for t in res_types]
        names = _Names(self.hints)
        lines = [self.header(names, outer, res_types)]
        lines += self.index_lines(names, "  ")
        head = "  " + (", ".join(names.define(g) for g in generic) + " = " if generic else "")
        operands = ", ".join(f"{names.use(a)}: {self.types[a]}" for a in outer)
        lines.append(f"{head}secret.generic({operands}) {{")
        if inner:
            lines.append("  ^body(" + ", ".join(f"{names.define(a)}: {self.types[a]}" for a in inner) + "):")
        lines += [names.render(op, "    ") for op in self.ops]
        yielded = ", ".join(names.use(r) for r in results)
        lines.append(f"    secret.yield {yielded} : {', '.join(self.types[r] for r in results)}" if results
                     else "    secret.yield")
        if not res_types:
            lines.append("  }")
        elif len(res_types) == 1:
            lines.append(f"  }} -> {res_types[0]}")
        else:
            lines.append(f"  }} -> ({', '.join(res_types)})")
        lines.append(self.return_line(names, generic))
        lines.append("}\n")
        return "\n".join(lines)

    def header(self, names: _Names, args: list[int], res_types: list[str]) -> str:
        """``func.func @name(%a: T {attrs}, ...) -> (T {attrs}, ...) {``, argument and
        result attributes from the layouts (``meta["layouts"]``, ``layout_attrs.attach``)."""
        arg_attrs = [""] * len(args)
        res_attrs: list[str] | None = None
        lays = self.prog.meta.get("layouts")
        if isinstance(lays, dict):
            by_arg: dict[str, str] = {}
            for tensor, lay in lays["arguments"].items():
                cts = lay.get("ciphertext_args", [tensor])
                for c, an in enumerate(cts):
                    extra = {"eqsat.tensor": tensor, "eqsat.ciphertext": c} if len(cts) > 1 else None
                    by_arg[an] = _layout_dict(lay, extra)
            arg_attrs = [by_arg.get(n, "") for n, _ in self.prog.args]
            res_attrs = [_layout_dict(lay) for lay in lays["results"]]
        params = ", ".join(f"{names.define(a)}: {self.types[a]}{attrs}"
                           for a, attrs in zip(args, arg_attrs, strict=True))
        out = ""
        if res_types:
            if res_attrs is None:
                listed = ", ".join(res_types)
            else:
                listed = ", ".join(t + a for t, a in zip(res_types, res_attrs, strict=False))
            out = f" -> ({listed})" if len(res_types) > 1 or res_attrs is not None else f" -> {listed}"
        return f"func.func @{identifier(self.prog.name)}({params}){out} {{"

    def index_lines(self, names: _Names, indent: str) -> list[str]:
        return [f"{indent}{names.define(self.index_consts[k])} = arith.constant {k} : index"
                for k in sorted(self.index_consts)]

    def return_line(self, names: _Names, results: Sequence[int]) -> str:
        if not results:
            return "  return"
        return (f"  return {', '.join(names.use(r) for r in results)} : "
                f"{', '.join(self.types[r] for r in results)}")

    def emit_body(self) -> list[int]:
        values, first, nodes = self.values, self.first, self.prog.nodes
        for i in self.live:
            j = first[i]
            if j != i:
                values[i] = values[j]
            elif i not in values:
                values[i] = self.emit(i, nodes[i])
        return [values[r] for r in self.prog.results]

    # -- helpers -----------------------------------------------------------------------
    def add(self, ty: str, head: str, operands: tuple[int, ...] = (), sep: str = ", ", tail: str = "",
            hint: str | None = None, front: int = 0) -> int:
        """A one-result op of type ``ty`` (see ``_Op``)."""
        res = self.new_value(ty, hint)
        self.ops.append((res, head, operands, sep, tail, front))
        return res

    def index(self, k: int) -> int:
        if k not in self.index_consts:
            self.index_consts[k] = self.new_value("index", f"c{k}")
        return self.index_consts[k]

    def indices(self, ty: Type, flat: int) -> tuple[int, ...]:
        idx: list[int] = []
        for n in reversed(ty.shape):
            idx.append(flat % n)
            flat //= n
        return tuple(self.index(k) for k in reversed(idx))

    def constant(self, value: object, ty: Type) -> int:
        elem = elem_text(ty.elem)
        tt = plain_type_text(ty)
        if elem == "index":
            raise _Fallback("index constant")
        is_int = elem not in _FLOAT_FORMATS
        if ty.is_scalar:
            assert isinstance(value, int | float)
            if is_int:
                width = int(elem[1:])
                v = _int_value(int(value), width)
                lit = int_text(v, width) if width == 1 else f"{v} : {elem}"
                return self.add(tt, f"arith.constant {lit}", hint=f"c{v}_{ty.elem}")
            f = _round_float(float(value), elem)
            return self.add(tt, f"arith.constant {float_text(f, elem)} : {elem}", hint="cst")
        if isinstance(value, VecRef):
            held = self.held_constant(value, ty)
            if held is not None:
                return held
            value = value.values()
        raw = list(value) if isinstance(value, tuple) else [value]
        assert all(isinstance(v, int | float) for v in raw)
        values: list[int] | list[float]
        if is_int:
            width = int(elem[1:])
            values = [_int_value(int(v), width) for v in raw]  # type: ignore[arg-type]
        else:
            values = [float(v) for v in raw]  # type: ignore[arg-type]
        if len(set(values)) == 1:
            values = values[:1]
        return self.add(tt, f"arith.constant {dense_text(values, ty)}", hint="cst")

    def held_constant(self, ref: VecRef, ty: Type) -> int | None:
        """A large integer vector held by handle (a linmap diagonal), checked whole by numpy;
        None where the general path must decide (uniform, out of range, float)."""
        from eqsat.algebra.linmap import lookup_vector

        arr = lookup_vector(ref.handle)
        if ty.elem in _FLOAT_FORMATS or arr.dtype.kind != "i" or arr.size < 2:
            return None
        width = int(ty.elem[1:])
        lo, hi = -(1 << (width - 1)), 1 << (width - 1)
        if width > 64 or int(arr.min()) < lo or int(arr.max()) >= hi or bool(np.all(arr == arr[0])):
            return None
        return self.add(plain_type_text(ty), f"arith.constant {dense_text(arr, ty)}", hint="cst")

    def zero_like(self, ty: Type) -> int:
        return self.constant(0.0 if ty.is_float else 0, ty.with_secret(False))

    def encode(self, i: int) -> int:
        """A ``!noisy.i32`` for node ``i`` (encoding a plaintext operand once)."""
        if self.prog.nodes[i].type.secret:
            return self.values[i]
        if i not in self.encoded:
            v = self.values[i]
            self.encoded[i] = self.add(NOISY_I32, "noisy.encode ", (v,), tail=f" : {self.types[v]} -> {NOISY_I32}")
        return self.encoded[i]

    # -- nodes -------------------------------------------------------------------------
    def emit(self, i: int, n: Node) -> int:
        v = self.values
        rt = self.node_value_type(i)
        op = n.op
        if op == "const":
            return self.constant(n.attrs[0], n.type)
        if op in ("add", "sub", "mul"):
            return self.emit_binary(i, n)
        if op == "neg":
            return self.emit_neg(n)
        if op in ("encode", "decode"):
            return self.emit_coding(n)
        if op in _MGMT:
            if op == "reduce_noise" and self.style != "noisy":
                raise IRError("reduce_noise exists only in noisy programs")
            name = "mgmt.modreduce" if op == ("rescale" if n.type.is_float else "modswitch") else _MGMT[op]
            return self.add(rt, f"{name} ", (v[n.args[0]],), tail=f" : {rt}")
        if op == "rotate":
            k = int(n.attrs[0])  # type: ignore[call-overload]
            src = v[n.args[0]]
            return self.add(rt, "tensor_ext.rotate ", (src, self.index(k)), tail=f" : {self.types[src]}, index")
        if op == "extract":
            src_ty = self.prog.nodes[n.args[0]].type
            idx = self.indices(src_ty, int(n.attrs[0]))  # type: ignore[call-overload]
            src = v[n.args[0]]
            return self.add(rt, "tensor.extract ", (src, *idx), tail=f"] : {self.types[src]}", front=1)
        if op == "insert":
            idx = self.indices(n.type, int(n.attrs[0]))  # type: ignore[call-overload]
            dest = v[n.args[1]]
            return self.add(self.types[dest], "tensor.insert ", (v[n.args[0]], dest, *idx),
                            sep=" into ", tail=f"] : {self.types[dest]}", front=2)
        if op == "from_elements":
            return self.add(rt, "tensor.from_elements ", tuple(v[a] for a in n.args), tail=f" : {rt}")
        if op == "splat":
            return self.add(rt, "tensor.splat ", (v[n.args[0]],), tail=f" : {rt}")
        if op == "empty":
            return self.add(rt, f"tensor.empty() : {rt}")
        raise IRError(f"cannot print op '{op}'")

    def emit_binary(self, i: int, n: Node) -> int:
        a, b = n.args
        if self.style == "noisy" and n.type.secret:
            if not n.type.is_scalar:
                raise IRError("the noisy dialect has only scalars")
            ea, eb = self.encode(a), self.encode(b)
            return self.add(NOISY_I32, f"{_NOISY_BINARY[n.op]} ", (ea, eb), tail=f" : {NOISY_I32}")
        ty = self.node_plain_type(i)
        return self.add(ty, f"{_BINARY[(n.type.is_float, n.op)]} ", (self.values[a], self.values[b]), tail=f" : {ty}")

    def emit_neg(self, n: Node) -> int:
        (a,) = n.args
        if n.type.is_float and not (self.style == "noisy" and n.type.secret):
            va = self.values[a]
            return self.add(self.types[va], "arith.negf ", (va,), tail=f" : {self.types[va]}")
        zero = self.zero_like(n.type)
        if self.style == "noisy" and n.type.secret:
            enc = self.add(NOISY_I32, "noisy.encode ", (zero,), tail=f" : {self.types[zero]} -> {NOISY_I32}")
            return self.add(NOISY_I32, "noisy.sub ", (enc, self.values[a]), tail=f" : {NOISY_I32}")
        return self.add(self.types[zero], "arith.subi ", (zero, self.values[a]), tail=f" : {self.types[zero]}")

    def emit_coding(self, n: Node) -> int:
        (a,) = n.args
        src = self.prog.nodes[a].type
        if self.style != "noisy" or not n.type.is_scalar or src.secret == n.type.secret:
            return self.values[a]
        if n.op == "encode":
            return self.encode(a)
        va = self.values[a]
        el = elem_text(n.type.elem)
        return self.add(el, "noisy.decode ", (va,), tail=f" : {self.types[va]} -> {el}")


def _deduplicated(prog: Program) -> tuple[list[int], dict[int, int], dict[int, int]]:
    """The live node ids in order; for each the first live node equal to it (what
    ``Program.compact``, which the reference prints, merges, with its errors, without
    building the copy); and a number per distinct type."""
    names: set[str] = set()
    for name, _ in prog.args:
        if name in names:
            raise IRError(f"duplicate argument name '{name}'")
        names.add(name)
    live = prog.live()
    nodes = prog.nodes
    first: dict[int, int] = {}
    seen: dict[tuple[object, ...], int] = {}
    numbers: dict[Type, int] = {}
    type_number: dict[int, int] = {}
    for i in live:
        n = nodes[i]
        if n.op not in ALL_OPS:
            raise IRError(f"unknown op '{n.op}'")
        tk = type_number[i] = numbers.setdefault(n.type, len(numbers))
        first[i] = seen.setdefault((n.op, tuple([first[a] for a in n.args]), n.attrs, tk), i)
    return live, first, type_number


class _Names:
    """SSA names as xDSL's printer gives them, in print order: a value with a hint ``h`` is
    ``%h`` the first time, then ``%h_1``, ``%h_2``, ...; one without is the next number."""

    def __init__(self, hints: list[str | None]) -> None:
        self.hints = hints
        self.names: list[str | None] = [None] * len(hints)
        self.taken: dict[str, int] = {}
        self.next_number = 0

    def define(self, v: int) -> str:
        h = self.hints[v]
        if h is None:
            name = f"%{self.next_number}"
            self.next_number += 1
        else:
            k = self.taken.get(h, 0)
            name = f"%{h}" if k == 0 else f"%{h}_{k}"
            self.taken[h] = k + 1
        self.names[v] = name
        return name

    def use(self, v: int) -> str:
        name = self.names[v]
        return name if name is not None else self.define(v)

    def render(self, op: _Op, indent: str) -> str:
        res, head, operands, sep, tail, front = op
        lhs = self.define(res)
        names = self.names
        used = [names[o] or self.use(o) for o in operands]  # defined above, as in xDSL's order
        body = sep.join(used[:front]) + "[" + ", ".join(used[front:]) if front else sep.join(used)
        return f"{indent}{lhs} = {head}{body}{tail}"
