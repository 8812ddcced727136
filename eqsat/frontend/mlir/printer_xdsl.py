"""The reference printer: ``eqsat.ir.Program`` -> MLIR text, through xDSL operations.

In: one program or a list.  Out: MLIR text, one top-level ``func.func`` per program,
built as xDSL operations and printed with xDSL's printer (``print_mlir_xdsl``), so
``parse_mlir`` reads it back to programs with the same meaning.  ``print_mlir``
(``eqsat.frontend.mlir.printer``) writes the same bytes straight from the IR, without
building operations; this module is its reference (the tests compare the two on every
example and on random programs) and its fallback for the one case it does not model
(a constant of type ``index``, or a dense one of integers wider than 64 bits, see ``printer``).

The styles and the spelling of each op are ``printer``'s (see its docstring); programs a
style cannot express raise ``IRError``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.printer import Printer

from eqsat.frontend.mlir.dialects import mgmt, noisy, secret, tensor_ext
from eqsat.interp import WidthError
from eqsat.ir import IRError, Node, Program, Type, VecRef

_FLOATS: dict[str, Attribute] = {"f16": Float16Type(), "f32": Float32Type(), "f64": Float64Type()}
_RETURN = re.compile(r"^(\s*)func\.return\b", re.MULTILINE)
_VALID_NAME = re.compile(r"[A-Za-z_$.\-][\w$.\-]*")
_INT_OPS = {"add": arith.AddiOp, "sub": arith.SubiOp, "mul": arith.MuliOp}
_FLOAT_OPS = {"add": arith.AddfOp, "sub": arith.SubfOp, "mul": arith.MulfOp}
_NOISY_OPS = {"add": noisy.AddOp, "sub": noisy.SubOp, "mul": noisy.MulOp}
_MGMT_OPS = {
    "relinearize": mgmt.RelinearizeOp,
    "modswitch": mgmt.ModswitchOp,
    "rescale": mgmt.RescaleOp,
    "bootstrap": mgmt.BootstrapOp,
    "reduce_noise": noisy.ReduceNoiseOp,
}


def print_mlir_xdsl(progs: Program | Sequence[Program]) -> str:
    """MLIR text for ``progs``, built and printed by xDSL; see the module docstring."""
    if isinstance(progs, Program):
        progs = [progs]
    return "\n".join(function_text_xdsl(prog) for prog in progs)


def function_text_xdsl(prog: Program) -> str:
    """The ``func.func`` of one program, built and printed by xDSL (ends with a newline)."""
    from eqsat.algebra.linmap_realize import expand_linmaps  # a linmap prints as its plan

    out = io.StringIO()
    Printer(stream=out).print_op(_FunctionBuilder(expand_linmaps(prog)).build())
    return _RETURN.sub(r"\1return", out.getvalue().strip()) + "\n"


#: integer constants of at least this many values are packed by numpy (``_int_dense``), not by
#: xDSL's ``from_list`` (which normalizes them one by one in Python)
BIG_CONSTANT = 256
_PACK = {8: "<i1", 16: "<i2", 32: "<i4", 64: "<i8"}


def _int_dense(ty: TensorType[IntegerType], values: list[int], width: int) -> DenseIntOrFPElementsAttr | None:
    """The dense attribute of integer ``values`` (each already in ``iN``'s signed range), its
    bytes packed little-endian by numpy -- the layout ``from_list`` writes; None for a width numpy
    has no type for."""
    fmt = _PACK.get(width)
    if fmt is None:
        return None
    return DenseIntOrFPElementsAttr(ty, BytesAttr(np.array(values, dtype=np.int64).astype(fmt).tobytes()))


@lru_cache(maxsize=256)  # attributes are immutable: one per type (a third of printing's time otherwise)
def elem_attr(elem: str) -> Attribute:
    """The MLIR element type of an IR element type name (``i16``, ``f32``, ...)."""
    if elem in _FLOATS:
        return _FLOATS[elem]
    if re.fullmatch(r"i[1-9]\d*", elem):
        return IntegerType(int(elem[1:]))
    if elem == "index":
        return IndexType()
    raise IRError(f"element type '{elem}' has no MLIR spelling")


@lru_cache(maxsize=256)
def plain_type(ty: Type) -> Attribute:
    """The MLIR type of an IR type, ignoring secrecy."""
    el = elem_attr(ty.elem)
    return el if ty.is_scalar else TensorType(el, list(ty.shape))


def _int_value(v: int, width: int) -> int:
    """``v`` as an MLIR ``iN`` literal, unchanged; a value that does not fit N bits raises
    ``WidthError`` (wrapping it would change the program's meaning mod t, see ``eqsat.interp``)."""
    if -(1 << (width - 1)) <= v < (1 << (width - 1)):
        return v
    raise WidthError(f"constant {v} does not fit i{width}: the program's values exceed its declared width "
                     "(widen the type)")


class _FunctionBuilder:
    """Builds the ``func.func`` of one program."""

    def __init__(self, prog: Program) -> None:
        self.prog = prog.compact()
        self.style = prog.style if prog.style in ("plain", "secret", "noisy") else "plain"
        if self.style == "plain" and any(not t.secret for _, t in prog.args):
            self.style = "secret"  # only the secret wrapper can say which arguments are plaintext
        self.values: dict[int, SSAValue] = {}
        self.encoded: dict[int, SSAValue] = {}
        self.index_consts: dict[int, SSAValue] = {}
        self.ops: list[Operation] = []
        self.used: set[str] = set()
        self.next_suffix: dict[str, int] = {}

    # -- names -----------------------------------------------------------------
    def fresh(self, base: str) -> str:
        """``base``, else ``base_k`` with the smallest unused k (names are only ever added, so
        the search resumes where the last one for ``base`` stopped)."""
        k = self.next_suffix.get(base, 0)
        name = base if k == 0 else f"{base}_{k}"
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.next_suffix[base] = k
        self.used.add(name)
        return name

    def arg_name(self, name: str, i: int) -> str:
        if _VALID_NAME.fullmatch(name) and name not in self.used:
            self.used.add(name)
            return name
        return self.fresh(f"arg{i}")

    # -- types -----------------------------------------------------------------
    def value_type(self, ty: Type) -> Attribute:
        if self.style == "noisy" and ty.secret:
            if not ty.is_scalar:
                raise IRError(
                    "the noisy dialect has only scalars; a secret tensor cannot be printed as noisy MLIR"
                )
            return noisy.NoisyI32Type()
        return plain_type(ty)

    def boundary_type(self, ty: Type) -> Attribute:
        """The type of a function argument or result."""
        if self.style == "secret" and ty.secret:
            return secret.SecretType(plain_type(ty))
        return self.value_type(ty)

    # -- structure -------------------------------------------------------------
    def build(self) -> func.FuncOp:
        prog = self.prog
        arg_types = [self.boundary_type(t) for _, t in prog.args]
        outer = Block(arg_types=arg_types)
        for i, ((name, _), arg) in enumerate(zip(prog.args, outer.args, strict=True)):
            arg.name_hint = self.arg_name(name, i)
        input_ids = {str(n.attrs[0]): i for i, n in enumerate(prog.nodes) if n.op == "input"}
        if self.style == "secret":
            return self.build_secret(outer, input_ids)
        for (name, _), arg in zip(prog.args, outer.args, strict=True):
            self.values[input_ids[name]] = arg
        results = self.emit_body()
        outer.add_ops([*self.index_ops(), *self.ops, func.ReturnOp(*results)])
        res_types = [self.boundary_type(prog.nodes[r].type) for r in prog.results]
        return self.with_layouts(func.FuncOp(prog.name, (arg_types, res_types), Region(outer)))

    def build_secret(self, outer: Block, input_ids: dict[str, int]) -> func.FuncOp:
        prog = self.prog
        inner = Block(arg_types=[plain_type(t) for _, t in prog.args])
        inner.name_hint = "body"
        for i, ((name, _), arg) in enumerate(zip(prog.args, inner.args, strict=True)):
            arg.name_hint = self.fresh(f"input{i}")
            self.values[input_ids[name]] = arg
        results = self.emit_body()
        inner.add_ops([*self.ops, secret.YieldOp.create(operands=results)])
        res_types = [secret.SecretType(plain_type(prog.nodes[r].type)) for r in prog.results]
        generic = secret.GenericOp(list(outer.args), res_types, Region(inner))
        outer.add_ops([*self.index_ops(), generic, func.ReturnOp(*generic.results)])
        arg_types = [a.type for a in outer.args]
        return self.with_layouts(func.FuncOp(prog.name, (arg_types, res_types), Region(outer)))

    def with_layouts(self, fn: func.FuncOp) -> func.FuncOp:
        """Argument and result layouts (``meta["layouts"]``) as attributes (``layout_attrs``)."""
        lays = self.prog.meta.get("layouts")
        if isinstance(lays, dict):
            from eqsat.frontend.mlir.layout_attrs import attach

            attach(fn, [n for n, _ in self.prog.args], lays)
        return fn

    def index_ops(self) -> list[Operation]:
        ops: list[Operation] = []
        for k in sorted(self.index_consts):
            val = self.index_consts[k]
            assert isinstance(val.owner, Operation)
            ops.append(val.owner)
        return ops

    def emit_body(self) -> list[SSAValue]:
        for i in self.prog.live():
            if i not in self.values:
                self.values[i] = self.emit(self.prog.nodes[i])
        return [self.values[r] for r in self.prog.results]

    # -- helpers ---------------------------------------------------------------
    def add(self, op: Operation, hint: str | None = None) -> SSAValue:
        self.ops.append(op)
        res = op.results[0]
        if hint is not None:
            res.name_hint = self.fresh(hint)
        return res

    def index(self, k: int) -> SSAValue:
        if k not in self.index_consts:
            op = arith.ConstantOp(IntegerAttr(k, IndexType()))
            op.result.name_hint = self.fresh(f"c{k}")
            self.index_consts[k] = op.result
        return self.index_consts[k]

    def indices(self, ty: Type, flat: int) -> list[SSAValue]:
        idx: list[int] = []
        for n in reversed(ty.shape):
            idx.append(flat % n)
            flat //= n
        return [self.index(k) for k in reversed(idx)]

    def constant(self, value: object, ty: Type) -> SSAValue:
        el = elem_attr(ty.elem)
        if ty.is_scalar:
            assert isinstance(value, int | float)
            if isinstance(el, IntegerType):
                v = _int_value(int(value), el.width.data)
                return self.add(arith.ConstantOp(IntegerAttr(v, el)), f"c{v}_{ty.elem}")
            return self.add(arith.ConstantOp(FloatAttr(float(value), el)), "cst")  # type: ignore[call-overload]
        if isinstance(value, VecRef):
            fast = self.held_constant(value, el, ty)
            if fast is not None:
                return fast
            value = value.values()
        raw = list(value) if isinstance(value, tuple) else [value]
        assert all(isinstance(v, int | float) for v in raw)
        values: list[int] | list[float]
        if isinstance(el, IntegerType):
            values = [_int_value(int(v), el.width.data) for v in raw]  # type: ignore[arg-type]
        else:
            values = [float(v) for v in raw]  # type: ignore[arg-type]
        if len(set(values)) == 1:
            values = values[:1]
        elif isinstance(el, IntegerType) and len(values) >= BIG_CONSTANT:
            packed = _int_dense(TensorType(el, list(ty.shape)), values, el.width.data)  # type: ignore[arg-type]
            if packed is not None:
                return self.add(arith.ConstantOp(packed), "cst")
        attr = DenseIntOrFPElementsAttr.from_list(plain_type(ty), values)  # type: ignore[call-overload]
        return self.add(arith.ConstantOp(attr), "cst")

    def held_constant(self, ref: VecRef, el: Attribute, ty: Type) -> SSAValue | None:
        """A large integer vector held by handle (a linmap diagonal), checked and packed whole by
        numpy; None where the general path must decide (small, uniform, out of range, float)."""
        from eqsat.algebra.linmap import lookup_vector

        arr = lookup_vector(ref.handle)
        if not isinstance(el, IntegerType) or arr.dtype.kind != "i" or arr.size < BIG_CONSTANT:
            return None
        width = el.width.data
        lo, hi = -(1 << (width - 1)), 1 << (width - 1)
        if width not in _PACK or int(arr.min()) < lo or int(arr.max()) >= hi or bool(np.all(arr == arr[0])):
            return None
        attr = DenseIntOrFPElementsAttr(TensorType(el, list(ty.shape)), BytesAttr(arr.astype(_PACK[width]).tobytes()))
        return self.add(arith.ConstantOp(attr), "cst")

    def zero_like(self, ty: Type) -> SSAValue:
        return self.constant(0.0 if ty.is_float else 0, ty.with_secret(False))

    def encode(self, i: int) -> SSAValue:
        """A ``!noisy.i32`` for node ``i`` (encoding a plaintext operand once)."""
        if self.prog.nodes[i].type.secret:
            return self.values[i]
        if i not in self.encoded:
            self.encoded[i] = self.add(
                noisy.EncodeOp.create(operands=[self.values[i]], result_types=[noisy.NoisyI32Type()])
            )
        return self.encoded[i]

    # -- nodes -----------------------------------------------------------------
    def emit(self, n: Node) -> SSAValue:
        v = self.values
        rt = self.value_type(n.type)
        if n.op == "const":
            return self.constant(n.attrs[0], n.type)
        if n.op in ("add", "sub", "mul"):
            return self.emit_binary(n)
        if n.op == "neg":
            return self.emit_neg(n)
        if n.op in ("encode", "decode"):
            return self.emit_coding(n)
        if n.op in _MGMT_OPS:
            cls = _MGMT_OPS[n.op] if n.op != "reduce_noise" or self.style == "noisy" else None
            if cls is None:
                raise IRError("reduce_noise exists only in noisy programs")
            if n.op == ("rescale" if n.type.is_float else "modswitch"):
                cls = mgmt.ModreduceOp  # HEIR's one name for both; read back by element type
            return self.add(cls.create(operands=[v[n.args[0]]], result_types=[rt]))
        if n.op == "rotate":
            k = int(n.attrs[0])  # type: ignore[call-overload]
            return self.add(
                tensor_ext.RotateOp.create(operands=[v[n.args[0]], self.index(k)], result_types=[rt])
            )
        if n.op == "extract":
            src = self.prog.nodes[n.args[0]].type
            idx = self.indices(src, int(n.attrs[0]))  # type: ignore[call-overload]
            return self.add(tensor.ExtractOp(v[n.args[0]], idx, rt))
        if n.op == "insert":
            idx = self.indices(n.type, int(n.attrs[0]))  # type: ignore[call-overload]
            return self.add(tensor.InsertOp(v[n.args[0]], v[n.args[1]], idx))
        if n.op == "from_elements":
            return self.add(tensor.FromElementsOp.create(operands=[v[a] for a in n.args], result_types=[rt]))
        if n.op == "splat":
            return self.add(tensor.SplatOp.create(operands=[v[n.args[0]]], result_types=[rt]))
        if n.op == "empty":
            return self.add(tensor.EmptyOp.create(result_types=[rt]))
        raise IRError(f"cannot print op '{n.op}'")

    def emit_binary(self, n: Node) -> SSAValue:
        a, b = n.args
        if self.style == "noisy" and n.type.secret:
            if not n.type.is_scalar:
                raise IRError("the noisy dialect has only scalars")
            return self.add(
                _NOISY_OPS[n.op].create(
                    operands=[self.encode(a), self.encode(b)], result_types=[noisy.NoisyI32Type()]
                )
            )
        cls = (_FLOAT_OPS if n.type.is_float else _INT_OPS)[n.op]
        return self.add(
            cls.create(operands=[self.values[a], self.values[b]], result_types=[plain_type(n.type)])
        )

    def emit_neg(self, n: Node) -> SSAValue:
        (a,) = n.args
        if n.type.is_float and not (self.style == "noisy" and n.type.secret):
            return self.add(arith.NegfOp(self.values[a]))
        zero = self.zero_like(n.type)
        if self.style == "noisy" and n.type.secret:
            enc = self.add(noisy.EncodeOp.create(operands=[zero], result_types=[noisy.NoisyI32Type()]))
            return self.add(
                noisy.SubOp.create(operands=[enc, self.values[a]], result_types=[noisy.NoisyI32Type()])
            )
        return self.add(arith.SubiOp(zero, self.values[a]))

    def emit_coding(self, n: Node) -> SSAValue:
        (a,) = n.args
        src = self.prog.nodes[a].type
        if self.style != "noisy" or not n.type.is_scalar or src.secret == n.type.secret:
            return self.values[a]
        if n.op == "encode":
            return self.encode(a)
        return self.add(
            noisy.DecodeOp.create(operands=[self.values[a]], result_types=[elem_attr(n.type.elem)])
        )
