"""The program IR: a hash-consed SSA DAG shared by every stage of eqsat-fhe.

In: nothing (this module only defines data). Out: ``Type``, ``Node``, ``Program`` and
``Builder``, the exchange format between the MLIR frontend, the Python API, the
e-graph (``eqsat.egraph``), extraction, the noise checker, the cleartext interpreter
(``eqsat.interp``), the MLIR printer and the encrypted executor (``eqsat.backend``).

Semantics
---------
* A value has a ``Type``: a shape (``()`` for a scalar, ``(n,)`` or ``(r, c)`` for a
  tensor), an element type (``"i16"``, ``"f64"``, ...) and ``secret`` (ciphertext) or
  not (plaintext).  Tensors are flattened row-major into slot vectors of
  ``prod(shape)`` slots; a scalar is one slot.
* Element arithmetic is exact over the integers (or the reals for float types); a
  backend reduces modulo its plaintext modulus t.  Every rewrite we do is an identity
  of commutative rings, hence sound modulo any t.
* ``rotate`` by ``k`` rotates left over the flattened slots:
  ``result[i] = v[(i + k) mod n]`` (HEIR's ``tensor_ext.rotate``).

Ops (``Node.op``; ``args`` are node ids, ``attrs`` plain data)
--------------------------------------------------------------
=================  ==========  =========================================================
op                 args        attrs / meaning
=================  ==========  =========================================================
``input``          --          ``(name,)``: a function argument (secret unless typed
                               plaintext)
``const``          --          ``(value,)``: plaintext; ``int``/``float`` for a scalar or
                               splat, a tuple of numbers (flattened) for a dense tensor,
                               or a ``VecRef`` (a registered vector by handle: the
                               plaintext diagonals of a realized linear map)
``linmap``         v           ``(handle,)``: the linear slot map registered as ``handle``
                               (``eqsat.algebra.linmap``): ``sum_d D_d * rotate(v, d)``
                               with plaintext diagonals (a plaintext matrix times v, a
                               convolution); realized by the ``linmap`` rules
``encode``         x           plaintext -> ciphertext (``noisy.encode``), fresh noise
``decode``         x           ciphertext -> plaintext (``noisy.decode``)
``add sub mul``    a, b        element-wise; same shapes
``neg``            a           element-wise negation
``rotate``         v           ``(k,)``: rotate left by ``k`` (normalised to 0 <= k < n)
``extract``        v           ``(i,)``: slot ``i`` (flattened index) -> scalar
``insert``         s, v        ``(i,)``: ``v`` with slot ``i`` replaced by scalar ``s``
``from_elements``  s0..sn-1    a tensor whose slot ``j`` is ``s_j``
``splat``          s           a tensor with every slot ``s``
``empty``          --          a tensor of zeros (``tensor.empty``; contents undefined in
                               MLIR, zero here, a valid refinement)
``relinearize``    x           management ops: identity on the cleartext value
``modswitch``      x
``rescale``        x
``reduce_noise``   x
``bootstrap``      x
=================  ==========  =========================================================
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from eqsat.errors import EqsatError
from eqsat.fast_init import fast_init

Scalar = int | float


_C = TypeVar("_C")


@dataclass(frozen=True, slots=True)
class VecRef:
    """A dense plaintext vector held by handle (``eqsat.algebra.linmap.register_vector``):
    a 4096-slot diagonal stays one string in the IR, however many a program has."""

    handle: str

    def values(self) -> tuple[int | float, ...]:
        from eqsat.algebra.linmap import lookup_vector

        return tuple(lookup_vector(self.handle).tolist())

    def __len__(self) -> int:
        from eqsat.algebra.linmap import lookup_vector

        return int(lookup_vector(self.handle).shape[0])


ConstValue = int | float | tuple[int | float, ...] | VecRef

ARITH_OPS = frozenset({"add", "sub", "mul"})
MGMT_OPS = frozenset({"relinearize", "modswitch", "rescale", "reduce_noise", "bootstrap"})
UNARY_OPS = frozenset({"neg", "encode", "decode"}) | MGMT_OPS
ALL_OPS = (
    ARITH_OPS
    | UNARY_OPS
    | frozenset({"input", "const", "rotate", "extract", "insert", "from_elements", "splat", "empty", "linmap"})
)


class IRError(EqsatError, ValueError):
    """A program that is not well formed (wrong arity, shape or type)."""


@fast_init  # made per node by passes that change secrecy or shape (``eqsat.fast_init``)
@dataclass(frozen=True, slots=True)
class Type:
    """The type of an SSA value: shape, element type and secrecy."""

    shape: tuple[int, ...]
    elem: str
    secret: bool

    @property
    def slots(self) -> int:
        return math.prod(self.shape) if self.shape else 1

    @property
    def is_scalar(self) -> bool:
        return self.shape == ()

    @property
    def is_float(self) -> bool:
        return self.elem.startswith("f")

    def scalar(self) -> Type:
        return self if not self.shape else Type((), self.elem, self.secret)

    def with_secret(self, secret: bool) -> Type:
        # the type itself when it has that secrecy already (equal, and immutable): making a
        # frozen dataclass costs 0.4 us, and a built program asks this of most of its nodes
        return self if secret is self.secret else Type(self.shape, self.elem, secret)

    def __str__(self) -> str:
        body = self.elem if not self.shape else f"tensor<{'x'.join(map(str, self.shape))}x{self.elem}>"
        return f"secret<{body}>" if self.secret else body


@fast_init  # made by the thousand: every node of every program built (``eqsat.fast_init``)
@dataclass(frozen=True, slots=True)
class Node:
    """One operation; ``args`` index earlier nodes of the same program."""

    op: str
    args: tuple[int, ...]
    attrs: tuple[object, ...]
    type: Type


@dataclass
class Program:
    """A function: named arguments, a topologically ordered node list, results.

    ``style`` records how the source was written (``"plain"``: arguments are the
    secrets; ``"secret"``: HEIR's ``secret.generic`` wrapper; ``"noisy"``: the noisy
    dialect) so the printer writes the program back in the same dialects.
    """

    name: str
    args: list[tuple[str, Type]]
    nodes: list[Node]
    results: list[int]
    style: str = "plain"
    meta: dict[str, object] = field(default_factory=dict)

    def node(self, i: int) -> Node:
        return self.nodes[i]

    def live(self) -> list[int]:
        """Ids of the nodes reachable from the results, in topological order.

        Computed once per program and kept (a fresh list each call): a program is not changed
        after it is built, and the stages after saturation walk a big source a few dozen times
        (the key checks that the node list and the results are still the ones it was built for)."""
        return list(self.cached("live", self._live))

    def cached(self, name: str, compute: Callable[[], _C]) -> _C:
        """``compute()``, kept on this program under ``name`` (see ``live``): for whole-program
        passes whose answer depends on the program alone (op counts, depth, ``live``). The
        caller must not change what it gets back."""
        key = (id(self.nodes), len(self.nodes), tuple(self.results))
        memo = self.__dict__.setdefault("_cache", {})
        got = memo.get(name)
        if got is not None and got[0] == key:
            return got[1]  # type: ignore[no-any-return]
        value = compute()
        memo[name] = (key, value)
        return value

    def _live(self) -> list[int]:
        seen: set[int] = set()
        stack = list(self.results)
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            stack.extend(self.nodes[i].args)
        return sorted(seen)

    def uses(self) -> dict[int, int]:
        """How many live nodes (and results) use each live node."""
        count: dict[int, int] = {}
        for i in self.live():
            for a in self.nodes[i].args:
                count[a] = count.get(a, 0) + 1
        for r in self.results:
            count[r] = count.get(r, 0) + 1
        return count

    def result_types(self) -> list[Type]:
        return [self.nodes[r].type for r in self.results]

    def compact(self) -> Program:
        """A copy without dead nodes, ids renumbered (arguments kept in order)."""
        b = Builder.like(self)
        remap: dict[int, int] = {}
        for i in self.live():
            n = self.nodes[i]
            remap[i] = b.add_node(n.op, tuple(remap[a] for a in n.args), n.attrs, n.type)
        return b.finish([remap[r] for r in self.results])


class Builder:
    """Builds a ``Program`` node by node, hash-consing identical nodes.

    Every constructor checks arity and shapes and raises ``IRError`` on misuse, so a
    frontend can turn the message into a located diagnostic.
    """

    @classmethod
    def like(cls, prog: Program) -> Builder:
        """A builder for a rewrite of ``prog``: same name, style, metadata and arguments."""
        b = cls(prog.name, style=prog.style)
        b.meta.update(prog.meta)
        for name, ty in prog.args:
            b.arg(name, ty)
        return b

    def __init__(self, name: str = "main", style: str = "plain") -> None:
        self.name = name
        self.style = style
        self.nodes: list[Node] = []
        self.args: list[tuple[str, Type]] = []
        self.meta: dict[str, object] = {}
        #: each node's fields -> its index (hash-consing); a plain tuple with the type's fields
        #: in it, so a repeated node (an unrolled loop's extracts) costs no ``Node`` and no
        #: Python-level hash of one or of its ``Type`` (a dataclass: its ``__hash__`` is Python)
        self._memo: dict[tuple[str, tuple[int, ...], tuple[object, ...], tuple[int, ...], str, bool], int] = {}
        self._arg_ids: dict[str, int] = {}

    # -- generic -------------------------------------------------------------
    def add_node(self, op: str, args: tuple[int, ...], attrs: tuple[object, ...], ty: Type) -> int:
        if op not in ALL_OPS:
            raise IRError(f"unknown op '{op}'")
        key = (op, args, attrs, ty.shape, ty.elem, ty.secret)
        found = self._memo.get(key)
        if found is not None:
            return found
        self.nodes.append(Node(op, args, attrs, ty))
        idx = len(self.nodes) - 1
        self._memo[key] = idx
        return idx

    def type_of(self, i: int) -> Type:
        return self.nodes[i].type

    def finish(self, results: Sequence[int]) -> Program:
        return Program(self.name, list(self.args), list(self.nodes), list(results), self.style, dict(self.meta))

    # -- leaves --------------------------------------------------------------
    def arg(self, name: str, ty: Type) -> int:
        if name in self._arg_ids:
            raise IRError(f"duplicate argument name '{name}'")
        self.args.append((name, ty))
        idx = self.add_node("input", (), (name,), ty)
        self._arg_ids[name] = idx
        return idx

    def const(self, value: ConstValue, ty: Type) -> int:
        if ty.secret:
            raise IRError("constants are plaintext")
        if isinstance(value, VecRef):
            if len(value) != ty.slots:
                raise IRError(f"dense constant has {len(value)} values for {ty.slots} slots")
            return self.add_node("const", (), (value,), ty)
        if isinstance(value, tuple):
            if len(value) != ty.slots:
                raise IRError(f"dense constant has {len(value)} values for {ty.slots} slots")
            if len(set(value)) == 1:
                value = value[0]
        value = _norm_number(value, ty) if not isinstance(value, tuple) else tuple(_norm_number(v, ty) for v in value)
        return self.add_node("const", (), (value,), ty)

    def empty(self, ty: Type) -> int:
        return self.add_node("empty", (), (), ty.with_secret(False))

    # -- arithmetic ----------------------------------------------------------
    def binary(self, op: str, a: int, b: int) -> int:
        if op not in ARITH_OPS:
            raise IRError(f"'{op}' is not a binary arithmetic op")
        ta, tb = self.nodes[a].type, self.nodes[b].type
        if ta.shape != tb.shape:
            raise IRError(f"'{op}' operands have shapes {ta.shape} and {tb.shape}")
        return self.add_node(op, (a, b), (), ta.with_secret(ta.secret or tb.secret))

    def add(self, a: int, b: int) -> int:
        return self.binary("add", a, b)

    def sub(self, a: int, b: int) -> int:
        return self.binary("sub", a, b)

    def mul(self, a: int, b: int) -> int:
        return self.binary("mul", a, b)

    def neg(self, a: int) -> int:
        return self.add_node("neg", (a,), (), self.type_of(a))

    def unary(self, op: str, a: int) -> int:
        if op not in UNARY_OPS:
            raise IRError(f"'{op}' is not a unary op")
        ta = self.type_of(a)
        if op == "encode":
            return self.add_node(op, (a,), (), ta.with_secret(True))
        if op == "decode":
            return self.add_node(op, (a,), (), ta.with_secret(False))
        return self.add_node(op, (a,), (), ta)

    # -- slots ---------------------------------------------------------------
    def rotate(self, v: int, k: int) -> int:
        tv = self.type_of(v)
        if tv.is_scalar:
            raise IRError("rotate needs a tensor operand")
        k %= tv.slots
        if k == 0:
            return v
        return self.add_node("rotate", (v,), (k,), tv)

    def linmap(self, v: int, handle: str) -> int:
        """The registered linear map ``handle`` applied to ``v`` (same slot count)."""
        from eqsat.algebra.linmap import lookup

        tv = self.type_of(v)
        try:
            m = lookup(handle)
        except KeyError as e:
            raise IRError(str(e)) from None
        if tv.is_scalar or m.n != tv.slots:
            raise IRError(f"linear map of {m.n} slots applied to {tv}")
        ty = tv if not (m.is_float and not tv.is_float) else Type(tv.shape, "f64", tv.secret)
        return self.add_node("linmap", (v,), (handle,), ty)

    def extract(self, v: int, i: int) -> int:
        tv = self.type_of(v)
        if tv.is_scalar:
            raise IRError("extract needs a tensor operand")
        if not 0 <= i < tv.slots:
            raise IRError(f"index {i} out of range for {tv.slots} slots")
        return self.add_node("extract", (v,), (i,), tv.scalar())

    def insert(self, s: int, v: int, i: int) -> int:
        tv, ts = self.type_of(v), self.type_of(s)
        if tv.is_scalar or not ts.is_scalar:
            raise IRError("insert needs a scalar and a tensor")
        if not 0 <= i < tv.slots:
            raise IRError(f"index {i} out of range for {tv.slots} slots")
        return self.add_node("insert", (s, v), (i,), tv.with_secret(tv.secret or ts.secret))

    def from_elements(self, elems: Sequence[int], ty: Type) -> int:
        if len(elems) != ty.slots:
            raise IRError(f"from_elements has {len(elems)} elements for {ty.slots} slots")
        secret = any(self.type_of(e).secret for e in elems)
        for e in elems:
            if not self.type_of(e).is_scalar:
                raise IRError("from_elements takes scalars")
        return self.add_node("from_elements", tuple(elems), (), ty.with_secret(secret))

    def splat(self, s: int, ty: Type) -> int:
        ts = self.type_of(s)
        if not ts.is_scalar:
            raise IRError("splat takes a scalar")
        return self.add_node("splat", (s,), (), ty.with_secret(ts.secret))


def _norm_number(v: object, ty: Type) -> int | float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise IRError(f"constant {v!r} is not a number")
    if ty.is_float:
        return float(v)
    if isinstance(v, float):
        if not v.is_integer():
            raise IRError(f"integer constant {v!r} is not an integer")
        return int(v)
    return v


def has_mgmt(prog: Program) -> bool:
    """Whether a live node of ``prog`` is a management op (``MGMT_OPS``)."""
    return any(prog.nodes[i].op in MGMT_OPS for i in prog.live())


def op_counts(prog: Program) -> dict[str, int]:
    """Ciphertext-operation counts with DESIGN.md's vocabulary (absent = 0).

    Plaintext-only arithmetic is not counted.  ``mul`` is ciphertext x ciphertext,
    ``mul_plain``/``add_plain`` mix in a plaintext.  ``extract``/``insert`` count slot
    accesses still left; a scalar result read from slot 0 is free.  An unrealized
    ``linmap`` counts as its direct realization (one rotation per nonzero diagonal).  ``from_elements``
    counts as one ``insert`` per secret element, ``splat`` of a secret scalar as one.
    """
    return dict(prog.cached("op_counts", lambda: _op_counts(prog)))


def _op_counts(prog: Program) -> dict[str, int]:
    counts: dict[str, int] = {}

    def bump(name: str, k: int = 1) -> None:
        counts[name] = counts.get(name, 0) + k

    for i in prog.live():
        n = prog.nodes[i]
        if not n.type.secret and n.op not in ("decode",):
            continue
        argt = [prog.nodes[a].type for a in n.args]
        if n.op in ("add", "sub"):
            bump(n.op if all(t.secret for t in argt) else "add_plain")
        elif n.op == "mul":
            bump("mul" if all(t.secret for t in argt) else "mul_plain")
        elif n.op == "neg" or n.op == "rotate" or n.op in MGMT_OPS:
            bump(n.op)
        elif n.op == "extract":
            if n.attrs[0] != 0:  # slot 0 is where a scalar lives already
                bump("extract")
        elif n.op == "insert":
            bump("insert")
        elif n.op == "from_elements":
            bump("insert", sum(1 for t in argt if t.secret))
        elif n.op == "splat":
            bump("insert")
        elif n.op == "linmap":  # an unrealized map costs what its direct realization does
            from eqsat.algebra.linmap import lookup, plan_direct

            plan = plan_direct(lookup(str(n.attrs[0])))
            bump("rotate", plan.rotations)
            bump("mul_plain", plan.products)
            bump("add", max(plan.additions, 0))
    return {k: v for k, v in counts.items() if v}


def multiplicative_depth(prog: Program) -> int:
    """Longest chain of ciphertext x ciphertext multiplications to any result."""
    return prog.cached("depth", lambda: _multiplicative_depth(prog))


def _multiplicative_depth(prog: Program) -> int:
    depth: dict[int, int] = {}
    for i in prog.live():
        n = prog.nodes[i]
        d = max((depth[a] for a in n.args), default=0)
        if n.op == "mul" and all(prog.nodes[a].type.secret for a in n.args):
            d += 1
        if n.op in ("bootstrap",):
            d = 0
        depth[i] = d
    return max((depth[r] for r in prog.results), default=0)


def iter_ops(prog: Program) -> Iterable[tuple[int, Node]]:
    for i in prog.live():
        yield i, prog.nodes[i]
