"""Lowering: a parsed xDSL module -> one ``eqsat.ir.Program`` per ``func.func``.

In: a ``ParsedModule`` (see ``front.py``).  Out: ``Program`` objects, in source order.

The lowering is an abstract interpreter over the xDSL IR.  Every SSA value maps to
either an ``Index`` (a compile-time ``index`` value: constants, loop induction
variables and everything folded from them) or an IR node id.  ``affine.for`` and
``scf.for`` loops are fully unrolled: bounds (affine maps over constant operands, or
constant operands) and the step must be compile-time constants; ``iter_args`` are
threaded through the iterations and the final values bind the loop results.  Index
arithmetic (``arith.addi/subi/muli/divui/divsi/remui/remsi/...`` on ``index``,
``affine.apply``) is folded to Python ints; ``remui`` is the non-negative remainder
(what HEIR's wrap-around indexing means).  ``tensor.extract`` of a plaintext constant
tensor folds to the constant.

Secrecy: in ``plain`` style (no ``secret``/``noisy`` constructs) every function
argument is secret; in ``secret`` style the ``!secret.secret<T>`` arguments are; in
``noisy`` style the ``!noisy.i32`` arguments are and ``noisy.encode`` makes new ones.
``arith.constant`` values are always plaintext.  Anything outside the subset raises
``MLIRError`` at the offending operation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from eqsat.frontend.mlir.dialects import mgmt, noisy, secret, tensor_ext
from eqsat.frontend.mlir.errors import MLIRError
from eqsat.frontend.mlir.parse import ParsedModule
from eqsat.interp import constant_values, fits
from eqsat.ir import Builder, IRError, Program, Type

if TYPE_CHECKING:  # loaded with their dialects, when the input uses them (``dialects.LAZY_DIALECTS``)
    from xdsl.dialects import affine, scf

MAX_UNROLLED_OPS = 2_000_000
"""Upper bound on operations executed while unrolling one function (guards blow-ups)."""

NOISY_ELEM = "i5"
"""Element type of a ``!noisy.i32`` function argument (the article's 5-bit messages)."""


@dataclass(frozen=True, slots=True)
class Index:
    """A compile-time ``index`` value (``known``) or an unknown one (a function argument)."""

    value: int
    known: bool = True


Value = Index | int  # an Index, or an IR node id

_INT_BINARY: dict[type[Operation], str] = {arith.AddiOp: "add", arith.SubiOp: "sub", arith.MuliOp: "mul"}
_FLOAT_BINARY: dict[type[Operation], str] = {arith.AddfOp: "add", arith.SubfOp: "sub", arith.MulfOp: "mul"}
_NOISY_BINARY: dict[type[Operation], str] = {noisy.AddOp: "add", noisy.SubOp: "sub", noisy.MulOp: "mul"}
_MGMT: dict[type[Operation], str] = {
    mgmt.RelinearizeOp: "relinearize",
    mgmt.ModswitchOp: "modswitch",
    mgmt.RescaleOp: "rescale",
    mgmt.BootstrapOp: "bootstrap",
    noisy.ReduceNoiseOp: "reduce_noise",
}


#: the largest tensor (elements) accepted: 2^20, 32 ciphertexts of N = 2^16 slots
MAX_SLOTS = 1 << 20


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_INDEX_FOLD: dict[type[Operation], Callable[[int, int], int]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.RemUIOp: lambda a, b: a % abs(b),
    arith.RemSIOp: lambda a, b: a - b * _trunc_div(a, b),
    arith.DivUIOp: lambda a, b: a // b,
    arith.DivSIOp: _trunc_div,
    arith.FloorDivSIOp: lambda a, b: a // b,
    arith.CeilDivSIOp: lambda a, b: -((-a) // b),
    arith.CeilDivUIOp: lambda a, b: -((-a) // b),
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
    arith.MinUIOp: min,
    arith.MaxUIOp: max,
}
_DIVIDES = (
    arith.RemUIOp,
    arith.RemSIOp,
    arith.DivUIOp,
    arith.DivSIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
)


FUNCTION_LOWERINGS: list[tuple[Callable[[func.FuncOp], bool], Any]] = []
"""(predicate, lowering class) pairs a function is lowered with when its predicate holds
(``linalg_lower`` registers tensor programs); the others use ``_FunctionLowering``."""


def lower_module(parsed: ParsedModule) -> list[Program]:
    """Lower every function of the module; see the module docstring."""
    module = parsed.module
    programs: list[Program] = []
    for op in _top_level_ops(module):
        if isinstance(op, func.FuncOp):
            if not op.body.blocks:
                continue  # a declaration (``func.func private @f(...)``) has nothing to lower
            lowering = next((cls for wants, cls in FUNCTION_LOWERINGS if wants(op)), _FunctionLowering)
            programs.append(lowering(parsed, op).run())
            continue
        raise parsed.error(op, f"unsupported top-level operation '{op.name}' (expected func.func)")
    if not programs:
        raise MLIRError(parsed.path, 1, 1, "no func.func with a body in the input")
    return programs


def _top_level_ops(module: ModuleOp) -> list[Operation]:
    ops = list(module.ops)
    if len(ops) == 1 and isinstance(ops[0], ModuleOp):
        return list(ops[0].ops)
    out: list[Operation] = []
    for op in ops:
        out.extend(op.ops if isinstance(op, ModuleOp) else [op])
    return out


def detect_style(fn: func.FuncOp) -> str:
    """``"noisy"``, ``"secret"`` or ``"plain"``, from the constructs the function uses."""
    types = list(fn.function_type.inputs) + list(fn.function_type.outputs)
    ops = list(fn.walk())
    if any(o.name.startswith("noisy.") for o in ops) or any(isinstance(t, noisy.NoisyI32Type) for t in types):
        return "noisy"
    if any(isinstance(o, secret.GenericOp) for o in ops) or any(
        isinstance(t, secret.SecretType) for t in types
    ):
        return "secret"
    return "plain"


class _FunctionLowering:
    """Lowers one ``func.func`` (see the module docstring)."""

    def __init__(self, parsed: ParsedModule, fn: func.FuncOp) -> None:
        self.parsed = parsed
        self.fn = fn
        self.style = detect_style(fn)
        self.b = Builder(fn.sym_name.data, style=self.style)
        #: each SSA value's value, by the id of its xDSL object (an xDSL value hashes by a
        #: Python-level ``__hash__``: keyed by the value itself, an unrolled loop spent a tenth
        #: of its lowering hashing); the module holds every object, so an id is never reused
        self.env: dict[int, Value] = {}
        self.steps = 0
        self.const_cache: dict[int, tuple[int, ...] | None] = {}
        #: per block (by id): its operations with how each is run (``_plan``); an unrolled loop
        #: body runs once per trip and reads its ops' xDSL properties once
        self.plans: dict[int, list[tuple[Operation, int, Any]]] = {}
        #: per ``affine.for`` (by id): its bound maps and operands, step, body and initial values
        self.loops: dict[int, tuple[Any, ...]] = {}
        #: known index values by value, each made once (``known_index``)
        self.indices: dict[int, Index] = {}

    def fail(self, op: Operation, message: str) -> MLIRError:
        return self.parsed.error(op, message)

    # -- entry -----------------------------------------------------------------
    def run(self) -> Program:
        entry = self.fn.body.blocks.first
        assert entry is not None
        index_args: list[str] = []
        for i, arg in enumerate(entry.args):
            name = arg.name_hint or f"arg{i}"
            if isinstance(arg.type, IndexType):
                self.env[id(arg)] = Index(0, known=False)
                index_args.append(name)
                continue
            ty = self.convert_type(arg.type, self.fn, self.arg_is_secret(arg.type))
            try:
                self.env[id(arg)] = self.b.arg(name, ty)
            except IRError as exc:
                raise self.fail(self.fn, str(exc)) from None
        if len(self.fn.body.blocks) != 1:
            raise self.fail(self.fn, "functions with more than one block are not supported")
        results = self.run_block(entry, self.fn)
        if index_args:
            raise self.fail(
                self.fn,
                f"index-typed function argument '%{index_args[0]}' is not supported "
                "(loop bounds and indices must be compile-time constants)",
            )
        ret = entry.last_op
        assert ret is not None
        node_results = [self.node(v, ret, "a returned value") for v in results]
        self.b.meta["source"] = self.parsed.path
        from eqsat.frontend.mlir.layout_attrs import read_layouts

        lays = read_layouts(self.fn, [n for n, _ in self.b.args])
        if lays is not None:
            self.b.meta["layouts"] = lays
        return self.b.finish(node_results)

    def arg_is_secret(self, ty: Attribute) -> bool:
        if self.style == "plain":
            return True
        return isinstance(ty, secret.SecretType | noisy.NoisyI32Type)

    # -- types -----------------------------------------------------------------
    def convert_type(self, ty: Attribute, op: Operation, is_secret: bool) -> Type:
        """The IR type of an MLIR type, or MLIRError for anything outside the subset."""
        if isinstance(ty, secret.SecretType):
            return self.convert_type(ty.value_type, op, True)
        if isinstance(ty, noisy.NoisyI32Type):
            return Type((), NOISY_ELEM, True)
        if isinstance(ty, TensorType):
            shape = tuple(ty.get_shape())
            if not shape:
                raise self.fail(op, f"rank-0 tensor type '{ty}' is not supported")
            if any(d < 1 for d in shape):
                raise self.fail(op, f"tensor type '{ty}' must have a static, non-empty shape")
            slots = math.prod(shape)
            if slots > MAX_SLOTS:
                # refuse before anything is unrolled or allocated: every value of this type
                # is a cleartext vector in the checks and ceil(slots / 2^15) ciphertexts
                gib = slots * 8 / 2**30
                raise self.fail(
                    op, f"tensor type '{ty}' has {slots} elements, more than the {MAX_SLOTS} supported "
                    f"(about {gib:.1f} GiB per value in the cleartext checks alone)")
            return Type(shape, self.elem_type(ty.get_element_type(), op), is_secret)
        return Type((), self.elem_type(ty, op), is_secret)

    def elem_type(self, ty: Attribute, op: Operation) -> str:
        if isinstance(ty, IntegerType):
            return f"i{ty.width.data}"
        if isinstance(ty, AnyFloat) and ty.name in ("f16", "f32", "f64"):
            return ty.name
        raise self.fail(op, f"unsupported type '{ty}' (expected iN, f16/f32/f64, or a static tensor of them)")

    # -- values ----------------------------------------------------------------
    def node(self, v: SSAValue | Value, op: Operation, what: str = "an operand") -> int:
        val = self.env[id(v)] if isinstance(v, SSAValue) else v
        if isinstance(val, Index):
            raise self.fail(op, f"{what} of '{op.name}' is an index, not data")
        return val

    def index(self, v: SSAValue, op: Operation, what: str = "index") -> int:
        val = self.env[id(v)]
        if not isinstance(val, Index):
            raise self.fail(op, f"{what} of '{op.name}' is not an index")
        if not val.known:
            raise self.fail(op, f"{what} of '{op.name}' is not a compile-time constant")
        return val.value

    # -- blocks ----------------------------------------------------------------
    def is_terminator(self, op: Operation) -> bool:
        """Whether ``op`` ends a block and hands its operands back (``run_block``)."""
        return isinstance(op, func.ReturnOp | secret.YieldOp) or op.name in _LAZY_TERMINATORS

    def is_inert(self, op: Operation) -> bool:
        """Whether ``run_block`` passes over ``op`` (a lowering may bind its value elsewhere)."""
        return False

    def _plan(self, block: Block) -> list[tuple[Operation, int, Any]]:
        """``block``'s operations that run (not inert), each with how: ``_TERMINATOR`` (the ids
        of its operands, in order), ``_INDEX_BINARY`` (folded index arithmetic), or ``_LOWER``
        with the handler (``handler(self, op)``), None when the op is unsupported."""
        plan = self.plans.get(id(block))
        if plan is None:
            custom = type(self).lower_op is not _FunctionLowering.lower_op
            plan = []
            for op in block.ops:
                if self.is_inert(op):
                    continue
                if self.is_terminator(op):
                    plan.append((op, _TERMINATOR, tuple(id(v) for v in op.operands)))
                elif type(op) in _INDEX_FOLD and isinstance(op.results[0].type, IndexType):
                    lhs, rhs = op.operands
                    plan.append((op, _INDEX_BINARY, (id(lhs), id(rhs), id(op.results[0]), _INDEX_FOLD[type(op)],
                                                      isinstance(op, _DIVIDES))))
                elif not custom and type(op) in _DATA_BINARY and not isinstance(op.results[0].type, IndexType):
                    lhs, rhs = op.operands
                    plan.append((op, _DATA_BINARY_OP, (id(lhs), id(rhs), id(op.results[0]), _DATA_BINARY[type(op)],
                                                        isinstance(op, noisy.SubOp))))
                elif not custom and isinstance(op, tensor.ExtractOp):
                    plan.append((op, _EXTRACT, (id(op.tensor), tuple(id(v) for v in op.indices), id(op.result))))
                elif not custom and isinstance(op, tensor.InsertOp):
                    plan.append((op, _INSERT, (id(op.dest), id(op.scalar), tuple(id(v) for v in op.indices),
                                               id(op.result))))
                else:
                    handler = (type(self).lower_op if custom
                               else _HANDLERS.get(type(op)) or _LAZY_HANDLERS.get(op.name))
                    plan.append((op, _LOWER, handler))
            self.plans[id(block)] = plan
        return plan

    def run_block(self, block: Block, owner: Operation) -> list[Value]:
        """Execute ``block``'s operations; return the values of its terminator."""
        env = self.env
        known = self.indices
        nodes = self.b.nodes
        # the op count in a local, written back before a handler (which may run blocks itself)
        # and read again after it
        steps = self.steps
        for op, how, arg in self._plan(block):
            steps += 1
            if steps & 255 == 1:  # the clock every 256 ops, from the first
                self.parsed.check_deadline(op, "lower")
            if steps > MAX_UNROLLED_OPS:
                raise self.fail(op, f"unrolling exceeds {MAX_UNROLLED_OPS} operations")
            if how == _INDEX_BINARY:
                lhs, rhs, res, fold, divides = arg
                a, b = env[lhs], env[rhs]
                if type(a) is Index and type(b) is Index and a.known and b.known and not (divides and b.value == 0):
                    k = fold(a.value, b.value)
                    env[res] = known.get(k) or self.known_index(k)
                    continue
            elif how == _DATA_BINARY_OP:
                lhs, rhs, res, kind, noisy_sub = arg
                a, b = env[lhs], env[rhs]
                if type(a) is int and type(b) is int and not (kind == "sub" and not noisy_sub and self.is_zero(a)):
                    try:
                        i = self.b.binary(kind, a, b)
                    except IRError as exc:
                        raise self.fail(op, str(exc)) from None
                    # a secret value is never folded from constants: nothing to check
                    env[res] = i if nodes[i].type.secret else self.check_width(op, i)
                    continue
                arg = _HANDLERS[type(op)]
            elif how == _EXTRACT:
                src, indices, res = arg
                t = env[src]
                if type(t) is int:
                    flat = _flat_index(env, indices, nodes[t].type.shape)
                    if flat is not None:
                        try:
                            env[res] = self.fold_extract(t, flat)
                        except IRError as exc:
                            raise self.fail(op, str(exc)) from None
                        continue
                arg = _HANDLERS[type(op)]  # the general path, which reports what is wrong
            elif how == _INSERT:
                dest, scalar, indices, res = arg
                t, x = env[dest], env[scalar]
                if type(t) is int and type(x) is int:
                    flat = _flat_index(env, indices, nodes[t].type.shape)
                    if flat is not None:
                        try:
                            env[res] = self.b.insert(x, t, flat)
                        except IRError as exc:
                            raise self.fail(op, str(exc)) from None
                        continue
                arg = _HANDLERS[type(op)]  # the general path, which reports what is wrong
            elif how == _TERMINATOR:
                self.steps = steps
                return [env[v] for v in arg]
            elif arg is None:
                raise self.fail(op, f"unsupported operation '{op.name}'")
            self.steps = steps
            try:
                if how == _INDEX_BINARY:
                    self.op_arith_binary(op)  # the error it reports (an unknown or non-index operand, division by zero)
                else:
                    arg(self, op)
            except IRError as exc:
                raise self.fail(op, str(exc)) from None
            steps = self.steps
        raise self.fail(owner, f"the body of '{owner.name}' has no terminator")

    def known_index(self, k: int) -> Index:
        """The known index ``k``, made once per function: an unrolled loop computes the same few
        index values thousands of times (a frozen dataclass takes 0.4 us to make, a lookup 0.03;
        a tenth of lowering a 3x3 stencil over an 8x8 image)."""
        got = self.indices.get(k)
        if got is None:
            got = self.indices[k] = Index(k)
        return got

    def bind(self, op: Operation, values: Sequence[Value]) -> None:
        for res, val in zip(op.results, values, strict=True):
            self.env[id(res)] = val

    def lower_op(self, op: Operation) -> None:
        handler = _HANDLERS.get(type(op)) or _LAZY_HANDLERS.get(op.name)
        if handler is None:
            raise self.fail(op, f"unsupported operation '{op.name}'")
        handler(self, op)

    # -- arith -----------------------------------------------------------------
    def op_constant(self, op: arith.ConstantOp) -> None:
        attr, ty = op.value, op.result.type
        if isinstance(ty, IndexType):
            assert isinstance(attr, IntegerAttr)
            self.bind(op, [self.known_index(attr.value.data)])
            return
        irt = self.convert_type(ty, op, False)
        if isinstance(attr, IntegerAttr | FloatAttr):
            self.bind(op, [self.b.const(attr.value.data, irt)])
            return
        if isinstance(attr, DenseIntOrFPElementsAttr):
            pre = self.parsed.dense.get(op)  # read before parsing (big literals), else xDSL's values
            values = tuple(attr.get_values()) if pre is None else tuple(pre.reshape(-1).tolist())
            if not all(isinstance(x, int | float) for x in values):
                raise self.fail(op, "complex-valued constants are not supported")
            self.bind(op, [self.b.const(values, irt)])  # type: ignore[arg-type]
            return
        raise self.fail(op, f"unsupported constant attribute '{attr}'")

    def op_arith_binary(self, op: Operation) -> None:
        lhs, rhs = op.operands
        if isinstance(op.results[0].type, IndexType):
            a, b = self.index(lhs, op, "operand"), self.index(rhs, op, "operand")
            if isinstance(op, _DIVIDES) and b == 0:
                raise self.fail(op, "index division by zero")
            self.bind(op, [self.known_index(_INDEX_FOLD[type(op)](a, b))])
            return
        kind = _INT_BINARY.get(type(op)) or _FLOAT_BINARY.get(type(op)) or _NOISY_BINARY.get(type(op))
        if kind is None:
            raise self.fail(op, f"'{op.name}' is only supported on index values")
        a, b = self.node(lhs, op), self.node(rhs, op)
        if kind == "sub" and self.is_zero(a) and not isinstance(op, noisy.SubOp):
            self.bind(op, [self.check_width(op, self.b.neg(b))])
            return
        self.bind(op, [self.check_width(op, self.b.binary(kind, a, b))])

    def check_width(self, op: Operation, i: int) -> int:
        """``i``, after checking that a value folded from constants fits its declared width
        (the width is a promise; wrapping or not would change the meaning, see
        ``eqsat.interp``)."""
        vals = constant_values(self.b, i, self.const_cache)
        if vals:
            elem = self.b.nodes[i].type.elem
            bad = [v for v in vals if not fits(v, elem)]
            if bad:
                raise self.fail(
                    op, f"constant arithmetic gives {bad[0]}, which does not fit {elem}: the result would "
                    f"depend on wrapping at {elem[1:]} bits versus arithmetic mod t (widen the type)")
        return i

    def is_zero(self, i: int) -> bool:
        n = self.b.nodes[i]
        return n.op == "const" and not isinstance(n.attrs[0], tuple) and n.attrs[0] == 0

    def op_negf(self, op: arith.NegfOp) -> None:
        self.bind(op, [self.b.neg(self.node(op.operand, op))])

    def op_index_cast(self, op: Operation) -> None:
        (src,) = op.operands
        val = self.env[id(src)]
        if isinstance(op.results[0].type, IndexType):
            if isinstance(val, Index):
                self.bind(op, [val])
                return
            n = self.b.nodes[val]
            if n.op != "const" or isinstance(n.attrs[0], tuple) or n.type.secret:
                raise self.fail(op, "index_cast of a value that is not a compile-time constant")
            self.bind(op, [Index(int(n.attrs[0]))])  # type: ignore[call-overload]
            return
        k = self.index(src, op, "operand")
        self.bind(op, [self.b.const(k, self.convert_type(op.results[0].type, op, False))])

    # -- affine ----------------------------------------------------------------
    def op_apply(self, op: affine.ApplyOp) -> None:
        vals = [self.index(v, op, "operand") for v in op.mapOperands]
        m = op.map.data
        (res,) = m.eval(vals[: m.num_dims], vals[m.num_dims :])
        self.bind(op, [self.known_index(res)])

    def op_for(self, op: affine.ForOp) -> None:
        # an inner loop runs once per trip of the loops around it: its xDSL properties (each
        # read decodes the op's operand segments) are read once
        loop = self.loops.get(id(op))
        if loop is None:
            loop = (op.lowerBoundMap.data, op.upperBoundMap.data, tuple(op.lowerBoundOperands),
                    tuple(op.upperBoundOperands), op.step.value.data, op.body.block, tuple(op.inits))
            self.loops[id(op)] = loop
        lo_map, hi_map, lo_vals, hi_vals, step, block, inits = loop
        lo_ops = [self.bound(v, op) for v in lo_vals]
        hi_ops = [self.bound(v, op) for v in hi_vals]
        lo = max(lo_map.eval(lo_ops[: lo_map.num_dims], lo_ops[lo_map.num_dims :]))
        hi = min(hi_map.eval(hi_ops[: hi_map.num_dims], hi_ops[hi_map.num_dims :]))
        if step < 1:
            raise self.fail(op, f"loop step {step} must be positive")
        self.unroll(op, block, range(lo, hi, step), [self.env[id(v)] for v in inits])

    def op_scf_for(self, op: scf.ForOp) -> None:
        lo, hi, step = (self.bound(v, op) for v in (op.lb, op.ub, op.step))  # index or integer bounds
        if step < 1:
            raise self.fail(op, f"loop step {step} must be positive")
        self.unroll(op, op.body.block, range(lo, hi, step), [self.env[id(v)] for v in op.iter_args])

    def unroll(self, op: Operation, block: Block, trips: range, carried: list[Value]) -> None:
        """Run ``block`` once per value in ``trips``, threading the loop-carried values."""
        indvar, *iter_args = block.args
        for i in trips:
            self.env[id(indvar)] = self.known_index(i)
            for arg, val in zip(iter_args, carried, strict=True):
                self.env[id(arg)] = val
            carried = self.run_block(block, op)
        self.bind(op, carried)

    def bound(self, v: SSAValue, op: Operation) -> int:
        k = self.static_int(v)
        if k is None:
            raise self.fail(op, f"loop bound '%{v.name_hint or '?'}' is not a compile-time constant")
        return k

    def static_int(self, v: SSAValue) -> int | None:
        """The compile-time integer value of ``v`` (a known index or a plaintext int constant)."""
        val = self.env[id(v)]
        if isinstance(val, Index):
            return val.value if val.known else None
        n = self.b.nodes[val]
        if n.op == "const" and not n.type.secret and isinstance(n.attrs[0], int):
            return n.attrs[0]
        return None

    # -- tensor ----------------------------------------------------------------
    def flat_index(self, op: Operation, t: int, indices: Sequence[SSAValue]) -> int:
        ty = self.b.type_of(t)
        idx = [self.index(v, op) for v in indices]
        if len(idx) != len(ty.shape):
            raise self.fail(op, f"{len(idx)} indices for a rank-{len(ty.shape)} tensor")
        for k, n in zip(idx, ty.shape, strict=True):
            if not 0 <= k < n:
                raise self.fail(
                    op,
                    f"index {k} is out of range for dimension of size {n} "
                    f"(indices {idx} into tensor of shape {list(ty.shape)})",
                )
        flat = 0
        for k, n in zip(idx, ty.shape, strict=True):
            flat = flat * n + k
        return flat

    def op_extract(self, op: tensor.ExtractOp) -> None:
        t = self.node(op.tensor, op)
        i = self.flat_index(op, t, op.indices)
        self.bind(op, [self.fold_extract(t, i)])

    def fold_extract(self, t: int, i: int) -> int:
        """``extract`` of slot ``i``, folded when ``t`` is a plaintext constant tensor."""
        n = self.b.nodes[t]
        if n.type.secret:
            return self.b.extract(t, i)
        if n.op == "const":
            c = n.attrs[0]
            return self.b.const(c[i] if isinstance(c, tuple) else c, n.type.scalar())  # type: ignore[arg-type]
        if n.op == "from_elements":
            return n.args[i]
        if n.op == "splat":
            return n.args[0]
        return self.b.extract(t, i)

    def op_insert(self, op: tensor.InsertOp) -> None:
        t = self.node(op.dest, op)
        i = self.flat_index(op, t, op.indices)
        self.bind(op, [self.b.insert(self.node(op.scalar, op), t, i)])

    def op_from_elements(self, op: tensor.FromElementsOp) -> None:
        ty = self.convert_type(op.result.type, op, False)
        self.bind(op, [self.b.from_elements([self.node(v, op) for v in op.elements], ty)])

    def op_splat(self, op: tensor.SplatOp) -> None:
        if op.dynamicSizes:
            raise self.fail(op, "tensor.splat with dynamic sizes is not supported")
        ty = self.convert_type(op.result.type, op, False)
        self.bind(op, [self.b.splat(self.node(op.input, op), ty)])

    def op_empty(self, op: tensor.EmptyOp) -> None:
        if op.dynamic_sizes:
            raise self.fail(op, "tensor.empty with dynamic sizes is not supported")
        self.bind(op, [self.b.empty(self.convert_type(op.tensor.type, op, False))])

    def op_rotate(self, op: tensor_ext.RotateOp) -> None:
        t = self.node(op.tensor, op)
        shift = self.static_int(op.shift)
        if shift is None:
            raise self.fail(op, "shift of 'tensor_ext.rotate' is not a compile-time constant")
        self.bind(op, [self.b.rotate(t, shift)])

    # -- noisy, mgmt, secret ---------------------------------------------------
    def op_encode(self, op: noisy.EncodeOp) -> None:
        x = self.node(op.input, op)
        self.bind(op, [self.b.unary("encode", x) if not self.b.type_of(x).secret else x])

    def op_decode(self, op: noisy.DecodeOp) -> None:
        self.bind(op, [self.b.unary("decode", self.node(op.input, op))])

    def op_mgmt(self, op: Operation) -> None:
        self.bind(op, [self.b.unary(_MGMT[type(op)], self.node(op.operands[0], op))])

    def op_modreduce(self, op: mgmt.ModreduceOp) -> None:
        x = self.node(op.input, op)
        self.bind(op, [self.b.unary("rescale" if self.b.type_of(x).is_float else "modswitch", x)])

    def op_generic(self, op: secret.GenericOp) -> None:
        block = op.body.blocks.first
        if block is None or len(op.body.blocks) != 1:
            raise self.fail(op, "secret.generic must have exactly one block")
        if len(block.args) != len(op.inputs):
            raise self.fail(
                op, f"secret.generic has {len(op.inputs)} operands but {len(block.args)} block arguments"
            )
        for arg, val in zip(block.args, op.inputs, strict=True):
            self.env[id(arg)] = self.env[id(val)]
        results = self.run_block(block, op)
        if len(results) != len(op.outputs):
            raise self.fail(op, f"secret.generic yields {len(results)} values for {len(op.outputs)} results")
        self.bind(op, results)


_HANDLERS: dict[type[Operation], Callable[[Any, Any], None]] = {
    arith.ConstantOp: _FunctionLowering.op_constant,
    arith.NegfOp: _FunctionLowering.op_negf,
    arith.IndexCastOp: _FunctionLowering.op_index_cast,
    tensor.ExtractOp: _FunctionLowering.op_extract,
    tensor.InsertOp: _FunctionLowering.op_insert,
    tensor.FromElementsOp: _FunctionLowering.op_from_elements,
    tensor.SplatOp: _FunctionLowering.op_splat,
    tensor.EmptyOp: _FunctionLowering.op_empty,
    tensor_ext.RotateOp: _FunctionLowering.op_rotate,
    noisy.EncodeOp: _FunctionLowering.op_encode,
    noisy.DecodeOp: _FunctionLowering.op_decode,
    mgmt.ModreduceOp: _FunctionLowering.op_modreduce,
    secret.GenericOp: _FunctionLowering.op_generic,
}
#: the ops of the lazily loaded dialects, by name (their classes exist only once the input used them)
_LAZY_HANDLERS: dict[str, Callable[[Any, Any], None]] = {
    "affine.apply": _FunctionLowering.op_apply,
    "affine.for": _FunctionLowering.op_for,
    "scf.for": _FunctionLowering.op_scf_for,
}
_LAZY_TERMINATORS = frozenset({"affine.yield", "scf.yield"})
#: how ``run_block`` runs an op (``_FunctionLowering._plan``)
_LOWER, _TERMINATOR, _INDEX_BINARY, _DATA_BINARY_OP, _EXTRACT, _INSERT = 0, 1, 2, 3, 4, 5


def _flat_index(env: dict[int, Value], indices: tuple[int, ...], shape: tuple[int, ...]) -> int | None:
    """The flat slot that the known, in-range indices (value ids in ``env``) address in a tensor
    of ``shape``; None when one is not such an index (the general path reports it)."""
    if len(indices) != len(shape):
        return None
    flat = 0
    for v, n in zip(indices, shape, strict=True):
        k = env[v]
        if type(k) is not Index or not k.known or not 0 <= k.value < n:
            return None
        flat = flat * n + k.value
    return flat
#: the binary ops on data (not index) values, by class: their IR op
_DATA_BINARY: dict[type[Operation], str] = {**_INT_BINARY, **_FLOAT_BINARY, **_NOISY_BINARY}
for _cls in [*_INDEX_FOLD, *_FLOAT_BINARY, *_NOISY_BINARY]:
    _HANDLERS[_cls] = _FunctionLowering.op_arith_binary
for _cls in _MGMT:
    _HANDLERS[_cls] = _FunctionLowering.op_mgmt
