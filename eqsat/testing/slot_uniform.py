"""Random slot-uniform programs written the way people write them, as MLIR text.

In: a seed (and optional bounds on the size). Out: a ``SlotUniformCase`` -- MLIR text of one
function whose every output slot ``i`` computes the same template over reads ``x[i + off]``
of up to three secret inputs, plus the number of distinct (input, offset) reads in the
template, the bound the vectorizer of issue 19 must meet in rotations. The same seed gives
the same case.

The template is a random expression of depth <= 3 over reads (offsets in -3..3) and
constants of three kinds: a scalar, a splat tensor (``tensor.splat``) read at the slot, and
a per-slot dense tensor (``arith.constant dense<[...]>``) read at the slot. A read past the
border is either zero (zero padding: the read is dropped from that slot's expression, as a
padded image reads a zero) or wraps around (index ``(i + off) mod n``). The size is drawn
from ``min_size..max_size`` (4..256 by default, any integer, not only powers of two). The
writing style is one of:

- ``insert``: straight-line ``tensor.extract`` / ``arith`` / a ``tensor.insert`` chain;
- ``from_elements``: the same scalars gathered by ``tensor.from_elements``;
- ``swapped``: commutative operands swapped and the insert chain written backwards;
- ``loop``: an ``affine.for`` over the slots with ``index`` arithmetic (``arith.remui``
  for wrap-around; drawn only with wrap-around, since a zero-padded read needs a branch).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

STYLES = ("insert", "from_elements", "swapped", "loop")
OPS = ("add", "sub", "mul")

# a template node: ("read", input, offset) | ("scalar", v) | ("splat", v) | ("dense", k)
# | (op, a, b); a "dense" leaf refers to the k-th dense constant of the case
Node = tuple


@dataclass(frozen=True)
class SlotUniformCase:
    """One generated program and what the vectorizer must achieve on it."""

    seed: int
    mlir: str
    size: int
    inputs: tuple[str, ...]
    style: str
    padding: str  # "zero" | "wrap"
    template: str
    distinct_reads: int  # distinct (input, offset) pairs read by the template
    #: slots whose element is not zero by padding (all of them with wrap-around); a chain with
    #: one such slot is one scalar computation placed in a vector, nothing to vectorize
    live_slots: int = 0


def _template(rng: random.Random, inputs: list[str], depth: int, dense: list[list[int]], size: int) -> Node:
    if depth == 0 or rng.random() < 0.25:
        r = rng.random()
        if r < 0.7:
            return ("read", rng.choice(inputs), rng.randint(-3, 3))
        if r < 0.8:
            return ("scalar", rng.randint(1, 9))
        if r < 0.9:
            return ("splat", rng.randint(1, 9))
        dense.append([rng.randint(0, 9) for _ in range(size)])
        return ("dense", len(dense) - 1)
    op = rng.choice(OPS)
    return (op, _template(rng, inputs, depth - 1, dense, size), _template(rng, inputs, depth - 1, dense, size))


def _reads(t: Node) -> set[tuple[str, int]]:
    if t[0] == "read":
        return {(t[1], t[2])}
    if t[0] in OPS:
        return _reads(t[1]) | _reads(t[2])
    return set()


def _show(t: Node) -> str:
    if t[0] == "read":
        return f"{t[1]}[i{t[2]:+d}]"
    if t[0] in ("scalar", "splat"):
        return f"{t[0]}({t[1]})"
    if t[0] == "dense":
        return f"dense{t[1]}[i]"
    sym = {"add": "+", "sub": "-", "mul": "*"}[t[0]]
    return f"({_show(t[1])} {sym} {_show(t[2])})"


class _Writer:
    """MLIR text for one function; fresh SSA names, constants hoisted to the entry block."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.ty = f"tensor<{size}xi16>"
        self.body: list[str] = []
        self.count = 0
        self.index_consts: dict[int, str] = {}
        self.i16_consts: dict[int, str] = {}
        self.head: list[str] = []

    def fresh(self, hint: str) -> str:
        self.count += 1
        return f"%{hint}{self.count}"

    def index(self, v: int) -> str:
        if v not in self.index_consts:
            name = self.fresh("ci")
            self.head.append(f"  {name} = arith.constant {v} : index")
            self.index_consts[v] = name
        return self.index_consts[v]

    def i16(self, v: int) -> str:
        if v not in self.i16_consts:
            name = self.fresh("c")
            self.head.append(f"  {name} = arith.constant {v} : i16")
            self.i16_consts[v] = name
        return self.i16_consts[v]


def _emit_slot(
    w: _Writer,
    t: Node,
    slot: int | str,
    padding: str,
    swapped: bool,
    tensors: dict[str, str],
    indent: str,
    cache: dict[Node, str | None],
) -> str | None:
    """The SSA value of template ``t`` at ``slot`` (an int, or an index SSA name in a loop);
    None for a zero-padded read past the border (the caller drops it)."""
    if t in cache:
        return cache[t]
    out: str | None
    if t[0] == "read":
        name, off = t[1], t[2]
        if isinstance(slot, int):
            j = slot + off
            if not 0 <= j < w.size:
                if padding == "zero":
                    cache[t] = None
                    return None
                j %= w.size
            idx = w.index(j)
        else:
            # idx = (i + off + n) mod n
            s = w.fresh("s")
            w.body.append(f"{indent}{s} = arith.addi {slot}, {w.index(off % w.size)} : index")
            idx = w.fresh("w")
            w.body.append(f"{indent}{idx} = arith.remui {s}, {w.index(w.size)} : index")
        out = w.fresh(name)
        w.body.append(f"{indent}{out} = tensor.extract {tensors[name]}[{idx}] : {w.ty}")
    elif t[0] == "scalar":
        out = w.i16(t[1])
    elif t[0] in ("splat", "dense"):
        key = f"{t[0]}{t[1]}"
        idx = w.index(slot) if isinstance(slot, int) else slot
        out = w.fresh("k")
        w.body.append(f"{indent}{out} = tensor.extract {tensors[key]}[{idx}] : {w.ty}")
    else:
        a = _emit_slot(w, t[1], slot, padding, swapped, tensors, indent, cache)
        b = _emit_slot(w, t[2], slot, padding, swapped, tensors, indent, cache)
        op = t[0]
        if a is None or b is None:
            # a zero read: 0 * x = 0, x + 0 = x, x - 0 = x, 0 - x = -x (written 0 - x)
            if op == "mul" or (a is None and b is None):
                out = None
            elif b is None:
                out = a
            elif op == "add":
                out = b
            else:
                out = w.fresh("t")
                w.body.append(f"{indent}{out} = arith.subi {w.i16(0)}, {b} : i16")
        else:
            if swapped and op != "sub":
                a, b = b, a
            out = w.fresh("t")
            w.body.append(f"{indent}{out} = arith.{op}i {a}, {b} : i16")
    cache[t] = out
    return out


def generate(seed: int, min_size: int = 4, max_size: int = 256) -> SlotUniformCase:
    """The case for ``seed``: a random template, size, padding and writing style."""
    rng = random.Random(seed)
    size = rng.randint(min_size, max_size)
    inputs = [f"x{k}" for k in range(rng.randint(1, 3))]
    dense: list[list[int]] = []
    template = _template(rng, inputs, rng.randint(1, 3), dense, size)
    if not _reads(template):
        # the template must read a secret input somewhere
        template = (rng.choice(OPS), template, ("read", inputs[0], rng.randint(-3, 3)))
    padding = rng.choice(("zero", "wrap"))
    style = rng.choice(STYLES if padding == "wrap" else STYLES[:3])
    return render(template, size, padding, style, inputs, dense, seed)


def render(template: Node, size: int, padding: str, style: str, inputs: list[str] | None = None,
           dense: list[list[int]] | None = None, seed: int = 0) -> SlotUniformCase:
    """The case of a given ``template`` (``generate`` draws one): its reads of ``inputs``
    (by default those it reads), ``dense[k]`` the values of its leaf ``("dense", k)``."""
    if inputs is None:
        inputs = sorted({x for x, _ in _reads(template)})
    dense = dense or []
    w = _Writer(size)
    tensors = {x: f"%{x}" for x in inputs}
    splats = sorted({t for t in _leaves(template) if t[0] == "splat"})
    for t in splats:
        name = w.fresh("splat")
        w.head.append(f"  {name} = tensor.splat {w.i16(t[1])} : {w.ty}")
        tensors[f"splat{t[1]}"] = name
    for k, dvals in enumerate(dense):
        name = w.fresh("dense")
        w.head.append(f"  {name} = arith.constant dense<[{', '.join(map(str, dvals))}]> : {w.ty}")
        tensors[f"dense{k}"] = name
    zero = w.i16(0)
    lines_tail: list[str] = []
    live = size if style == "loop" else 0
    if style == "loop":
        empty = w.fresh("empty")
        w.head.append(f"  {empty} = tensor.empty() : {w.ty}")
        res, acc = w.fresh("res"), w.fresh("acc")
        w.body.append(f"  {res} = affine.for %i = 0 to {size} iter_args({acc} = {empty}) -> ({w.ty}) {{")
        v = _emit_slot(w, template, "%i", padding, False, tensors, "    ", {})
        v = zero if v is None else v
        upd = w.fresh("upd")
        w.body.append(f"    {upd} = tensor.insert {v} into {acc}[%i] : {w.ty}")
        w.body.append(f"    affine.yield {upd} : {w.ty}")
        w.body.append("  }")
        lines_tail.append(f"  return {res} : {w.ty}")
    else:
        vals: list[str] = []
        for i in range(size):
            v = _emit_slot(w, template, i, padding, style == "swapped", tensors, "  ", {})
            vals.append(zero if v is None else v)
            live += v is not None
        if style == "from_elements":
            out = w.fresh("out")
            w.body.append(f"  {out} = tensor.from_elements {', '.join(vals)} : {w.ty}")
        else:
            out = w.fresh("empty")
            w.head.append(f"  {out} = tensor.empty() : {w.ty}")
            order = list(enumerate(vals))
            if style == "swapped":
                order.reverse()
            for slot, val in order:
                nxt = w.fresh("acc")
                w.body.append(f"  {nxt} = tensor.insert {val} into {out}[{w.index(slot)}] : {w.ty}")
                out = nxt
        lines_tail.append(f"  return {out} : {w.ty}")
    args = ", ".join(f"%{x}: {w.ty}" for x in inputs)
    text = (
        "\n".join(
            [
                f"// seed {seed}: out[i] = {_show(template)}, {padding} padding, {style} style",
                f"func.func @slot_uniform_{seed}({args}) -> {w.ty} {{",
                *w.head,
                *w.body,
                *lines_tail,
                "}",
            ]
        )
        + "\n"
    )
    return SlotUniformCase(seed, text, size, tuple(inputs), style, padding, _show(template), len(_reads(template)),
                           live)


def _leaves(t: Node) -> list[Node]:
    if t[0] in OPS:
        return _leaves(t[1]) + _leaves(t[2])
    return [t]
