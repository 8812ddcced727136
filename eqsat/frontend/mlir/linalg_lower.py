"""Lowering of tensor programs (``linalg`` and shape ops) to packed slot vectors.

In: one ``func.func`` of a ``ParsedModule`` that uses ``linalg`` ops or the shape ops
``tensor.collapse_shape`` / ``expand_shape`` / ``extract_slice`` / ``insert_slice``.  Out: a
``Program`` (``LinalgLowering.run``) whose tensors all live in ``N``-slot vectors, ``N`` the
largest element count of a value derived from the inputs, with ``meta["layouts"]`` saying where
each argument's and result's elements sit when that is not plain row-major.

Packing.  Every tensor value is either a plaintext constant (a numpy array, folded and
packed where it is used: free) or a *packed* value: a vector node of ``N`` slots and, per
element (row-major index), the slots that hold it (``pos``, one or more copies; the other
slots hold anything).  A secret argument of ``E`` elements is packed row-major, replicated
``N / E`` times when ``E`` divides ``N`` (``replicated``), else zero-padded.  Relabelings
cost nothing: ``collapse_shape``/``expand_shape`` keep the slots, ``extract_slice`` keeps the
slots of the elements it selects, ``linalg.transpose`` and ``tensor_ext.rotate`` permute the
element -> slot table.  A value is moved between packings only when an element-wise op meets
two packed operands packed differently (a ``linmap`` permutation, priced by the optimizer).

Kernels.  A named op with one packed operand and plaintext weights (``matvec``, ``vecmat``,
``dot``, ``matmul`` either way round, ``conv_1d``, ``conv_2d``, ``conv_2d_nchw_fchw`` /
``conv_2d_nhwc_hwcf`` with batch 1, ``pooling_nchw_sum``, ``insert_slice``) is a linear map
from the operand's slots to the result's: one ``linmap`` node per packed operand (the
``linmap`` rules realize it).  The result's packing is chosen between row-major and
*anchored* (output element at the slot of the input element it reads first: a convolution or
a pooling window then keeps the input grid, a strided layout reported as such) by the
rotations of the best plan.  With two packed operands (secret x secret, or a plaintext
function argument as weight) and for ``linalg.generic`` with reductions or non-identity
maps, the op is unrolled into scalar code (the vectorizer reads it back); element-wise
``linalg.generic`` (and ``linalg.add/sub/mul``) runs its body once on whole vectors.

Env values.  The base lowering (``to_ir._FunctionLowering``) maps SSA values to node ids;
here a tensor is a negative handle ``-(k + 1)`` into ``self.tvals``, so loops and
``secret.generic`` thread packed tensors like any value, and ``node()`` materializes one.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, TensorType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from eqsat.algebra import linmap
from eqsat.frontend.mlir.dialects import mgmt, secret, tensor_ext
from eqsat.frontend.mlir.dialects.linalg import NamedOp
from eqsat.frontend.mlir.to_ir import _FLOAT_BINARY, _INT_BINARY, _MGMT, Index, _FunctionLowering
from eqsat.ir import Type

MAX_UNROLLED_TERMS = 1 << 16
"""Largest scalar product count an op may unroll into (secret x secret, generic reductions)."""

#: the shape ops that make a function a tensor program (by name: ``eqsat.frontend.mlir.SHAPE_OP_NAMES``)
SHAPE_OPS = (tensor.CollapseShapeOp, tensor.ExpandShapeOp, tensor.ExtractSliceOp, tensor.InsertSliceOp)


@dataclass(frozen=True, eq=False)
class TVal:
    """A tensor: plaintext ``const`` (shape ``shape``), or ``node`` with element e at slots ``pos[e]``."""

    shape: tuple[int, ...]
    elem: str
    node: int | None = None
    pos: np.ndarray | None = None  # (elements, copies) int64
    const: np.ndarray | None = None

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def is_const(self) -> bool:
        return self.const is not None


def _prefix(e: int) -> np.ndarray:
    return np.arange(e, dtype=np.int64)[:, None]


def _layout_name(pos: np.ndarray, n: int) -> str:
    e, k = pos.shape
    if k > 1:
        return "replicated"
    flat = pos[:, 0]
    if np.array_equal(flat, np.arange(e)):
        return "row-major" if e == n else "zero-padded"
    return "strided" if np.all(np.diff(flat) > 0) else "permuted"


#: the most elements of a plaintext tensor constant (other tensors: 2^20, see ``tensor_shape``)
PLAIN_CONST_ELEMENTS = 1 << 26


class LinalgLowering(_FunctionLowering):
    """``_FunctionLowering`` for tensor programs (see the module docstring)."""

    def __init__(self, parsed: Any, fn: func.FuncOp) -> None:
        super().__init__(parsed, fn)
        self.tvals: list[TVal] = []
        self.n = self.slot_count()
        self.vshape = self.vector_shape()

    # -- packing ---------------------------------------------------------------
    def slot_count(self) -> int:
        """The largest element count of a value that depends on a function argument."""
        entry = self.fn.body.blocks.first
        assert entry is not None
        data: set[SSAValue] = set()
        sizes = [1]

        def note(v: SSAValue) -> None:
            data.add(v)
            if isinstance(v.type, TensorType):
                sizes.append(math.prod(d if d > 0 else 1 for d in v.type.get_shape()))
            elif isinstance(v.type, secret.SecretType) and isinstance(v.type.value_type, TensorType):
                sizes.append(math.prod(d if d > 0 else 1 for d in v.type.value_type.get_shape()))

        for a in entry.args:
            note(a)
        for t in self.fn.function_type.outputs:  # a constant result still needs its slots
            inner = t.value_type if isinstance(t, secret.SecretType) else t
            if isinstance(inner, TensorType):
                sizes.append(math.prod(d if d > 0 else 1 for d in inner.get_shape()))
        for op in self.fn.walk():
            if op is self.fn:
                continue
            if any(o in data for o in op.operands):
                for r in op.results:
                    note(r)
                for region in op.regions:
                    for block in region.blocks:
                        for a in block.args:
                            note(a)
        return max(sizes)

    def vector_shape(self) -> tuple[int, ...]:
        """The IR shape of every packed vector: the shape of the tensor arguments that fill all
        ``N`` slots when they agree and have one non-unit dimension (``tensor<1x16xi16>`` stays
        so; HEIR rotates only such tensors), else ``(N,)``: ``tensor<5x5xi16>`` prints as
        ``tensor<25xi16>``, its layout attribute naming the shape."""
        entry = self.fn.body.blocks.first
        assert entry is not None
        full = set()
        for a in entry.args:
            t = a.type.value_type if isinstance(a.type, secret.SecretType) else a.type
            dims = tuple(t.get_shape()) if isinstance(t, TensorType) else ()
            if dims and min(dims) > 0 and math.prod(dims) == self.n and sum(d != 1 for d in dims) <= 1:
                full.add(dims)
        return full.pop() if len(full) == 1 else (self.n,)

    def handle(self, t: TVal) -> int:
        self.tvals.append(t)
        return -len(self.tvals)

    def tval(self, v: SSAValue, op: Operation) -> TVal:
        """The tensor bound to ``v`` (a scalar node is refused)."""
        val = self.env[id(v)]
        if isinstance(val, int) and val < 0:
            return self.tvals[-val - 1]
        raise self.fail(op, f"an operand of '{op.name}' is not a tensor")

    def is_tensor(self, v: SSAValue) -> bool:
        val = self.env[id(v)]
        return isinstance(val, int) and val < 0

    def vec_type(self, elem: str, secret_: bool) -> Type:
        return Type(self.vshape, elem, secret_)

    def node(self, v: SSAValue | Any, op: Operation, what: str = "an operand") -> int:
        val = self.env[id(v)] if isinstance(v, SSAValue) else v
        if isinstance(val, int) and val < 0:
            return self.materialize(self.tvals[-val - 1])
        return super().node(val, op, what)

    def materialize(self, t: TVal, pos: np.ndarray | None = None) -> int:
        """A node holding ``t`` (in ``pos`` when given, else in its own packing)."""
        if t.const is not None:
            where = pos if pos is not None else _prefix(t.size)
            vals: list[int | float] = [0.0 if t.elem.startswith("f") else 0] * self.n
            flat = t.const.reshape(-1).tolist()
            for e, slots in enumerate(where.tolist()):
                for s in slots:
                    vals[s] = flat[e]
            return self.b.const(tuple(vals), self.vec_type(t.elem, False))
        assert t.node is not None and t.pos is not None
        if pos is None or self.holds(t, pos):
            return t.node
        return self.move(t, pos)

    def holds(self, t: TVal, pos: np.ndarray) -> bool:
        """Every slot of ``pos`` already holds its element in ``t``."""
        assert t.pos is not None
        have = t.pos
        return all(set(p) <= set(h) for p, h in zip(pos.tolist(), have.tolist(), strict=True))

    def move(self, t: TVal, pos: np.ndarray) -> int:
        """``t`` re-packed to ``pos`` (a selection map: one linmap)."""
        e, k = pos.shape
        outs = pos.reshape(-1)
        ins = np.repeat(np.arange(e), k)
        return self.apply_linear(t, outs, ins, np.ones(outs.shape[0], dtype=np.int64))

    def apply_linear(self, t: TVal, out_slots: np.ndarray, in_elems: np.ndarray, coef: np.ndarray) -> int:
        """The node ``y[out_slots[i]] += coef[i] * t[in_elems[i]]`` (other slots of y are 0)."""
        m = self.linear_map(t, out_slots, in_elems, coef)
        assert t.node is not None
        return self.b.linmap(t.node, linmap.register(m))

    def linear_map(self, t: TVal, out_slots: np.ndarray, in_elems: np.ndarray, coef: np.ndarray,
                   held: np.ndarray | None = None) -> linmap.LinearMap:
        """The map writing ``coef * t[in_elems]`` to ``out_slots``; ``held`` (default ``out_slots``) are
        all the slots of the result that hold an element -- the others may receive anything."""
        n = self.n
        assert t.pos is not None
        cands = t.pos[in_elems]  # (terms, copies)
        offs = (cands - out_slots[:, None]) % n
        d = offs[np.arange(offs.shape[0]), np.argmin(offs, axis=1)] if offs.shape[1] > 1 else offs[:, 0]
        uniq, inv = _unique_below(d, n)
        dt = np.float64 if coef.dtype.kind == "f" else np.int64
        diag = np.zeros((uniq.shape[0], n), dtype=dt)
        np.add.at(diag, (inv, out_slots), coef.astype(dt))
        # slots that hold no output element are free: a diagonal constant on the output slots
        # becomes uniform (a shift-invariant map is a rotation polynomial, no plaintext masks)
        held = _unique_below(out_slots if held is None else held, n)[0]
        for row in diag:
            vals = row[held]
            if np.all(vals == vals[0]):
                row[:] = vals[0]
        return linmap.from_diagonals({int(off): diag[i] for i, off in enumerate(uniq.tolist())}, n)

    # -- entry -----------------------------------------------------------------
    def run(self) -> Any:
        entry = self.fn.body.blocks.first
        assert entry is not None
        if len(self.fn.body.blocks) != 1:
            raise self.fail(self.fn, "functions with more than one block are not supported")
        arg_lays: dict[str, dict[str, object]] = {}
        for i, arg in enumerate(entry.args):
            name = arg.name_hint or f"arg{i}"
            ty, is_secret = arg.type, self.arg_is_secret(arg.type)
            if isinstance(ty, IndexType):
                self.env[id(arg)] = Index(0, known=False)
                continue
            if isinstance(ty, secret.SecretType):
                ty = ty.value_type
            if isinstance(ty, TensorType):
                shape, elem = self.tensor_shape(ty, self.fn), self.elem_type(ty.get_element_type(), self.fn)
                e = math.prod(shape)
                reps = self.n // e if self.n % e == 0 else 1
                pos = (np.arange(reps, dtype=np.int64)[None, :] * e + np.arange(e, dtype=np.int64)[:, None])
                node = self.b.arg(name, self.vec_type(elem, is_secret))
                self.env[id(arg)] = self.handle(TVal(shape, elem, node=node, pos=pos))
                arg_lays[name] = self.layout_json(shape, pos)
                continue
            self.env[id(arg)] = self.b.arg(name, self.convert_type(ty, self.fn, is_secret))
        results = self.run_block(entry, self.fn)
        ret = entry.last_op
        assert ret is not None
        nodes, res_lays = [], []
        for v in results:
            if isinstance(v, int) and v < 0:
                t = self.tvals[-v - 1]
                node = self.materialize(t)
                nodes.append(node)
                res_lays.append(self.layout_json(t.shape, t.pos if t.pos is not None else _prefix(t.size)))
            else:
                nodes.append(self.node(v, ret, "a returned value"))
                res_lays.append({"name": "row-major", "shape": [], "ciphertexts": 1, "slots": 1, "slot_index": [[0]]})
        self.b.meta["source"] = self.parsed.path
        plain = all(lay["name"] == "row-major" for lay in [*arg_lays.values(), *res_lays])
        if not plain:
            self.b.meta["layouts"] = {
                "arguments": {k: {**v, "ciphertext_args": [k]} for k, v in arg_lays.items()},
                "results": res_lays,
            }
        return self.b.finish(nodes)

    def layout_json(self, shape: tuple[int, ...], pos: np.ndarray) -> dict[str, object]:
        return {"name": _layout_name(pos, self.n), "shape": list(shape),
                "ciphertexts": 1, "slots": self.n, "slot_index": pos.tolist()}

    def tensor_shape(self, ty: TensorType, op: Operation, limit: int = 1 << 20) -> tuple[int, ...]:
        shape = tuple(ty.get_shape())
        if any(d < 1 for d in shape):
            raise self.fail(op, f"tensor type '{ty}' must have a static, non-empty shape "
                                "(dynamic shapes are not supported)")
        if math.prod(shape) > limit:
            raise self.fail(op, f"tensor type '{ty}' has more than {limit} elements")
        return shape

    def result_tensor(self, op: Operation, k: int = 0) -> tuple[tuple[int, ...], str]:
        ty = op.results[k].type
        if not isinstance(ty, TensorType):
            raise self.fail(op, f"result of '{op.name}' must be a tensor, got '{ty}'")
        return self.tensor_shape(ty, op), self.elem_type(ty.get_element_type(), op)

    # -- values ----------------------------------------------------------------
    def const_of(self, v: SSAValue) -> Any:
        """A compile-time number for scalar ``v`` (or None)."""
        val = self.env[id(v)]
        if isinstance(val, Index) or (isinstance(val, int) and val < 0):
            return None
        n = self.b.nodes[val]
        if n.op == "const" and not n.type.secret and not isinstance(n.attrs[0], tuple):
            return n.attrs[0]
        return None

    def op_constant(self, op: arith.ConstantOp) -> None:
        attr, ty = op.value, op.result.type
        if isinstance(ty, TensorType) and isinstance(attr, DenseIntOrFPElementsAttr):
            # a plaintext constant is one numpy array (a 4096 x 4096 weight: 2^24 elements)
            shape, elem = self.tensor_shape(ty, op, PLAIN_CONST_ELEMENTS), self.elem_type(ty.get_element_type(), op)
            arr = self.parsed.dense.get(op)  # read before parsing (big literals), else xDSL's values
            if arr is None:
                values = list(attr.get_values())
                if len(values) == 1 and math.prod(shape) != 1:
                    values = values * math.prod(shape)
                arr = np.array(values, dtype=np.float64 if elem.startswith("f") else object).reshape(shape)
                if not elem.startswith("f"):
                    arr = arr.astype(np.int64)
            self.bind(op, [self.handle(TVal(shape, elem, const=arr))])
            return
        super().op_constant(op)

    # -- element-wise ------------------------------------------------------------
    def elementwise(self, op: Operation, kind: str, vals: Sequence[int]) -> int:
        """``kind`` (add/sub/mul/neg/mgmt op) on env values: tensors aligned, scalars splat."""
        ts = [self.tvals[-v - 1] for v in vals if v < 0]
        if not ts:
            raise AssertionError("elementwise without tensors")
        shape, elem = ts[0].shape, ts[0].elem
        for t in ts:
            if t.shape != shape:
                raise self.fail(op, f"'{op.name}' operands have shapes {list(t.shape)} and {list(shape)}")
        if all(v < 0 and self.tvals[-v - 1].is_const for v in vals):
            arrs = [self.tvals[-v - 1].const for v in vals]
            out = _fold(kind, arrs)
            if out is not None:
                return self.handle(TVal(shape, elem, const=out))
        data = [t for t in ts if not t.is_const]
        pos = data[0].pos if data else _prefix(ts[0].size)
        assert pos is not None
        nodes = []
        for v in vals:
            if v < 0:
                nodes.append(self.materialize(self.tvals[-v - 1], pos))
            else:
                s = self.b.type_of(v)
                nodes.append(self.b.splat(v, self.vec_type(s.elem, s.secret)))
        if kind in ("add", "sub", "mul"):
            node = self.b.binary(kind, nodes[0], nodes[1])
        elif kind == "neg":
            node = self.b.neg(nodes[0])
        else:
            node = self.b.unary(kind, nodes[0])
        return self.handle(TVal(shape, self.b.type_of(node).elem, node=node, pos=pos))

    def op_arith_binary(self, op: Operation) -> None:
        lhs, rhs = op.operands
        if not (self.is_tensor(lhs) or self.is_tensor(rhs)):
            super().op_arith_binary(op)
            return
        kind = _INT_BINARY.get(type(op)) or _FLOAT_BINARY.get(type(op))
        if kind is None:
            raise self.fail(op, f"'{op.name}' is not supported on tensors")
        self.bind(op, [self.elementwise(op, kind, [self.env[id(lhs)], self.env[id(rhs)]])])  # type: ignore[list-item]

    def op_negf(self, op: arith.NegfOp) -> None:
        if self.is_tensor(op.operand):
            self.bind(op, [self.elementwise(op, "neg", [self.env[id(op.operand)]])])  # type: ignore[list-item]
            return
        super().op_negf(op)

    def op_mgmt(self, op: Operation) -> None:
        (x,) = op.operands
        if not self.is_tensor(x):
            super().op_mgmt(op)
            return
        kind = _MGMT[type(op)]
        self.bind(op, [self.elementwise(op, kind, [self.env[id(x)]])])  # type: ignore[list-item]

    def op_modreduce(self, op: mgmt.ModreduceOp) -> None:
        if not self.is_tensor(op.input):
            super().op_modreduce(op)
            return
        t = self.tval(op.input, op)
        kind = "rescale" if t.elem.startswith("f") else "modswitch"
        self.bind(op, [self.elementwise(op, kind, [self.env[id(op.input)]])])  # type: ignore[list-item]

    # -- tensor ops ----------------------------------------------------------------
    def flat(self, op: Operation, t: TVal, indices: Sequence[SSAValue]) -> int:
        idx = [self.index(v, op) for v in indices]
        if len(idx) != len(t.shape):
            raise self.fail(op, f"{len(idx)} indices for a rank-{len(t.shape)} tensor")
        for k, n in zip(idx, t.shape, strict=True):
            if not 0 <= k < n:
                raise self.fail(op, f"index {k} is out of range for dimension of size {n} "
                                    f"(indices {idx} into tensor of shape {list(t.shape)})")
        return int(np.ravel_multi_index(idx, t.shape)) if t.shape else 0

    def element(self, t: TVal, e: int) -> int:
        """Element ``e`` of ``t`` as a scalar node."""
        if t.const is not None:
            return self.b.const(t.const.reshape(-1)[e].item(), Type((), t.elem, False))
        assert t.node is not None and t.pos is not None
        return self.b.extract(t.node, int(t.pos[e, 0]))

    def op_extract(self, op: tensor.ExtractOp) -> None:
        t = self.tval(op.tensor, op)
        self.bind(op, [self.element(t, self.flat(op, t, op.indices))])

    def op_insert(self, op: tensor.InsertOp) -> None:
        t = self.tval(op.dest, op)
        e = self.flat(op, t, op.indices)
        s = self.node(op.scalar, op)
        c = self.const_of(op.scalar)
        if t.const is not None and c is not None:
            arr = t.const.copy()
            arr.reshape(-1)[e] = c
            self.bind(op, [self.handle(TVal(t.shape, t.elem, const=arr))])
            return
        pos = t.pos if t.pos is not None else _prefix(t.size)
        node = self.materialize(t, pos)
        for slot in pos[e].tolist():
            node = self.b.insert(s, node, int(slot))
        self.bind(op, [self.handle(TVal(t.shape, t.elem, node=node, pos=pos))])

    def op_from_elements(self, op: tensor.FromElementsOp) -> None:
        shape, elem = self.result_tensor(op)
        consts = [self.const_of(v) for v in op.elements]
        if all(c is not None for c in consts):
            arr = np.array(consts, dtype=np.float64 if elem.startswith("f") else np.int64).reshape(shape)
            self.bind(op, [self.handle(TVal(shape, elem, const=arr))])
            return
        nodes = [self.node(v, op) for v in op.elements]
        zero = self.b.const(0, Type((), elem, False))
        secret_ = any(self.b.type_of(x).secret for x in nodes)
        node = self.b.from_elements(nodes + [zero] * (self.n - len(nodes)), self.vec_type(elem, secret_))
        self.bind(op, [self.handle(TVal(shape, elem, node=node, pos=_prefix(len(nodes))))])

    def op_splat(self, op: tensor.SplatOp) -> None:
        shape, elem = self.result_tensor(op)
        self.bind(op, [self.fill(shape, elem, op.input, op)])

    def fill(self, shape: tuple[int, ...], elem: str, v: SSAValue, op: Operation) -> int:
        c = self.const_of(v)
        if c is not None:
            return self.handle(TVal(shape, elem, const=np.full(shape, c, dtype=_dtype(elem))))
        s = self.node(v, op)
        node = self.b.splat(s, self.vec_type(elem, self.b.type_of(s).secret))
        return self.handle(TVal(shape, elem, node=node, pos=_prefix(math.prod(shape))))

    def op_empty(self, op: tensor.EmptyOp) -> None:
        if op.dynamic_sizes:
            raise self.fail(op, "tensor.empty with dynamic sizes is not supported")
        shape, elem = self.result_tensor(op)
        self.bind(op, [self.handle(TVal(shape, elem, const=np.zeros(shape, dtype=_dtype(elem))))])

    def relabel(self, t: TVal, shape: tuple[int, ...], index: np.ndarray) -> int:
        """The tensor of ``shape`` whose element e is ``t``'s element ``index[e]`` (free)."""
        if t.const is not None:
            return self.handle(TVal(shape, t.elem, const=t.const.reshape(-1)[index].reshape(shape)))
        assert t.pos is not None
        return self.handle(TVal(shape, t.elem, node=t.node, pos=t.pos[index]))

    def op_rotate(self, op: tensor_ext.RotateOp) -> None:
        t = self.tval(op.tensor, op)
        shift = self.static_int(op.shift)
        if shift is None:
            raise self.fail(op, "shift of 'tensor_ext.rotate' is not a compile-time constant")
        e = t.size
        self.bind(op, [self.relabel(t, t.shape, (np.arange(e) + shift) % e)])

    def op_reshape(self, op: Operation) -> None:
        t = self.tval(op.operands[0], op)
        shape, _ = self.result_tensor(op)
        if math.prod(shape) != t.size:
            raise self.fail(op, f"'{op.name}' changes the element count ({t.size} -> {math.prod(shape)})")
        self.bind(op, [self.relabel(t, shape, np.arange(t.size))])

    def slice_index(self, op: Operation, shape: tuple[int, ...]) -> np.ndarray:
        """Row-major indices (into ``shape``) of a static ``extract_slice`` / ``insert_slice`` window."""
        fixed = 2 if isinstance(op, tensor.InsertSliceOp) else 1
        if op.operands[fixed:]:  # dynamic offsets, sizes or strides
            raise self.fail(op, f"'{op.name}' with dynamic offsets, sizes or strides is not supported")
        offs = [int(x) for x in op.properties["static_offsets"].get_values()]  # type: ignore[attr-defined]
        sizes = [int(x) for x in op.properties["static_sizes"].get_values()]  # type: ignore[attr-defined]
        strides = [int(x) for x in op.properties["static_strides"].get_values()]  # type: ignore[attr-defined]
        if not len(offs) == len(sizes) == len(strides) == len(shape):
            raise self.fail(op, f"'{op.name}' needs one offset, size and stride per dimension")
        axes = []
        for o, s, st, n in zip(offs, sizes, strides, shape, strict=True):
            ax = o + st * np.arange(s)
            if s < 1 or ax.min() < 0 or ax.max() >= n:
                raise self.fail(op, f"slice [{o}, {s}, {st}] is out of range for a dimension of size {n}")
            axes.append(ax)
        grids = np.meshgrid(*axes, indexing="ij")
        return np.ravel_multi_index(tuple(grids), shape).reshape(-1)

    def op_extract_slice(self, op: tensor.ExtractSliceOp) -> None:
        t = self.tval(op.source, op)
        shape, _ = self.result_tensor(op)
        idx = self.slice_index(op, t.shape)
        if idx.shape[0] != math.prod(shape):
            raise self.fail(op, f"slice of {idx.shape[0]} elements does not fit its result type")
        self.bind(op, [self.relabel(t, shape, idx)])

    def op_insert_slice(self, op: tensor.InsertSliceOp) -> None:
        src, dest = self.tval(op.source, op), self.tval(op.dest, op)
        idx = self.slice_index(op, dest.shape)
        if idx.shape[0] != src.size:
            raise self.fail(op, f"slice of {idx.shape[0]} elements does not fit a source of {src.size}")
        keep = np.setdiff1d(np.arange(dest.size), idx)
        bias = np.zeros(dest.size, dtype=np.float64 if dest.elem.startswith("f") else np.int64)
        terms = []
        if src.const is not None:
            bias[idx] = src.const.reshape(-1)
        else:
            terms.append(Term(src, idx, np.arange(src.size), np.ones(src.size, dtype=np.int64)))
        if dest.const is not None:
            bias[keep] = dest.const.reshape(-1)[keep]
        else:
            terms.append(Term(dest, keep, keep, np.ones(keep.shape[0], dtype=np.int64)))
        if not terms:
            self.bind(op, [self.handle(TVal(dest.shape, dest.elem, const=bias.reshape(dest.shape)))])
            return
        self.bind(op, [self.linear(op, dest.shape, dest.elem, terms, bias, anchor=None if dest.is_const else dest)])

    # -- linear kernels ----------------------------------------------------------------
    def linear(self, op: Operation, shape: tuple[int, ...], elem: str, terms: list[Term],
               bias: np.ndarray | None, anchor: TVal | None = None) -> int:
        """``out = bias + sum_t A_t x_t`` for packed ``x_t``, the result packed in the cheaper of
        row-major and anchored (``anchor``'s packing, or each output at the first input it reads)."""
        e_out = math.prod(shape)
        cands: list[np.ndarray] = []
        if anchor is not None:
            assert anchor.pos is not None
            cands.append(anchor.pos[:, :1])
        else:
            cands.append(_prefix(e_out))
            first = terms[0]
            assert first.x.pos is not None
            # when every output is written: the first input each output reads (counting, no sort:
            # a 4096 x 4096 matvec has 2^24 terms)
            outs, ins = first.outs, first.ins
            if outs.size and outs.min() >= 0 and outs.max() < e_out and np.all(np.bincount(outs, minlength=e_out)):
                first_in = np.full(e_out, np.iinfo(np.int64).max, dtype=np.int64)
                np.minimum.at(first_in, outs, ins)
                slots = first.x.pos[first_in, 0]
                if np.unique(slots).shape[0] == e_out and not np.array_equal(slots, np.arange(e_out)):
                    cands.append(slots[:, None])
        best: tuple[float, int, list[linmap.LinearMap]] | None = None
        for k, cand in enumerate(cands):
            maps = [self.linear_map(t.x, cand[t.outs, 0], t.ins, t.coef, cand[:, 0]) for t in terms]
            cost = sum(linmap.best_plan(m).rotations for m in maps if m.diags)
            if best is None or cost < best[0]:
                best = (cost, k, maps)
        assert best is not None
        folded = self.folded(terms, e_out)
        if folded is not None and folded[0] < best[0]:
            _, part_map, fold_map, pos = folded
            assert terms[0].x.node is not None
            z = self.b.linmap(terms[0].x.node, linmap.register(part_map))
            node: int | None = self.b.linmap(z, linmap.register(fold_map))
        else:
            pos = cands[best[1]]
            node = None
            for t, m in zip(terms, best[2], strict=True):
                if not m.diags:
                    continue
                assert t.x.node is not None
                part = self.b.linmap(t.x.node, linmap.register(m))
                node = part if node is None else self.b.add(node, part)
        if bias is not None and np.any(bias != 0):
            c = self.materialize(TVal(shape, elem, const=bias.reshape(shape)), pos)
            node = c if node is None else self.b.add(node, c)
        if node is None:
            return self.handle(TVal(shape, elem, const=np.zeros(shape, dtype=_dtype(elem))))
        return self.handle(TVal(shape, elem, node=node, pos=pos))

    def folded(self, terms: list[Term], e_out: int
               ) -> tuple[float, linmap.LinearMap, linmap.LinearMap, np.ndarray] | None:
        """A map onto fewer outputs than slots (``e_out`` dividing ``N``) as partial sums then a fold.

        Output ``o`` is accumulated in slots ``o + k * e_out``: each product ``A[o, j] x_j`` goes to
        the copy of ``o`` whose offset to ``x_j``'s slot is below ``e_out`` (so the partial map has
        at most ``e_out`` diagonals), then ``sum_k rho^(k * e_out)`` adds the copies -- and leaves
        the result replicated.  Returns (rotations, partial map, fold map, packing), or None."""
        n = self.n
        if len(terms) != 1 or e_out >= n or n % e_out:
            return None
        t = terms[0]
        assert t.x.pos is not None
        p = t.x.pos[t.ins, 0]
        o = t.outs
        slots = (o + e_out * (((p - o) % n) // e_out)) % n
        part = self.linear_map(t.x, slots, t.ins, t.coef, np.arange(n))
        copies = n // e_out
        fold = linmap.from_diagonals({k * e_out: 1 for k in range(copies)}, n)
        fold_rot = min(linmap.best_plan(fold).rotations,
                       copies.bit_length() - 1 if copies & (copies - 1) == 0 else copies - 1)
        pos = np.arange(e_out, dtype=np.int64)[:, None] + e_out * np.arange(copies, dtype=np.int64)[None, :]
        return linmap.best_plan(part).rotations + fold_rot, part, fold, pos

    def contraction(self, op: Operation, a: TVal, b: TVal | None, init: TVal,
                    outs: np.ndarray, ia: np.ndarray, ib: np.ndarray | None) -> None:
        """``init[o] += a[ia] * b[ib]`` over the iteration points (``b`` None: ``+= a[ia]``)."""
        shape, elem = init.shape, init.elem
        float_ = elem.startswith("f")
        bias = init.const.reshape(-1) if init.const is not None else None
        extra = [] if init.const is not None else [Term(init, np.arange(init.size), np.arange(init.size),
                                                        np.ones(init.size, dtype=np.int64))]
        if b is None or b.const is not None or a.const is not None:
            coef: np.ndarray
            xi: np.ndarray
            if b is None:
                x, coef, xi = a, np.ones(outs.shape[0], dtype=np.int64), ia
            elif b.const is not None and a.const is not None:
                vals = np.zeros(init.size, dtype=np.float64 if float_ else object)
                prods = a.const.reshape(-1)[ia].astype(vals.dtype) * b.const.reshape(-1)[ib].astype(vals.dtype)
                np.add.at(vals, outs, prods)
                total = vals + (bias if bias is not None else 0)
                if init.const is not None:
                    arr: np.ndarray = np.asarray(total, dtype=_dtype(elem)).reshape(shape)
                    self.bind(op, [self.handle(TVal(shape, elem, const=arr))])
                    return
                bias = np.asarray(vals, dtype=np.float64 if float_ else np.int64)
                self.bind(op, [self.linear(op, shape, elem, extra, bias)])
                return
            elif b.const is not None:
                x, coef, xi = a, b.const.reshape(-1)[ib], ia
            else:
                assert a.const is not None
                assert ib is not None
                x, coef, xi = b, a.const.reshape(-1)[ia], ib
            if x.const is None and x.pos is not None:
                keep = coef != 0
                terms = [Term(x, outs[keep], xi[keep], np.asarray(coef[keep])), *extra]
                self.bind(op, [self.linear(op, shape, elem, terms, bias)])
                return
        # two packed operands (or a plaintext argument as weight): scalar code
        if outs.shape[0] > MAX_UNROLLED_TERMS:
            raise self.fail(op, f"'{op.name}' of two non-constant operands would unroll into {outs.shape[0]} "
                                f"products (more than {MAX_UNROLLED_TERMS}); make the weight an arith.constant")
        accs = [self.element(init, e) for e in range(init.size)]
        assert b is not None and ib is not None
        for o, i, j in zip(outs.tolist(), ia.tolist(), ib.tolist(), strict=True):
            accs[o] = self.b.add(accs[o], self.b.mul(self.element(a, i), self.element(b, j)))
        self.bind(op, [self.pack_scalars(shape, elem, accs)])

    def pack_scalars(self, shape: tuple[int, ...], elem: str, scalars: list[int]) -> int:
        zero = self.b.const(0, Type((), elem, False))
        secret_ = any(self.b.type_of(x).secret for x in scalars)
        node = self.b.from_elements(scalars + [zero] * (self.n - len(scalars)), self.vec_type(elem, secret_))
        return self.handle(TVal(shape, elem, node=node, pos=_prefix(len(scalars))))

    def op_named(self, op: NamedOp) -> None:
        short = op.name.removeprefix("linalg.")
        ins = [self.env[id(v)] for v in op.inputs]
        if len(op.outputs) != 1 or len(op.res) != 1:
            raise self.fail(op, f"'{op.name}' must have one tensor output and one result")
        init = self.tval(op.outputs[0], op)
        shape, _ = self.result_tensor(op)
        if shape != init.shape:
            raise self.fail(op, f"'{op.name}' result shape {list(shape)} differs from its output {list(init.shape)}")
        if short == "fill":
            if len(op.inputs) != 1 or self.is_tensor(op.inputs[0]):
                raise self.fail(op, "linalg.fill takes one scalar input")
            self.bind(op, [self.fill(shape, init.elem, op.inputs[0], op)])
            return
        tins = [self.tval(v, op) for v in op.inputs]
        if short in ("add", "sub", "mul"):
            if len(tins) != 2:
                raise self.fail(op, f"'{op.name}' takes two inputs")
            self.bind(op, [self.elementwise(op, short, ins)])  # type: ignore[arg-type]
            return
        if short == "copy":
            self.bind(op, [ins[0]])  # type: ignore[list-item]
            return
        if short == "transpose":
            perm = op.int_list("permutation")
            (t,) = tins
            if perm is None or sorted(perm) != list(range(len(t.shape))):
                raise self.fail(op, "linalg.transpose needs a permutation of the input's dimensions")
            if tuple(t.shape[p] for p in perm) != shape:
                raise self.fail(op, f"transpose of {list(t.shape)} by {perm} is not {list(shape)}")
            idx = np.arange(t.size).reshape(t.shape).transpose(perm).reshape(-1)
            self.bind(op, [self.relabel(t, shape, idx)])
            return
        if len(tins) != 2:
            raise self.fail(op, f"'{op.name}' takes two inputs")
        a, b = tins
        outs, ia, ib = _contraction_indices(self, op, short, a.shape, b.shape, shape)
        self.contraction(op, a, None if short == "pooling_nchw_sum" else b, init, outs, ia,
                         None if short == "pooling_nchw_sum" else ib)

    # -- linalg.generic ------------------------------------------------------------------
    def op_linalg_generic(self, op: GenericOp) -> None:
        maps = [m.data for m in op.indexing_maps.data]
        iters = [str(it.data) for it in op.iterator_types.data]
        operands = [*op.inputs, *op.outputs]
        if len(maps) != len(operands):
            raise self.fail(op, f"linalg.generic has {len(operands)} operands but {len(maps)} indexing maps")
        block = op.body.blocks.first
        assert block is not None
        if len(block.args) != len(operands):
            raise self.fail(op, "linalg.generic block arguments do not match its operands")
        uses_index = any(isinstance(o, IndexOp) for o in block.ops)
        tensors = [v for v in operands if self.is_tensor(v)]
        rank = maps[0].num_dims
        ident = AffineMap.identity(rank)
        elementwise = (not uses_index and all(it.endswith("parallel") for it in iters)
                       and all(m == ident for m, v in zip(maps, operands, strict=True) if self.is_tensor(v))
                       and all(m.num_dims == rank and not m.results for m, v in zip(maps, operands, strict=True)
                               if not self.is_tensor(v)))
        if elementwise and tensors:
            data = [self.tval(v, op) for v in tensors if not self.tval(v, op).is_const]
            pos = data[0].pos if data else None
            for arg, v in zip(block.args, operands, strict=True):
                if self.is_tensor(v):
                    t = self.tval(v, op)
                    if pos is not None and t.pos is not None and not np.array_equal(t.pos, pos):
                        t = TVal(t.shape, t.elem, node=self.materialize(t, pos), pos=pos)
                    self.env[id(arg)] = self.handle(t)
                else:
                    self.env[id(arg)] = self.env[id(v)]
            results = self.run_block(block, op)
            out: list[int] = []
            for k, r in enumerate(results):
                shape, elem = self.result_tensor(op, k)
                if isinstance(r, int) and r < 0:
                    out.append(r)
                elif isinstance(r, int):
                    c = self.const_of_node(r)
                    if c is not None:
                        out.append(self.handle(TVal(shape, elem, const=np.full(shape, c))))
                    else:
                        node = self.b.splat(r, self.vec_type(elem, self.b.type_of(r).secret))
                        where = pos if pos is not None else _prefix(math.prod(shape))
                        out.append(self.handle(TVal(shape, elem, node=node, pos=where)))
                else:
                    raise self.fail(op, "linalg.generic yields an index")
            self.bind(op, out)
            return
        self.generic_unrolled(op, maps, operands, block)

    def const_of_node(self, i: int) -> Any:
        n = self.b.nodes[i]
        if n.op == "const" and not isinstance(n.attrs[0], tuple):
            return n.attrs[0]
        return None

    def generic_contraction(self, op: GenericOp, maps: list[AffineMap], operands: list[SSAValue],
                            shapes: list[tuple[int, ...]], dims: list[int], block: Block) -> bool:
        """A generic whose body is ``out + a * b`` (or ``out + a``) over tensors, with at most one
        packed operand -- a matvec, convolution or pooling written out -- lowered as the named ops
        are (one linear map); False when the body has another form."""
        body = [o for o in block.ops if o.name != "linalg.yield"]
        term = block.last_op
        if len(op.outputs) != 1 or term is None or len(term.operands) != 1 or not all(
                self.is_tensor(v) for v in operands):
            return False
        out_arg, in_args = block.args[-1], list(block.args[:-1])
        adds, muls = (arith.AddiOp, arith.AddfOp), (arith.MuliOp, arith.MulfOp)
        if len(body) == 2 and isinstance(body[0], muls) and isinstance(body[1], adds) and len(in_args) == 2:
            mul, add = body
            if set(mul.operands) != set(in_args) or mul.operands[0] == mul.operands[1]:
                return False
        elif len(body) == 1 and isinstance(body[0], adds) and len(in_args) == 1:
            mul, add = None, body[0]
        else:
            return False
        summand = mul.results[0] if mul is not None else in_args[0]
        if set(add.operands) != {summand, out_arg} or term.operands[0] != add.results[0]:
            return False
        if sum(1 for _ in out_arg.uses) != 1:
            return False
        points = list(itertools.product(*(range(d) for d in dims)))
        flat: list[np.ndarray] = []
        for m, shape in zip(maps, shapes, strict=True):
            idx = np.array([m.eval(list(p), []) for p in points], dtype=np.int64).reshape(len(points), len(shape))
            if np.any(idx < 0) or np.any(idx >= np.array(shape, dtype=np.int64)):
                raise self.fail(op, f"indexing map {m} reads outside shape {list(shape)}")
            flat.append(np.asarray(np.ravel_multi_index(tuple(idx.T), shape)) if shape
                        else np.zeros(len(points), np.int64))
        ts = [self.tval(v, op) for v in operands]
        init = ts[-1]
        if mul is None:
            self.contraction(op, ts[0], None, init, flat[-1], flat[0], None)
        else:
            self.contraction(op, ts[0], ts[1], init, flat[-1], flat[0], flat[1])
        return True

    def generic_unrolled(self, op: GenericOp, maps: list[AffineMap], operands: list[SSAValue], block: Block) -> None:
        rank = maps[0].num_dims
        sizes: list[int | None] = [None] * rank
        shapes: list[tuple[int, ...]] = []
        for m, v in zip(maps, operands, strict=True):
            if m.num_dims != rank or m.num_symbols:
                raise self.fail(op, "linalg.generic indexing maps must share their dimensions and have no symbols")
            shape = self.tval(v, op).shape if self.is_tensor(v) else ()
            if len(m.results) != len(shape):
                raise self.fail(op, f"indexing map {m} does not match an operand of shape {list(shape)}")
            shapes.append(shape)
            for expr, n in zip(m.results, shape, strict=True):
                if isinstance(expr, AffineDimExpr) and sizes[expr.position] is None:
                    sizes[expr.position] = n
        if any(s is None for s in sizes):
            raise self.fail(op, "linalg.generic: a loop dimension is not the size of any operand dimension")
        dims = [int(s) for s in sizes]  # type: ignore[arg-type]
        if math.prod(dims) > MAX_UNROLLED_TERMS:
            raise self.fail(op, f"linalg.generic of {math.prod(dims)} iterations is too large to unroll "
                                f"(at most {MAX_UNROLLED_TERMS}; an element-wise body is not unrolled)")
        n_in = len(op.inputs)
        if self.generic_contraction(op, maps, operands, shapes, dims, block):
            return
        outs = [self.tval(v, op) for v in op.outputs]
        accs = [[self.element(t, e) for e in range(t.size)] for t in outs]
        for point in itertools.product(*(range(d) for d in dims)):
            for k, (m, v, shape) in enumerate(zip(maps, operands, shapes, strict=True)):
                idx = m.eval(list(point), [])
                if any(not 0 <= i < n for i, n in zip(idx, shape, strict=True)):
                    raise self.fail(op, f"indexing map {m} reads {list(idx)} outside shape {list(shape)}")
                e = int(np.ravel_multi_index(idx, shape)) if shape else 0
                if k < n_in:
                    self.env[id(block.args[k])] = (self.element(self.tval(v, op), e) if self.is_tensor(v)
                                                   else self.env[id(v)])
                else:
                    self.env[id(block.args[k])] = accs[k - n_in][e]
            for o in block.ops:
                if isinstance(o, IndexOp):
                    self.env[id(o.result)] = self.known_index(point[o.dim.value.data])
            results = self.run_block(block, op)
            for k, r in enumerate(results):
                m = maps[n_in + k]
                idx = m.eval(list(point), [])
                e = int(np.ravel_multi_index(idx, shapes[n_in + k])) if shapes[n_in + k] else 0
                accs[k][e] = self.node(r, op, "a yielded value")
        self.bind(op, [self.pack_scalars(t.shape, t.elem, acc) for t, acc in zip(outs, accs, strict=True)])

    def lower_op(self, op: Operation) -> None:
        if isinstance(op, IndexOp):
            if id(op.result) not in self.env:
                raise self.fail(op, "linalg.index outside an unrolled linalg.generic")
            return
        handler = _LINALG_HANDLERS.get(type(op))
        if handler is not None:
            handler(self, op)
            return
        if isinstance(op, NamedOp):
            self.op_named(op)
            return
        super().lower_op(op)

    def is_terminator(self, op: Operation) -> bool:
        from xdsl.dialects.linalg.ops import YieldOp as LinalgYield

        return isinstance(op, LinalgYield) or super().is_terminator(op)

    def is_inert(self, op: Operation) -> bool:
        return isinstance(op, IndexOp)  # bound by the unrolled generic around it


@dataclass(frozen=True, eq=False)
class Term:
    """``y[outs[i]] += coef[i] * x[ins[i]]`` (element indices)."""

    x: TVal
    outs: np.ndarray
    ins: np.ndarray
    coef: np.ndarray


def _dtype(elem: str) -> type:
    return np.float64 if elem.startswith("f") else np.int64


def _fold(kind: str, arrs: Sequence[Any]) -> np.ndarray | None:
    if kind == "add":
        return np.asarray(arrs[0] + arrs[1])
    if kind == "sub":
        return np.asarray(arrs[0] - arrs[1])
    if kind == "mul":
        return np.asarray(arrs[0] * arrs[1])
    if kind == "neg":
        return np.asarray(-arrs[0])
    return None


def _unique_below(a: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(a, return_inverse=True)`` for integers in ``[0, n)``, by counting (linear time)."""
    a = np.asarray(a, dtype=np.int64).reshape(-1)
    present = np.bincount(a, minlength=n) > 0
    uniq = np.flatnonzero(present)
    rank = np.zeros(max(n, 1), dtype=np.int64)
    rank[uniq] = np.arange(uniq.shape[0])
    return uniq, rank[a]


def _grid(*sizes: int) -> list[np.ndarray]:
    return [g.reshape(-1) for g in np.meshgrid(*(np.arange(s) for s in sizes), indexing="ij")]


def _contraction_indices(low: LinalgLowering, op: NamedOp, short: str, sa: tuple[int, ...], sb: tuple[int, ...],
                         so: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per iteration point, the flat (output, a, b) element indices of a named contraction."""

    def need(cond: bool, what: str) -> None:
        if not cond:
            raise low.fail(op, f"'{op.name}' shapes {list(sa)}, {list(sb)} -> {list(so)}: {what}")

    def rav(idx: Sequence[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
        return np.ravel_multi_index(tuple(idx), shape) if shape else np.zeros_like(idx[0] if idx else np.zeros(1, int))

    strides = op.int_list("strides") or [1, 1]
    dil = op.int_list("dilations") or [1, 1]
    if short == "matvec":
        need(len(sa) == 2 and sb == (sa[1],) and so == (sa[0],), "expected MxK, K -> M")
        i, k = _grid(sa[0], sa[1])
        return i, rav([i, k], sa), k
    if short == "vecmat":
        need(len(sb) == 2 and sa == (sb[0],) and so == (sb[1],), "expected K, KxN -> N")
        k, j = _grid(sb[0], sb[1])
        return j, k, rav([k, j], sb)
    if short == "dot":
        need(len(sa) == 1 and sa == sb and so in ((), (1,)), "expected K, K -> scalar")
        (k,) = _grid(sa[0])
        return np.zeros_like(k), k, k
    if short == "matmul":
        need(len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0] and so == (sa[0], sb[1]), "expected MxK, KxN -> MxN")
        i, j, k = _grid(sa[0], sb[1], sa[1])
        return rav([i, j], so), rav([i, k], sa), rav([k, j], sb)
    if short == "conv_1d":
        need(len(sa) == 1 and len(sb) == 1 and so == (sa[0] - sb[0] + 1,), "expected W, K -> W-K+1")
        o, k = _grid(so[0], sb[0])
        return o, o + k, k
    if short == "conv_2d":
        need(len(sa) == 2 and len(sb) == 2 and so == (sa[0] - sb[0] + 1, sa[1] - sb[1] + 1),
             "expected HxW, KHxKW -> (H-KH+1)x(W-KW+1)")
        i, j, p, q = _grid(so[0], so[1], sb[0], sb[1])
        return rav([i, j], so), rav([i + p, j + q], sa), rav([p, q], sb)
    if short in ("conv_2d_nchw_fchw", "conv_2d_nhwc_hwcf", "pooling_nchw_sum"):
        need(len(sa) == 4 and len(sb) in (2, 4) and len(so) == 4, "expected 4-D input and output")
        need(len(strides) == 2 and len(dil) == 2, "strides and dilations need two values")
        if sa[0] != 1:
            raise low.fail(op, f"'{op.name}' with batch {sa[0]} is not supported (batch 1 only)")
        (sh, sw), (dh, dw) = strides, dil
        if short == "pooling_nchw_sum":
            need(len(sb) == 2, "the window is a 2-D tensor")
            kh, kw = sb
            c_, oh, ow = so[1], so[2], so[3]
            need(sa[1] == c_ and so[0] == 1, "channels must match")
            need((oh - 1) * sh + (kh - 1) * dh < sa[2] and (ow - 1) * sw + (kw - 1) * dw < sa[3], "window out of range")
            c, i, j, p, q = _grid(c_, oh, ow, kh, kw)
            z = np.zeros_like(c)
            return rav([z, c, i, j], so), rav([z, c, i * sh + p * dh, j * sw + q * dw], sa), rav([p, q], sb)
        need(len(sb) == 4, "the filter is 4-D")
        if short == "conv_2d_nchw_fchw":
            _, cin, hh, ww = sa
            f_, cf, kh, kw = sb
            oh, ow = so[2], so[3]
            need(cf == cin and so[:2] == (1, f_), "channels must match")
        else:
            _, hh, ww, cin = sa
            kh, kw, cf, f_ = sb
            oh, ow = so[1], so[2]
            need(cf == cin and so[0] == 1 and so[3] == f_, "channels must match")
        need((oh - 1) * sh + (kh - 1) * dh < hh and (ow - 1) * sw + (kw - 1) * dw < ww, "window out of range")
        f, i, j, c, p, q = _grid(f_, oh, ow, cin, kh, kw)
        z = np.zeros_like(f)
        y, x = i * sh + p * dh, j * sw + q * dw
        if short == "conv_2d_nchw_fchw":
            return rav([z, f, i, j], so), rav([z, c, y, x], sa), rav([f, c, p, q], sb)
        return rav([z, i, j, f], so), rav([z, y, x, c], sa), rav([p, q, c, f], sb)
    raise low.fail(op, f"unsupported operation '{op.name}'")


_LINALG_HANDLERS: dict[type[Operation], Any] = {
    arith.ConstantOp: LinalgLowering.op_constant,
    tensor.ExtractOp: LinalgLowering.op_extract,
    tensor.InsertOp: LinalgLowering.op_insert,
    tensor.FromElementsOp: LinalgLowering.op_from_elements,
    tensor.SplatOp: LinalgLowering.op_splat,
    tensor.EmptyOp: LinalgLowering.op_empty,
    tensor.CollapseShapeOp: LinalgLowering.op_reshape,
    tensor.ExpandShapeOp: LinalgLowering.op_reshape,
    tensor.ExtractSliceOp: LinalgLowering.op_extract_slice,
    tensor.InsertSliceOp: LinalgLowering.op_insert_slice,
    tensor_ext.RotateOp: LinalgLowering.op_rotate,
    arith.NegfOp: LinalgLowering.op_negf,
    mgmt.ModreduceOp: LinalgLowering.op_modreduce,
    GenericOp: LinalgLowering.op_linalg_generic,
}
for _cls in [*_INT_BINARY, *_FLOAT_BINARY]:
    _LINALG_HANDLERS[_cls] = LinalgLowering.op_arith_binary
for _cls in _MGMT:
    _LINALG_HANDLERS[_cls] = LinalgLowering.op_mgmt
