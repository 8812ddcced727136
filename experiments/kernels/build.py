"""Writes the kernel suite's MLIR files from one small description per kernel.

In: the kernel definitions in ``experiments/kernels/defs.py`` (each a per-output template over
reads of the inputs at affine indices). Out: ``experiments/kernels/<kernel>/<style>.mlir`` for
every style a kernel lists, and nothing else (the manifest is written by hand beside them).

Run ``python -m experiments.kernels.build`` after editing ``defs.py``; the generated files
are committed, so the suite and its tests never run this module.

Styles (the ways people write the same kernel):
- ``unrolled``: straight-line ``tensor.extract`` / scalar ``arith`` / a ``tensor.insert``
  chain into ``tensor.empty`` (or one returned scalar), operands as the definition writes them.
- ``from_elements``: the same scalars collected by one ``tensor.from_elements``.
- ``swapped``: every commutative operation with its operands swapped (so sums fold to the
  right), and the insert chain written from the last slot to the first.
- ``loop``: ``affine.for`` nests over the output (and the reduction), indices computed with
  ``arith`` on ``index`` values, wrap-around reads by ``arith.remui``; 1-D row-major tensors.
- ``loop2d``: the same loops over 2-D tensors (``tensor<HxWxi16>``, two indices per access).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

# -- expressions -------------------------------------------------------------------------
# An expression is a tuple: ("r", input, index) | ("c", int) | (op, a, b) with op in
# add/sub/mul.  ``index`` is a tuple of per-dimension affine indices (Aff) while the template
# is symbolic, and a tuple of ints once the loop variables are bound.


@dataclass(frozen=True)
class Aff:
    """An affine index ``sum(coef * var) + const``, optionally reduced ``mod``."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0
    mod: int | None = None

    def __add__(self, other: Aff | int) -> Aff:
        if isinstance(other, int):
            return Aff(self.terms, self.const + other, None)
        merged: dict[str, int] = dict(self.terms)
        for v, c in other.terms:
            merged[v] = merged.get(v, 0) + c
        return Aff(tuple(sorted((v, c) for v, c in merged.items() if c)), self.const + other.const)

    def __mul__(self, k: int) -> Aff:
        return Aff(tuple((v, c * k) for v, c in self.terms), self.const * k)

    def wrap(self, n: int) -> Aff:
        return Aff(self.terms, self.const, n)

    def value(self, env: dict[str, int]) -> int:
        x = sum(c * env[v] for v, c in self.terms) + self.const
        return x % self.mod if self.mod else x


def var(name: str) -> Aff:
    return Aff(((name, 1),))


Expr = tuple


def add(a: Expr, b: Expr) -> Expr:
    return ("add", a, b)


def sub(a: Expr, b: Expr) -> Expr:
    return ("sub", a, b)


def mul(a: Expr, b: Expr) -> Expr:
    return ("mul", a, b)


def const(v: int) -> Expr:
    return ("c", v)


def total(xs: Sequence[Expr]) -> Expr:
    out = xs[0]
    for x in xs[1:]:
        out = add(out, x)
    return out


@dataclass
class Kernel:
    """One kernel: inputs (name -> shape), the output shape (``()`` for a scalar), the output
    loop variables, an optional reduction ``(var, extent)`` summed by ``add``, and ``body``,
    which maps a ``read(input, *index)`` callback and the variables to the template.
    ``pad`` says what a read outside an input means: "wrap" (indices mod the extent, written
    with ``remui`` in loops) or "zero" (the read is 0; loop styles cannot express it)."""

    name: str
    inputs: dict[str, tuple[int, ...]]
    out: tuple[int, ...]
    body: Callable[..., Expr]
    red: tuple[str, int] | None = None
    pad: str = "none"
    styles: list[str] = field(default_factory=lambda: ["unrolled", "from_elements", "swapped", "loop"])
    out_vars: tuple[str, ...] = ("i",)


# -- concrete evaluation (unrolled styles) ---------------------------------------------------


def _bound_read(k: Kernel, env: dict[str, int]) -> Callable[..., Expr]:
    def read(name: str, *idx: Aff) -> Expr:
        shape = k.inputs[name]
        xs = [a.value(env) for a in idx]
        if k.pad == "wrap":
            # wrap-around is on the flattened row-major index (a rotation of the packed vector)
            flat = 0
            for x, n in zip(xs, shape, strict=True):
                flat = flat * n + x
            flat %= math.prod(shape)
            xs = []
            for n in reversed(shape):
                xs.insert(0, flat % n)
                flat //= n
        elif any(not 0 <= x < n for x, n in zip(xs, shape, strict=True)):
            if k.pad == "zero":
                return const(0)
            raise ValueError(f"{k.name}: read {name}{idx} out of range")
        return ("r", name, tuple(xs))

    return read


def _points(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    pts: list[tuple[int, ...]] = [()]
    for n in shape:
        pts = [(*p, i) for p in pts for i in range(n)]
    return pts


def concrete_exprs(k: Kernel) -> list[Expr]:
    """The expression of every output element (one for a scalar output), row-major."""
    out = []
    for p in _points(k.out) if k.out else [()]:
        env = dict(zip(k.out_vars, p, strict=False))
        vs = {v: var(v) for v in k.out_vars}
        if k.red:
            rv, rn = k.red
            terms = []
            for r in range(rn):
                env2 = {**env, rv: r}
                terms.append(k.body(_bound_read(k, env2), {**vs, rv: var(rv)}))
            out.append(total(terms))
        else:
            e = k.body(_bound_read(k, env), vs)
            # a kernel whose slots share no template returns one expression per slot
            out.append(e[p[0]] if isinstance(e, list) else e)
    return out


def swap(e: Expr) -> Expr:
    if e[0] in ("add", "mul"):
        return (e[0], swap(e[2]), swap(e[1]))
    if e[0] == "sub":
        return ("sub", swap(e[1]), swap(e[2]))
    return e


# -- MLIR emission ------------------------------------------------------------------------


def _ty(shape: tuple[int, ...]) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xi16>" if shape else "i16"


class _Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n = 0
        self.consts: dict[tuple[str, int], str] = {}

    def fresh(self, hint: str) -> str:
        self.n += 1
        return f"%{hint}{self.n}"

    def emit(self, text: str, indent: int) -> None:
        self.lines.append("  " * indent + text)

    def cst(self, v: int, ty: str, indent: int) -> str:
        # constants are not shared across loop bodies (each scope gets its own)
        key = (ty, v)
        if indent == 1 and key in self.consts:
            return self.consts[key]
        name = self.fresh("c")
        self.emit(f"{name} = arith.constant {v} : {ty}", indent)
        if indent == 1:
            self.consts[key] = name
        return name

    def expr(
        self,
        e: Expr,
        tensors: dict[str, str],
        shapes: dict[str, tuple[int, ...]],
        idx_ssa: Callable[[object, int], str],
        indent: int,
        cache: dict[Expr, str],
    ) -> str:
        if e in cache:
            return cache[e]
        if e[0] == "c":
            out = self.cst(e[1], "i16", indent)
        elif e[0] == "r":
            name, idx = e[1], e[2]
            ids = [idx_ssa(x, indent) for x in idx]
            out = self.fresh(name)
            self.emit(f"{out} = tensor.extract {tensors[name]}[{', '.join(ids)}] : {_ty(shapes[name])}", indent)
        else:
            a = self.expr(e[1], tensors, shapes, idx_ssa, indent, cache)
            b = self.expr(e[2], tensors, shapes, idx_ssa, indent, cache)
            out = self.fresh("t")
            self.emit(f"{out} = arith.{e[0]}i {a}, {b} : i16", indent)
        cache[e] = out
        return out


def _flat_inputs(k: Kernel) -> dict[str, tuple[int, ...]]:
    return {n: (math.prod(s),) for n, s in k.inputs.items()}


def _flatten_expr(e: Expr, k: Kernel) -> Expr:
    if e[0] == "r":
        shape = k.inputs[e[1]]
        flat = 0
        for x, n in zip(e[2], shape, strict=True):
            flat = flat * n + x
        return ("r", e[1], (flat,))
    if e[0] == "c":
        return e
    return (e[0], _flatten_expr(e[1], k), _flatten_expr(e[2], k))


def _header(k: Kernel, shapes: dict[str, tuple[int, ...]], out_shape: tuple[int, ...]) -> str:
    args = ", ".join(f"%{n}: {_ty(s)}" for n, s in shapes.items())
    return f"func.func @{k.name}({args}) -> {_ty(out_shape)} {{"


def emit_straight(k: Kernel, style: str, two_d: bool = False) -> str:
    exprs = concrete_exprs(k)
    shapes = dict(k.inputs) if two_d else _flat_inputs(k)
    out_shape = k.out if two_d or not k.out else (math.prod(k.out),)
    if not two_d:
        exprs = [_flatten_expr(e, k) for e in exprs]
    if style == "swapped":
        exprs = [swap(e) for e in exprs]
    em = _Emitter()
    tensors = {n: f"%{n}" for n in shapes}

    def idx_ssa(x: object, indent: int) -> str:
        assert isinstance(x, int)
        return em.cst(x, "index", 1)

    em.emit(_header(k, shapes, out_shape), 0)
    cache: dict[Expr, str] = {}
    vals = [em.expr(e, tensors, shapes, idx_ssa, 1, cache) for e in exprs]
    if not k.out:
        em.emit(f"return {vals[0]} : i16", 1)
    elif style == "from_elements":
        res = em.fresh("out")
        em.emit(f"{res} = tensor.from_elements {', '.join(vals)} : {_ty(out_shape)}", 1)
        em.emit(f"return {res} : {_ty(out_shape)}", 1)
    else:
        cur = em.fresh("empty")
        em.emit(f"{cur} = tensor.empty() : {_ty(out_shape)}", 1)
        order = list(zip(_points(out_shape), vals, strict=True))
        if style == "swapped":
            order.reverse()
        for p, v in order:
            nxt = em.fresh("acc")
            ids = ", ".join(em.cst(x, "index", 1) for x in p)
            em.emit(f"{nxt} = tensor.insert {v} into {cur}[{ids}] : {_ty(out_shape)}", 1)
            cur = nxt
        em.emit(f"return {cur} : {_ty(out_shape)}", 1)
    em.emit("}", 0)
    return "\n".join(em.lines) + "\n"


def emit_loop(k: Kernel, two_d: bool = False) -> str:
    """Loops over the output (and reduction) with symbolic indices."""
    if k.pad == "zero":
        raise ValueError(f"{k.name}: zero padding has no loop style")
    shapes = dict(k.inputs) if two_d else _flat_inputs(k)
    out_shape = k.out if two_d or not k.out else (math.prod(k.out),)
    em = _Emitter()
    em.emit(_header(k, shapes, out_shape), 0)
    tensors = {n: f"%{n}" for n in shapes}
    loop_ssa: dict[str, str] = {}

    def aff_ssa(a: Aff, n: int | None, indent: int) -> str:
        acc: str | None = None
        for v, c in a.terms:
            t = loop_ssa[v]
            if c != 1:
                m = em.fresh("m")
                em.emit(f"{m} = arith.muli {t}, {em.cst(c, 'index', indent)} : index", indent)
                t = m
            if acc is None:
                acc = t
            else:
                s = em.fresh("s")
                em.emit(f"{s} = arith.addi {acc}, {t} : index", indent)
                acc = s
        if acc is None:
            acc = em.cst(a.const, "index", indent)
        elif a.const:
            s = em.fresh("s")
            # add the extent first so a negative offset stays non-negative under remui
            off = a.const + (n if (n and a.const < 0) else 0)
            em.emit(f"{s} = arith.addi {acc}, {em.cst(off, 'index', indent)} : index", indent)
            acc = s
        if n is not None:
            r = em.fresh("w")
            em.emit(f"{r} = arith.remui {acc}, {em.cst(n, 'index', indent)} : index", indent)
            acc = r
        return acc

    def read(name: str, *idx: Aff) -> Expr:
        shape = k.inputs[name]
        flat = Aff()
        for a, n in zip(idx, shape, strict=True):
            flat = flat * n + a
        wrap = k.pad == "wrap" and any(a.const for a in idx)
        return ("r", name, ((flat, wrap, shape),))

    def read_idx(x: object, indent: int) -> str:
        # one token per read: the flat row-major index, wrapped by remui when the stencil
        # reaches past the border; 2-D tensors split it back with divui / remui
        flat, wrap, shape = x  # type: ignore[misc]
        s = aff_ssa(flat, math.prod(shape) if wrap else None, indent)
        if not two_d:
            return s
        if len(shape) != 2:
            raise ValueError("loop2d needs 2-D inputs")
        r = em.fresh("row")
        c = em.fresh("col")
        em.emit(f"{r} = arith.divui {s}, {em.cst(shape[1], 'index', indent)} : index", indent)
        em.emit(f"{c} = arith.remui {s}, {em.cst(shape[1], 'index', indent)} : index", indent)
        return f"{r}, {c}"

    vs = {v: var(v) for v in k.out_vars}
    out_ty = _ty(out_shape)
    indent = 1
    cur = None
    if k.out:
        cur = em.fresh("empty")
        em.emit(f"{cur} = tensor.empty() : {out_ty}", indent)
    results: list[str] = []
    for d, v in enumerate(k.out_vars[: len(k.out)]):
        res = em.fresh("r")
        it = em.fresh("acc")
        loop_ssa[v] = f"%{v}"
        em.emit(f"{res} = affine.for %{v} = 0 to {k.out[d]} iter_args({it} = {cur}) -> ({out_ty}) {{", indent)
        results.append(res)
        cur = it
        indent += 1
    if k.red:
        rv, rn = k.red
        zero = em.cst(0, "i16", indent)
        red_res = em.fresh("sum")
        it = em.fresh("part")
        loop_ssa[rv] = f"%{rv}"
        em.emit(f"{red_res} = affine.for %{rv} = 0 to {rn} iter_args({it} = {zero}) -> (i16) {{", indent)
        e = k.body(read, {**vs, rv: var(rv)})
        v = em.expr(e, tensors, shapes, read_idx, indent + 1, {})
        nxt = em.fresh("t")
        em.emit(f"{nxt} = arith.addi {it}, {v} : i16", indent + 1)
        em.emit(f"affine.yield {nxt} : i16", indent + 1)
        em.emit("}", indent)
        value = red_res
    else:
        e = k.body(read, vs)
        value = em.expr(e, tensors, shapes, read_idx, indent, {})
    if not k.out:
        em.emit(f"return {value} : i16", 1)
    else:
        if two_d:
            ids = ", ".join(f"%{v}" for v in k.out_vars[: len(k.out)])
        else:
            flat = Aff()
            for v, n in zip(k.out_vars, k.out, strict=False):
                flat = flat * n + var(v)
            ids = aff_ssa(flat, None, indent)
        nxt = em.fresh("upd")
        em.emit(f"{nxt} = tensor.insert {value} into {cur}[{ids}] : {out_ty}", indent)
        val = nxt
        for d in reversed(range(len(k.out))):
            em.emit(f"affine.yield {val} : {out_ty}", indent)
            indent -= 1
            em.emit("}", indent)
            val = results[d]
        em.emit(f"return {results[0]} : {out_ty}", 1)
    em.emit("}", 0)
    return "\n".join(em.lines) + "\n"


def emit(k: Kernel, style: str) -> str:
    if style in ("unrolled", "from_elements", "swapped"):
        return emit_straight(k, style)
    if style in ("unrolled2d", "from_elements2d"):
        return emit_straight(k, style.removesuffix("2d"), two_d=True)
    if style == "loop":
        return emit_loop(k)
    if style == "loop2d":
        return emit_loop(k, two_d=True)
    raise ValueError(style)


def main() -> None:
    from experiments.kernels.defs import KERNELS

    for k in KERNELS:
        d = HERE / k.name
        d.mkdir(exist_ok=True)
        for style in k.styles:
            (d / f"{style}.mlir").write_text(emit(k, style))
    print(f"wrote {sum(len(k.styles) for k in KERNELS)} files for {len(KERNELS)} kernels")


if __name__ == "__main__":
    main()
