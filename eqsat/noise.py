"""The noisy dialect's noise model, its checker, and greedy reduce_noise placement.

In: an IR ``Program``.  Out: per-node noise bounds (bits) under the article's model —
encode and reduce_noise give 12 bits, add/sub max + 1, mul the sum, scaling by a
constant c adds ceil(log2 |c|) — and ``check`` (legal while every value is <= 26 bits).
``place_greedy`` inserts reduce_noise after the ops whose result would exceed the
limit (the article's baseline); exact placement is the ILP's job.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .ir import Builder, Program

FRESH = 12
LIMIT = 26


@dataclass
class NoiseReport:
    bits: dict[int, float]  # live node id -> bound (secret values only)
    max_bits: float
    legal: bool
    first_illegal: int | None

    def to_json(self) -> dict[str, object]:
        return {"model": "noisy", "max_bits": self.max_bits, "budget": LIMIT, "legal": self.legal}


def _const_scale_bits(prog: Program, i: int) -> float:
    n = prog.nodes[i]
    if n.op == "const" and not isinstance(n.attrs[0], tuple):
        c = abs(n.attrs[0])  # type: ignore[arg-type]
        return math.ceil(math.log2(c)) if c > 1 else 0.0
    if n.op == "const":
        c = max(abs(x) for x in n.attrs[0])  # type: ignore[union-attr]
        return math.ceil(math.log2(c)) if c > 1 else 0.0
    return 0.0


def analyze(prog: Program) -> NoiseReport:
    bits: dict[int, float] = {}
    first_bad = None
    for i in prog.live():
        n = prog.nodes[i]
        if not n.type.secret:
            continue
        a = [bits.get(x) for x in n.args]
        if n.op in ("input", "encode", "reduce_noise", "bootstrap"):
            b = float(FRESH)
        elif n.op in ("add", "sub"):
            b = max(x for x in a if x is not None) + 1
        elif n.op == "mul":
            if all(x is not None for x in a):
                b = a[0] + a[1]  # type: ignore[operator]
            else:
                plain = n.args[0] if a[0] is None else n.args[1]
                b = max(x for x in a if x is not None) + _const_scale_bits(prog, plain)
        else:  # neg, rotate, extract, insert, management ops keep the bound
            b = max((x for x in a if x is not None), default=float(FRESH))
        bits[i] = b
        if b > LIMIT and first_bad is None:
            first_bad = i
    mx = max(bits.values(), default=0.0)
    return NoiseReport(bits, mx, first_bad is None, first_bad)


def place_greedy(prog: Program) -> Program:
    """Insert reduce_noise after every op whose *consumers* would overflow otherwise.

    Walks in order; when an op's result would exceed the limit, reduce its operands'
    noise by inserting reduce_noise on the noisiest operand(s) until it fits.
    """
    b = Builder(prog.name, style=prog.style)
    b.meta.update(prog.meta)
    remap: dict[int, int] = {}
    for name, ty in prog.args:
        b.arg(name, ty)
    for i in prog.live():
        n = prog.nodes[i]
        args = [remap[a] for a in n.args]
        cand = b.add_node(n.op, tuple(args), n.attrs, n.type) if n.op != "input" else b._arg_ids[str(n.attrs[0])]
        if n.type.secret and n.op != "input":
            for _ in range(len(args) + 1):
                rep = analyze(b.finish([cand]))
                if rep.legal:
                    break
                noisiest = max((a for a in args if b.type_of(a).secret), key=lambda a: rep.bits.get(a, 0.0))
                reduced = b.unary("reduce_noise", noisiest)
                args = [reduced if a == noisiest else a for a in args]
                cand = b.add_node(n.op, tuple(args), n.attrs, n.type)
        remap[i] = cand
    return b.finish([remap[r] for r in prog.results]).compact()
