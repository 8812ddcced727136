"""Random programs as MLIR TEXT, each with its meaning computed independently in Python.

In: a seed (``random_text_program(seed)``; a kind and an element type may be forced).
Out: a ``TextProgram``: the MLIR text of one ``func.func`` in the accepted subset, the
scheme it is meant for, and ``reference(inputs)``, the function's results computed here
in plain Python (exact integers, float64 reals) without the frontend. The fuzzer parses
the text, compares the parsed program's cleartext evaluation with the reference (integers
mod t, floats within a tolerance) and then optimizes it, so the parser, the lowering
(loop unrolling, ``iter_args``, index folding, ``remui``, ``secret.generic``) and the
optimizer are all exercised.

Kinds:

* ``straight``: straight-line code over scalar and vector arguments: ``arith`` add, sub,
  mul, negation (``0 - x`` / ``arith.negf``), scalar and dense constants,
  ``tensor_ext.rotate``, ``tensor.extract``/``insert``/``from_elements``/``splat``, shared
  subexpressions and several results.
* ``reduce``: an ``affine.for`` (bounds, step) with one or two ``iter_args`` accumulators;
  the body reads ``x[i]`` and a shifted ``y[(i + k) remui n]`` and updates the accumulators
  by a random expression.
* ``stencil``: a 2-D (or 1-D) weighted stencil over a row-major image: nested
  ``affine.for`` loops carrying the output tensor in ``iter_args``, the neighbour index
  wrapped around the whole image, per dimension (``remui``), or read only on the interior
  (the border keeps the initial tensor); or unrolled with zero padding (out-of-image terms
  dropped) as ``tensor.from_elements`` or an insertion chain into a zero tensor.
* ``map``: an element-wise loop ``out[i] = f(x[i], y[i])`` inserted into the carried tensor.
* ``noisy`` (only when asked for: ``kind="noisy"``): the article's ``noisy`` dialect, scheme
  ``noisy``: ciphertext and plaintext ``i5`` arguments, ``noisy.encode`` of constants and
  plaintext values, ``noisy.add/sub/mul`` (also ``x - x``, ``x * x``), ``noisy.reduce_noise``,
  ``noisy.decode`` and plaintext ``arith`` on decoded values, ciphertext or decoded results.

Every kind is drawn over integers (``i16``/``i32``, scheme ``bgv`` or ``ckks``) or reals
(``f32``, scheme ``ckks``), optionally wrapped in HEIR's ``secret.generic`` with
``!secret.secret`` arguments (and then possibly a plaintext argument captured by the body).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

KINDS = ("straight", "reduce", "stencil", "map")
INT_CONSTS = (2, 3, 5, -1, -7, 9, 100)
FLOAT_CONSTS = (0.5, 1.5, -2.0, 3.0, 0.25, -1.0)

Num = int | float
Val = Num | list[Num]


@dataclass(frozen=True)
class TextProgram:
    """One generated function: its text, intended scheme, kind and Python reference."""

    name: str
    kind: str
    scheme: str
    text: str
    reference: Callable[[Mapping[str, object]], list[Val]] = field(repr=False, compare=False)


# -- expressions: one tree, evaluated here and emitted as MLIR --------------------------------------
@dataclass(eq=False)
class E:
    """A value: ``op`` in arg, const, add, sub, mul, neg, rot, ext, ins, from, splat."""

    op: str
    args: tuple[E, ...] = ()
    attr: object = None
    n: int = 0  # 0: a scalar, else the tensor width


def evaluate(e: E, env: Mapping[str, Val], memo: dict[int, Val] | None = None) -> Val:
    """The value of ``e`` with arguments from ``env`` (exact ints / floats, lists for tensors)."""
    memo = {} if memo is None else memo
    if id(e) in memo:
        return memo[id(e)]
    a = [evaluate(x, env, memo) for x in e.args]
    out: Val
    if e.op == "arg":
        out = env[str(e.attr)]
        if isinstance(out, list):
            out = list(out)
    elif e.op == "const":
        out = list(e.attr) if isinstance(e.attr, tuple) else e.attr  # type: ignore[assignment]
    elif e.op in ("add", "sub", "mul"):
        out = _zip(e.op, a[0], a[1], e.n)
    elif e.op == "neg":
        out = [-v for v in a[0]] if isinstance(a[0], list) else -a[0]
    elif e.op == "rot":
        v = a[0]
        assert isinstance(v, list) and isinstance(e.attr, int)
        out = [v[(i + e.attr) % e.n] for i in range(e.n)]
    elif e.op == "ext":
        assert isinstance(a[0], list) and isinstance(e.attr, int)
        out = a[0][e.attr]
    elif e.op == "ins":
        assert isinstance(a[1], list) and isinstance(e.attr, int) and not isinstance(a[0], list)
        out = list(a[1])
        out[e.attr] = a[0]
    elif e.op == "from":
        out = [x for x in a if not isinstance(x, list)]
    elif e.op == "splat":
        assert not isinstance(a[0], list)
        out = [a[0]] * e.n
    else:
        raise AssertionError(e.op)
    memo[id(e)] = out
    return out


def _reads(e: E, names: Sequence[str]) -> bool:
    """Whether ``e`` reads one of the arguments ``names``."""
    if e.op == "arg":
        return e.attr in names
    return any(_reads(a, names) for a in e.args)


def _zip(op: str, x: Val, y: Val, n: int) -> Val:
    f: Callable[[Num, Num], Num] = {"add": lambda p, q: p + q, "sub": lambda p, q: p - q,
                                    "mul": lambda p, q: p * q}[op]
    if n == 0:
        assert not isinstance(x, list) and not isinstance(y, list)
        return f(x, y)
    xs = x if isinstance(x, list) else [x] * n
    ys = y if isinstance(y, list) else [y] * n
    return [f(p, q) for p, q in zip(xs, ys, strict=True)]


class Emitter:
    """MLIR lines for expression trees, shared subexpressions printed once."""

    def __init__(self, elem: str) -> None:
        self.elem = elem
        self.is_float = elem.startswith("f")
        self.lines: list[str] = []
        self.index_consts: dict[int, str] = {}
        self.counter = 0
        self.names: dict[int, str] = {}

    def fresh(self, stem: str = "v") -> str:
        self.counter += 1
        return f"%{stem}{self.counter}"

    def ty(self, n: int) -> str:
        return self.elem if n == 0 else f"tensor<{n}x{self.elem}>"

    def idx(self, k: int) -> str:
        """An ``index`` constant (declared once, at the top of the function)."""
        if k not in self.index_consts:
            self.index_consts[k] = f"%c{k}" if k >= 0 else f"%cm{-k}"
        return self.index_consts[k]

    def lit(self, c: Num) -> str:
        return repr(float(c)) if self.is_float else str(int(c))

    def const(self, value: object, n: int, indent: str) -> str:
        name = self.fresh("k")
        if isinstance(value, tuple):
            body = f"dense<[{', '.join(self.lit(v) for v in value)}]>"
        elif n:
            body = f"dense<{self.lit(value)}>"  # type: ignore[arg-type]
        else:
            body = self.lit(value)  # type: ignore[arg-type]
        self.lines.append(f"{indent}{name} = arith.constant {body} : {self.ty(n)}")
        return name

    def binary(self, op: str, x: str, y: str, n: int, indent: str) -> str:
        name = self.fresh()
        mnem = {"add": "add", "sub": "sub", "mul": "mul"}[op] + ("f" if self.is_float else "i")
        self.lines.append(f"{indent}{name} = arith.{mnem} {x}, {y} : {self.ty(n)}")
        return name

    def emit(self, e: E, bound: Mapping[str, str], indent: str = "  ") -> str:
        """The SSA name holding ``e`` (``bound``: argument name -> SSA name)."""
        if e.op == "arg":
            return bound[str(e.attr)]
        if id(e) in self.names:
            return self.names[id(e)]
        a = [self.emit(x, bound, indent) for x in e.args]
        T = self.ty(e.n)
        if e.op == "const":
            name = self.const(e.attr, e.n, indent)
        elif e.op in ("add", "sub", "mul"):
            name = self.binary(e.op, a[0], a[1], e.n, indent)
        elif e.op == "neg":
            name = self.fresh()
            if self.is_float:
                self.lines.append(f"{indent}{name} = arith.negf {a[0]} : {T}")
            else:
                zero = self.const(0, e.n, indent)
                self.lines.append(f"{indent}{name} = arith.subi {zero}, {a[0]} : {T}")
        elif e.op == "rot":
            name = self.fresh()
            self.lines.append(f"{indent}{name} = tensor_ext.rotate {a[0]}, {self.idx(int(e.attr))} : {T}, index")  # type: ignore[call-overload]
        elif e.op == "ext":
            name = self.fresh()
            src_t = self.ty(e.args[0].n)
            self.lines.append(f"{indent}{name} = tensor.extract {a[0]}[{self.idx(int(e.attr))}] : {src_t}")  # type: ignore[call-overload]
        elif e.op == "ins":
            name = self.fresh()
            self.lines.append(f"{indent}{name} = tensor.insert {a[0]} into {a[1]}[{self.idx(int(e.attr))}] : {T}")  # type: ignore[call-overload]
        elif e.op == "from":
            name = self.fresh()
            self.lines.append(f"{indent}{name} = tensor.from_elements {', '.join(a)} : {T}")
        elif e.op == "splat":
            name = self.fresh()
            self.lines.append(f"{indent}{name} = tensor.splat {a[0]} : {T}")
        else:
            raise AssertionError(e.op)
        self.names[id(e)] = name
        return name

    def index_lines(self) -> list[str]:
        return [f"  {name} = arith.constant {k} : index" for k, name in sorted(self.index_consts.items())]


# -- the function around a body --------------------------------------------------------------------
@dataclass
class _Func:
    name: str
    args: list[tuple[str, int]]  # secret arguments: name, width (0 = scalar)
    plain_args: list[tuple[str, int]] = field(default_factory=list)  # plaintext (secret style only)


def _assemble(em: Emitter, fn: _Func, body: list[str], results: Sequence[tuple[str, int]], generic: bool) -> str:
    """The whole function: plain style, or the body inside one ``secret.generic``."""
    rtypes = [em.ty(n) for _, n in results]
    if not generic:
        sig = ", ".join(f"%{a}: {em.ty(n)}" for a, n in fn.args)
        rt = rtypes[0] if len(rtypes) == 1 else f"({', '.join(rtypes)})"
        out = [f"func.func @{fn.name}({sig}) -> {rt} {{", *em.index_lines(), *body,
               f"  return {', '.join(r for r, _ in results)} : {', '.join(rtypes)}", "}"]
        return "\n".join(out) + "\n"
    sec = [f"!secret.secret<{em.ty(n)}>" for _, n in fn.args]
    sig = ", ".join([f"%s_{a}: {t}" for (a, _), t in zip(fn.args, sec, strict=True)]
                    + [f"%{a}: {em.ty(n)}" for a, n in fn.plain_args])
    srt = [f"!secret.secret<{t}>" for t in rtypes]
    rt = srt[0] if len(srt) == 1 else f"({', '.join(srt)})"
    res = "%g" if len(results) == 1 else f"%g:{len(results)}"
    uses = ["%g"] if len(results) == 1 else [f"%g#{k}" for k in range(len(results))]
    ins = ", ".join(f"%s_{a}" for a, _ in fn.args)
    block = ", ".join(f"%{a}: {em.ty(n)}" for a, n in fn.args)
    out = [f"func.func @{fn.name}({sig}) -> {rt} {{", *em.index_lines(),
           f"  {res} = secret.generic ins({ins} : {', '.join(sec)}) {{", f"  ^bb0({block}):",
           *["  " + line for line in body],
           f"    secret.yield {', '.join(r for r, _ in results)} : {', '.join(rtypes)}",
           f"  }} -> {rt}", f"  return {', '.join(uses)} : {', '.join(srt)}", "}"]
    # the func's own names (%s_x) reach the body only through the block arguments
    return "\n".join(out) + "\n"


# -- random scalar/vector expressions ----------------------------------------------------------------
class _ExprGen:
    """Random expressions over a pool of values (all depending on a secret argument)."""

    def __init__(self, rng: random.Random, elem: str, max_depth: int = 3) -> None:
        self.rng = rng
        self.is_float = elem.startswith("f")
        self.consts = FLOAT_CONSTS if self.is_float else INT_CONSTS
        self.max_depth = max_depth
        self.depth: dict[int, int] = {}

    def d(self, e: E) -> int:
        return self.depth.get(id(e), 0)

    def c(self) -> Num:
        return self.rng.choice(self.consts)

    def const(self, n: int) -> E:
        if n and self.rng.random() < 0.5:
            return E("const", (), tuple(self.c() for _ in range(n)), n)
        return E("const", (), self.c(), n)

    def binary(self, op: str, x: E, y: E) -> E:
        if op == "mul" and max(self.d(x), self.d(y)) >= self.max_depth:
            op = "add"
        e = E(op, (x, y), None, max(x.n, y.n))
        self.depth[id(e)] = max(self.d(x), self.d(y)) + (op == "mul")
        return e

    def unary(self, op: str, x: E, attr: object = None, n: int | None = None) -> E:
        e = E(op, (x,), attr, x.n if n is None else n)
        self.depth[id(e)] = self.d(x)
        return e

    def step(self, pool: list[E], widths: Sequence[int], allow_slots: bool = True) -> E:
        """One new value from ``pool`` (operands of one width, or a slot op)."""
        rng = self.rng
        n = rng.choice(widths)
        same = [v for v in pool if v.n == n] or pool
        n = same[0].n
        same = [v for v in pool if v.n == n]
        kinds = ["add", "sub", "mul", "const_add", "const_mul", "neg"]
        if allow_slots and n:
            kinds += ["rot", "rot", "ext", "ins", "from", "splat"]
        op = rng.choice(kinds)
        x, y = rng.choice(same), rng.choice(same)
        if op in ("add", "sub", "mul"):
            return self.binary(op, x, y)
        if op == "const_add":
            k = self.const(n)
            return self.binary("add", x, k) if rng.random() < 0.5 else self.binary(rng.choice(("add", "sub")), k, x)
        if op == "const_mul":
            k = self.const(n)
            return self.binary("mul", k, x) if rng.random() < 0.5 else self.binary("mul", x, k)
        if op == "neg":
            return self.unary("neg", x)
        if op == "rot":
            return self.unary("rot", x, rng.randrange(1, n), n)
        if op == "ext":
            return self.unary("ext", x, rng.randrange(n), 0)
        scalars = [v for v in pool if v.n == 0]
        if op == "ins":
            s = rng.choice(scalars) if scalars else self.unary("ext", x, rng.randrange(n), 0)
            e = E("ins", (s, y), rng.randrange(n), n)
            self.depth[id(e)] = max(self.d(s), self.d(y))
            return e
        if op == "from":
            elems = [rng.choice(scalars) if scalars and rng.random() < 0.7
                     else self.unary("ext", x, rng.randrange(n), 0) for _ in range(n)]
            e = E("from", tuple(elems), None, n)
            self.depth[id(e)] = max(self.d(v) for v in elems)
            return e
        s = rng.choice(scalars) if scalars else self.unary("ext", x, rng.randrange(n), 0)
        return self.unary("splat", s, None, n)


def _results(rng: random.Random, vals: list[E], first_new: int) -> list[E]:
    """One to three results among the newest values (different from the arguments)."""
    new = vals[first_new:] or vals
    k = min(len(new), rng.choice((1, 1, 2, 3)))
    return new[-k:]


# -- the kinds ---------------------------------------------------------------------------------------
def _straight(rng: random.Random, name: str, elem: str, generic: bool) -> tuple[str, Callable[..., list[Val]]]:
    n = rng.choice((4, 8))
    widths = rng.choice(((n,), (0,), (n, 0)))
    args = [(f"x{k}", rng.choice(widths)) for k in range(rng.randint(1, 3))]
    g = _ExprGen(rng, elem)
    vals = [E("arg", (), a, w) for a, w in args]
    for _ in range(rng.randint(2, 9)):
        vals.append(g.step(vals, widths))
    outs = _results(rng, vals, len(args))
    em = Emitter(elem)
    bound = {a: f"%{a}" for a, _ in args}
    names = [(em.emit(e, bound, "    " if generic else "  "), e.n) for e in outs]
    text = _assemble(em, _Func(name, args), em.lines, names, generic)

    def ref(inputs: Mapping[str, object]) -> list[Val]:
        env = {a: _as_val(inputs[a]) for a, _ in args}
        memo: dict[int, Val] = {}
        return [evaluate(e, env, memo) for e in outs]

    return text, ref


def _as_val(v: object) -> Val:
    if isinstance(v, list | tuple):
        return [x for x in v]
    return v  # type: ignore[return-value]


def _reduce(rng: random.Random, name: str, elem: str, generic: bool) -> tuple[str, Callable[..., list[Val]]]:
    n = rng.choice((4, 8))
    shift = rng.randrange(n)
    lo, step = rng.choice(((0, 1), (0, 1), (1, 1), (0, 2)))
    hi = rng.choice((n, n - 1)) if lo == 0 else n
    n_acc = rng.choice((1, 1, 2))
    g = _ExprGen(rng, elem, max_depth=2)
    em = Emitter(elem)
    ind = "    " if generic else "  "
    plain: list[tuple[str, int]] = [("w", n)] if generic and rng.random() < 0.3 else []
    args = [("x", n), ("y", n)] + ([("s", 0)] if rng.random() < 0.5 else [])
    # the body: leaves xi, yj (y read at (i + shift) remui n), the accumulators and w[i]
    leaves = [E("arg", (), "xi"), E("arg", (), "yj")] + [E("arg", (), f"acc{k}") for k in range(n_acc)]
    if plain:
        leaves.append(E("arg", (), "wi"))
    trips = len(range(lo, hi, step))
    bodies: list[E] = []
    for k in range(n_acc):
        pool = list(leaves)
        for _ in range(rng.randint(1, 3)):
            pool.append(g.step(pool, (0,), allow_slots=False))
        # keep the accumulator in: acc_k' = acc_k (+|*) f
        f = pool[-1]
        if not _reads(f, ("xi", "yj")):  # else a constant-initialised accumulator stays constant
            f = g.binary(rng.choice(("add", "sub", "mul")), f, leaves[rng.randrange(2)])
        acc = leaves[2 + k]
        use_mul = trips <= 4 and rng.random() < 0.3 and g.d(f) == 0
        bodies.append(g.binary("mul" if use_mul else rng.choice(("add", "sub")), acc, f))
    inits: list[tuple[str, Num | None]] = []  # SSA name, constant (None: the secret scalar %s)
    for _ in range(n_acc):
        if args[-1][0] == "s" and rng.random() < 0.5:
            inits.append(("%s", None))
        else:
            c = rng.choice((0, 1, 3)) if not g.is_float else rng.choice((0.0, 1.0, 0.5))
            cname = em.const(c, 0, ind)
            inits.append((cname, c))
    lines = em.lines
    em.lines = []
    iv, accs = em.fresh("i"), [em.fresh("acc") for _ in range(n_acc)]
    inner = ind + "  "
    xi, jj, yj = em.fresh("xi"), em.fresh("j"), em.fresh("yj")
    cn = em.idx(n)
    body = [f"{inner}{xi} = tensor.extract %x[{iv}] : {em.ty(n)}",
            f"{inner}{jj}a = arith.addi {iv}, {em.idx(shift)} : index",
            f"{inner}{jj} = arith.remui {jj}a, {cn} : index",
            f"{inner}{yj} = tensor.extract %y[{jj}] : {em.ty(n)}"]
    bound = {"xi": xi, "yj": yj, **{f"acc{k}": accs[k] for k in range(n_acc)}}
    if plain:
        wi = em.fresh("wi")
        body.append(f"{inner}{wi} = tensor.extract %w[{iv}] : {em.ty(n)}")
        bound["wi"] = wi
    em.lines = []
    outs = [em.emit(b, bound, inner) for b in bodies]
    body += em.lines
    res = em.fresh("r")
    rt = ", ".join([em.elem] * n_acc)
    head = f"{ind}{res}{'' if n_acc == 1 else f':{n_acc}'} = affine.for {iv} = {lo} to {hi}" + \
        (f" step {step}" if step != 1 else "") + \
        f" iter_args({', '.join(f'{a} = {i}' for a, (i, _) in zip(accs, inits, strict=True))}) -> ({rt}) {{"
    lines += [head, *body, f"{inner}affine.yield {', '.join(outs)} : {rt}", f"{ind}}}"]
    results = [(res if n_acc == 1 else f"{res}#{k}", 0) for k in range(n_acc)]
    text = _assemble(em, _Func(name, args, plain), lines, results, generic)

    def ref(inputs: Mapping[str, object]) -> list[Val]:
        x, y = _as_val(inputs["x"]), _as_val(inputs["y"])
        assert isinstance(x, list) and isinstance(y, list)
        w = _as_val(inputs["w"]) if plain else None
        cur: list[Val] = [inputs["s"] if c is None else c for _, c in inits]  # type: ignore[misc]
        for i in range(lo, hi, step):
            env: dict[str, Val] = {"xi": x[i], "yj": y[(i + shift) % n]}
            env.update({f"acc{k}": cur[k] for k in range(n_acc)})
            if w is not None:
                assert isinstance(w, list)
                env["wi"] = w[i]
            memo: dict[int, Val] = {}
            cur = [evaluate(b, env, memo) for b in bodies]
        return cur

    return text, ref


_OFFSETS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 0), (0, 1), (1, -1), (1, 0), (1, 1)]


def _stencil(rng: random.Random, name: str, elem: str, generic: bool) -> tuple[str, Callable[..., list[Val]]]:
    h, w = rng.choice(((1, 8), (1, 4), (2, 4), (4, 4), (3, 4), (4, 2)))
    n = h * w
    offs = [o for o in _OFFSETS if h > 1 or o[0] == 0]
    taps = rng.sample(offs, rng.randint(1, min(4, len(offs))))
    is_float = elem.startswith("f")
    weights: list[Num] = [rng.choice((1, 1, 2, -1, 3)) if not is_float else rng.choice((1.0, 0.5, -1.0, 2.0))
                          for _ in taps]
    mode = rng.choice(("flat_wrap", "dim_wrap", "interior", "zero_from", "zero_insert"))
    if mode == "interior" and ((h < 3 and any(di for di, _ in taps)) or w < 3):
        mode = "flat_wrap"
    square = rng.random() < 0.25  # out[p] = s * s (depth 1) instead of s
    em = Emitter(elem)
    ind = "    " if generic else "  "
    T = em.ty(n)

    def src(i: int, j: int, di: int, dj: int) -> int | None:
        r, c = i + di, j + dj
        if mode == "flat_wrap":
            return (r * w + c) % n
        if mode == "dim_wrap":
            return (r % h) * w + (c % w)
        return r * w + c if 0 <= r < h and 0 <= c < w else None

    rows = range(1, h - 1) if mode == "interior" and any(di for di, _ in taps) else range(h)
    cols = range(1, w - 1) if mode == "interior" else range(w)
    lines: list[str] = []
    init_kind = "zeros"
    if mode.startswith("zero"):
        # unrolled, zero padding: out-of-image terms are dropped
        x = E("arg", (), "x", n)
        elems: list[E] = []
        for i in range(h):
            for j in range(w):
                terms: list[E] = []
                for (di, dj), wt in zip(taps, weights, strict=True):
                    p = src(i, j, di, dj)
                    if p is None:
                        continue
                    t = E("ext", (x,), p, 0)
                    terms.append(t if wt == 1 else E("mul", (t, E("const", (), wt, 0)), None, 0))
                if not terms:
                    elems.append(E("const", (), 0.0 if is_float else 0, 0))
                    continue
                acc = terms[0]
                for t in terms[1:]:
                    acc = E("add", (acc, t), None, 0)
                elems.append(E("mul", (acc, acc), None, 0) if square else acc)
        if mode == "zero_from":
            out = E("from", tuple(elems), None, n)
        else:
            out = E("const", (), 0.0 if is_float else 0, n)
            for p, e in enumerate(elems):
                if e.op != "const":
                    out = E("ins", (e, out), p, n)
        name_out = em.emit(out, {"x": "%x"}, ind)
        lines = em.lines
    else:
        init_kind = rng.choice(("x", "zeros", "y"))
        init = em.const(0.0 if is_float else 0, n, ind) if init_kind == "zeros" else "%" + init_kind
        lines = em.lines
        em.lines = []
        iv, jv, t_i, t_j = em.fresh("i"), em.fresh("j"), em.fresh("t"), em.fresh("u")
        res_i, res_j = em.fresh("r"), em.fresh("q")
        i1, i2 = ind + "  ", ind + "    "
        body: list[str] = []
        tap_vals: list[str] = []
        for (di, dj), wt in zip(taps, weights, strict=True):
            ri, cj = em.fresh("ri"), em.fresh("cj")
            body.append(f"{i2}{ri} = arith.addi {iv}, {em.idx(di)} : index")
            body.append(f"{i2}{cj} = arith.addi {jv}, {em.idx(dj)} : index")
            if mode == "dim_wrap":
                # + h / + w keeps the operand of remui non-negative
                rp, cp = em.fresh("rp"), em.fresh("cp")
                body.append(f"{i2}{rp}a = arith.addi {ri}, {em.idx(h)} : index")
                body.append(f"{i2}{rp} = arith.remui {rp}a, {em.idx(h)} : index")
                body.append(f"{i2}{cp}a = arith.addi {cj}, {em.idx(w)} : index")
                body.append(f"{i2}{cp} = arith.remui {cp}a, {em.idx(w)} : index")
                ri, cj = rp, cp
            fl = em.fresh("f")
            body.append(f"{i2}{fl}a = arith.muli {ri}, {em.idx(w)} : index")
            body.append(f"{i2}{fl}b = arith.addi {fl}a, {cj} : index")
            if mode == "flat_wrap":
                body.append(f"{i2}{fl}c = arith.addi {fl}b, {em.idx(n)} : index")
                body.append(f"{i2}{fl} = arith.remui {fl}c, {em.idx(n)} : index")
            else:
                body.append(f"{i2}{fl} = arith.addi {fl}b, {em.idx(0)} : index")
            v = em.fresh("e")
            body.append(f"{i2}{v} = tensor.extract %x[{fl}] : {T}")
            if wt != 1:
                kc = em.const(wt, 0, i2)
                body += em.lines
                em.lines = []
                v2 = em.fresh("m")
                body.append(f"{i2}{v2} = arith.mul{'f' if is_float else 'i'} {v}, {kc} : {em.elem}")
                v = v2
            tap_vals.append(v)
        total = tap_vals[0]
        for tv in tap_vals[1:]:
            sm = em.fresh("s")
            body.append(f"{i2}{sm} = arith.add{'f' if is_float else 'i'} {total}, {tv} : {em.elem}")
            total = sm
        if square:
            sm = em.fresh("sq")
            body.append(f"{i2}{sm} = arith.mul{'f' if is_float else 'i'} {total}, {total} : {em.elem}")
            total = sm
        p0, pos = em.fresh("p"), em.fresh("p")
        body.append(f"{i2}{p0} = arith.muli {iv}, {em.idx(w)} : index")
        body.append(f"{i2}{pos} = arith.addi {p0}, {jv} : index")
        ins = em.fresh("o")
        body.append(f"{i2}{ins} = tensor.insert {total} into {t_j}[{pos}] : {T}")
        lines += [f"{ind}{res_i} = affine.for {iv} = {rows.start} to {rows.stop} iter_args({t_i} = {init}) -> ({T}) {{",
                  f"{i1}{res_j} = affine.for {jv} = {cols.start} to {cols.stop} iter_args({t_j} = {t_i}) -> ({T}) {{",
                  *body, f"{i2}affine.yield {ins} : {T}", f"{i1}}}", f"{i1}affine.yield {res_j} : {T}", f"{ind}}}"]
        name_out = res_i
    args = [("x", n)] + ([("y", n)] if init_kind == "y" else [])
    text = _assemble(em, _Func(name, args), lines, [(name_out, n)], generic)

    def ref(inputs: Mapping[str, object]) -> list[Val]:
        x = _as_val(inputs["x"])
        assert isinstance(x, list)
        if init_kind == "zeros":
            out: list[Num] = [0.0 if is_float else 0] * n
        else:
            out = list(_as_val(inputs[init_kind]))  # type: ignore[arg-type]
        for i in rows if not mode.startswith("zero") else range(h):
            for j in cols if not mode.startswith("zero") else range(w):
                s: Num = 0
                for (di, dj), wt in zip(taps, weights, strict=True):
                    p = src(i, j, di, dj)
                    if p is not None:
                        s += wt * x[p]
                out[i * w + j] = s * s if square else s
        return [out]

    return text, ref


def _map(rng: random.Random, name: str, elem: str, generic: bool) -> tuple[str, Callable[..., list[Val]]]:
    n = rng.choice((4, 8, 16))
    g = _ExprGen(rng, elem, max_depth=2)
    em = Emitter(elem)
    ind = "    " if generic else "  "
    leaves = [E("arg", (), "xi"), E("arg", (), "yi")]
    pool = list(leaves)
    for _ in range(rng.randint(1, 4)):
        pool.append(g.step(pool, (0,), allow_slots=False))
    f = pool[-1]
    init = rng.choice(("x", "y"))
    iv, t, res = em.fresh("i"), em.fresh("t"), em.fresh("r")
    xi, yi = em.fresh("xi"), em.fresh("yi")
    inner = ind + "  "
    T = em.ty(n)
    body = [f"{inner}{xi} = tensor.extract %x[{iv}] : {T}", f"{inner}{yi} = tensor.extract %y[{iv}] : {T}"]
    out = em.emit(f, {"xi": xi, "yi": yi}, inner)
    body += em.lines
    o = em.fresh("o")
    body.append(f"{inner}{o} = tensor.insert {out} into {t}[{iv}] : {T}")
    lines = [f"{ind}{res} = affine.for {iv} = 0 to {n} iter_args({t} = %{init}) -> ({T}) {{", *body,
             f"{inner}affine.yield {o} : {T}", f"{ind}}}"]
    text = _assemble(em, _Func(name, [("x", n), ("y", n)]), lines, [(res, n)], generic)

    def ref(inputs: Mapping[str, object]) -> list[Val]:
        x, y = _as_val(inputs["x"]), _as_val(inputs["y"])
        assert isinstance(x, list) and isinstance(y, list)
        return [[evaluate(f, {"xi": x[i], "yi": y[i]}) for i in range(n)]]  # type: ignore[misc]

    return text, ref


def _noisy(rng: random.Random, fn_name: str, elem: str, generic: bool) -> tuple[str, Callable[..., list[Val]]]:
    """A program in the article's ``noisy`` dialect (``elem`` and ``generic`` do not apply):
    ``!noisy.i32`` and plaintext ``i5`` arguments, ``noisy.encode`` of constants and of
    plaintext values, ``noisy.add/sub/mul`` (also of a value with itself), ``noisy.reduce_noise``
    (dropped on input: placement is the optimizer's), ``noisy.decode`` and plaintext ``arith``
    on the decoded values; one to three results, ciphertexts or decoded plaintexts."""
    sec_args = [f"a{k}" for k in range(rng.randint(0, 2))]
    pl_args = [f"w{k}" for k in range(rng.randint(0 if sec_args else 1, 2))]
    secret: list[tuple[E, str]] = [(E("arg", (), a), f"%{a}") for a in sec_args]
    plain: list[tuple[E, str]] = [(E("arg", (), w), f"%{w}") for w in pl_args]
    lines: list[str] = []
    counter = [0]

    def fresh(stem: str) -> str:
        counter[0] += 1
        return f"%{stem}{counter[0]}"

    def constant() -> tuple[E, str]:
        c = rng.choice((1, 2, 3, 5, 7, 9, 14, -3))
        name = fresh("c")
        lines.append(f"  {name} = arith.constant {c} : i5")
        return E("const", (), c), name

    def encode() -> None:
        e, v = rng.choice(plain) if plain and rng.random() < 0.5 else constant()
        name = fresh("e")
        lines.append(f"  {name} = noisy.encode {v} : i5 -> !noisy.i32")
        secret.append((e, name))

    while len(secret) < 2:
        encode()
    first = len(secret)
    for _ in range(rng.randint(2, 12)):
        r = rng.random()
        if r < 0.55:
            recent = secret[-6:]
            (x, vx), (y, vy) = rng.choice(recent), rng.choice(recent)
            op = rng.choice(("add", "sub", "mul", "mul"))
            name = fresh("n")
            lines.append(f"  {name} = noisy.{op} {vx}, {vy} : !noisy.i32")
            secret.append((E(op, (x, y)), name))
        elif r < 0.7:
            encode()
        elif r < 0.8:
            e, v = rng.choice(secret[-4:])
            name = fresh("r")
            lines.append(f"  {name} = noisy.reduce_noise {v} : !noisy.i32")
            secret.append((e, name))
        elif r < 0.9:
            e, v = rng.choice(secret[-4:])
            name = fresh("d")
            lines.append(f"  {name} = noisy.decode {v} : !noisy.i32 -> i5")
            plain.append((e, name))
        elif plain:
            (x, vx), (y, vy) = rng.choice(plain), rng.choice([*plain, constant()])
            op = rng.choice(("add", "mul"))
            name = fresh("p")
            lines.append(f"  {name} = arith.{op}i {vx}, {vy} : i5")
            plain.append((E(op, (x, y)), name))
    outs: list[tuple[E, str, str]] = []
    for e, v in rng.sample(secret[first:] or secret, min(len(secret[first:] or secret), rng.choice((1, 1, 2, 3)))):
        if rng.random() < 0.5:
            name = fresh("o")
            lines.append(f"  {name} = noisy.decode {v} : !noisy.i32 -> i5")
            outs.append((e, name, "i5"))
        else:
            outs.append((e, v, "!noisy.i32"))
    sig = ", ".join([f"%{a}: !noisy.i32" for a in sec_args] + [f"%{w}: i5" for w in pl_args])
    rtypes = [t for _, _, t in outs]
    rt = rtypes[0] if len(rtypes) == 1 else f"({', '.join(rtypes)})"
    text = "\n".join([f"func.func @{fn_name}({sig}) -> {rt} {{", *lines,
                      f"  return {', '.join(v for _, v, _ in outs)} : {', '.join(rtypes)}", "}"]) + "\n"

    def ref(inputs: Mapping[str, object]) -> list[Val]:
        env = {a: _as_val(inputs[a]) for a in sec_args + pl_args}
        memo: dict[int, Val] = {}
        return [evaluate(e, env, memo) for e, _, _ in outs]

    return text, ref


_KINDS: dict[str, Callable[[random.Random, str, str, bool], tuple[str, Callable[..., list[Val]]]]] = {
    "straight": _straight, "reduce": _reduce, "stencil": _stencil, "map": _map, "noisy": _noisy,
}


def random_text_program(seed: int, kind: str | None = None, elem: str | None = None,
                        generic: bool | None = None) -> TextProgram:
    """The text program of ``seed`` (kind, element type and wrapping drawn unless given)."""
    rng = random.Random(seed)
    k = kind or rng.choice(KINDS)
    if k == "noisy":  # never drawn here: the fuzzer asks for it (its own share of the cases)
        text, ref = _noisy(rng, f"text_{seed}", "i5", False)
        return TextProgram(f"text_{seed}", k, "noisy", text, lambda inputs: ref(dict(inputs)))
    el = elem or rng.choice(("i16", "i32", "f32"))
    gen = rng.random() < 0.35 if generic is None else generic
    name = f"text_{seed}"
    text, ref = _KINDS[k](rng, name, el, gen)
    scheme = "ckks" if el.startswith("f") else rng.choice(("bgv", "bgv", "ckks"))

    def reference(inputs: Mapping[str, object]) -> list[Val]:
        # in a secret.generic the function's argument %s_x enters the body as %x
        return ref({key.removeprefix("s_"): v for key, v in inputs.items()})

    return TextProgram(name, k + ("_generic" if gen else ""), scheme, text, reference)
