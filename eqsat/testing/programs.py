"""Random programs shared by tests, experiments and the fuzzer: one seeded generator.

In: a seed, a size and a ``Shape`` of program (slot count, element type, inputs, op mix,
depth cap, which values are results). Out: a well-formed IR ``Program`` of the accepted
subset, the same for the same arguments.

``random_program`` draws straight-line programs over secret inputs: ciphertext add, sub,
mul, neg, products and sums with plaintext constants (scalars or per-slot vectors),
rotations, slot moves (extract + insert) and management ops. ``random_noisy_program``
is the same generator in the noisy dialect's style (encoded constant inputs, decoded
results), for the noise-placement tests and experiments.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from eqsat.ir import Builder, Program, Type

# every op kind the generator draws, with its default weight
DEFAULT_OPS: Mapping[str, float] = {
    "add": 1.0, "sub": 1.0, "mul": 1.0, "mul_const": 1.0, "add_const": 1.0,
}
ALL_OPS: frozenset[str] = frozenset(
    {"add", "sub", "mul", "neg", "mul_const", "add_const", "rotate", "move_slot", "modswitch"}
)


@dataclass(frozen=True)
class Shape:
    """What kind of program to draw.

    ``slots``: 1 for scalars, else the vector width; ``inputs``: secret arguments (``x0``...);
    ``ops``: op kind -> weight (kinds in ``ALL_OPS``); ``window``: operands come from the last
    ``window`` values (None: any value); ``max_depth``: a ct x ct product that would exceed it
    becomes an addition; ``results``: ``"unused"`` (every value nothing reads) or a number of
    last values; ``consts``: the plaintext scalars drawn; ``vector_consts``: plaintext
    operands are per-slot vectors instead of scalars.
    """

    slots: int = 1
    elem: str = "i32"
    inputs: int = 2
    ops: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_OPS))
    window: int | None = None
    max_depth: int | None = None
    results: str | int = "unused"
    consts: tuple[int, ...] = (2, 3, 5, 9, -7, 255, 1000)
    vector_consts: bool = False


# scalar i32 arithmetic over 8 inputs, operands from the last 30 values (the arithmetic rules' tests)
ARITH = Shape(inputs=8, window=30)


def random_program(seed: int, n_ops: int, shape: Shape | None = None, name: str | None = None) -> Program:
    """A seeded random program of ``n_ops`` ops of ``shape`` (see ``Shape``)."""
    sh = shape or Shape()
    unknown = set(sh.ops) - ALL_OPS
    if unknown:
        raise ValueError(f"unknown op kinds {sorted(unknown)} (known: {sorted(ALL_OPS)})")
    rng = random.Random(seed)
    ty = Type(() if sh.slots == 1 else (sh.slots,), sh.elem, True)
    plain = ty.with_secret(False)
    b = Builder(name or f"random_{seed}")
    vals = [b.arg(f"x{i}", ty) for i in range(sh.inputs)]
    depth = dict.fromkeys(vals, 0)
    used: set[int] = set()
    kinds, weights = zip(*sh.ops.items(), strict=True)

    def const() -> int:
        if sh.vector_consts and sh.slots > 1:
            return b.const(tuple(rng.choice(sh.consts) for _ in range(sh.slots)), plain)
        return b.const(rng.choice(sh.consts), plain)

    for _ in range(n_ops):
        pool = vals[-sh.window:] if sh.window else vals
        a, c = rng.choice(pool), rng.choice(pool)
        op = rng.choices(kinds, weights)[0]
        if op == "mul" and sh.max_depth is not None and max(depth[a], depth[c]) >= sh.max_depth:
            op = "add"
        if op in ("add", "sub", "mul"):
            v = b.binary(op, a, c)
            used.update((a, c))
        elif op == "mul_const":
            v = b.mul(a, const())
            used.add(a)
        elif op == "add_const":
            v = b.add(const(), a) if rng.random() < 0.5 else b.add(a, const())
            used.add(a)
        elif op == "neg":
            v = b.neg(a)
            used.add(a)
        elif op == "rotate":
            v = b.rotate(a, rng.randrange(1, max(2, sh.slots)))
            used.add(a)
        elif op == "move_slot":
            v = b.insert(b.extract(a, rng.randrange(sh.slots)), c, rng.randrange(sh.slots))
            used.update((a, c))
        else:
            v = b.unary(op, a)
            used.add(a)
        depth[v] = max(depth[a], depth[c]) + (op == "mul")
        vals.append(v)
    if sh.results == "unused":
        outs = [v for v in vals[sh.inputs:] if v not in used] or vals[-1:]
    else:
        outs = vals[-int(sh.results):]
    return b.finish(outs)


def random_noisy_program(
    n_ops: int,
    seed: int,
    *,
    n_inputs: int = 4,
    p_mul: float = 0.3,
    p_plain: float = 0.15,
    decode: bool = True,
) -> Program:
    """A seeded random noisy program of about ``n_ops`` secret ops (scalar ``i5``).

    Inputs are encoded constants (the article's style).  Each op picks its operands
    among recent values (a sliding window keeps chains long enough to need
    reduce_noise); some adds/muls take a small plaintext constant.  Every value
    without a use is decoded and summed (in plaintext) into the single result; with
    ``decode=False`` those values are the (secret) results themselves.
    """
    rng = random.Random(seed)
    plain_t = Type((), "i5", False)
    b = Builder(f"random_{n_ops}_{seed}", style="noisy")
    vals: list[int] = []
    for _ in range(n_inputs):
        vals.append(b.unary("encode", b.const(rng.randrange(1, 16), plain_t)))
    used: set[int] = set()
    window = 8
    for _ in range(n_ops):
        recent = vals[-window:]
        x = rng.choice(recent)
        r = rng.random()
        if r < p_plain:
            c = b.const(rng.choice([2, 3, 5, 7]), plain_t)
            out = b.mul(x, c) if rng.random() < 0.5 else b.add(x, c)
            used.add(x)
        else:
            y = rng.choice(vals[-2 * window :])
            op = "mul" if r < p_plain + p_mul else rng.choice(["add", "sub"])
            out = b.binary(op, x, y)
            used.update((x, y))
        if out not in vals:
            vals.append(out)
    sinks = [v for v in vals if v not in used and b.type_of(v).secret]
    if not decode:
        return b.finish(sinks or vals[-1:])
    decoded = [b.unary("decode", v) for v in sinks or vals[-1:]]
    acc = decoded[0]
    for d in decoded[1:]:
        acc = b.add(acc, d)
    return b.finish([acc])
