"""The noisy dialect's noise model: checker, greedy reduce_noise placement, test programs.

In: an IR ``Program``.  Out: per-node noise bounds (bits) under the noisy-arithmetic
article's model, ``analyze``/``check`` (the article's dataflow check: legal while every
secret value is <= 26 bits), ``place_greedy`` (the article's baseline: insert
reduce_noise whenever an op would overflow) and ``random_program`` (a seeded
generator of noisy programs for tests and experiments).

The model
---------
* ``input``, ``encode``, ``reduce_noise``, ``bootstrap``: 12 bits (fresh);
* ``add``/``sub`` of two ciphertexts, or of a ciphertext and a plaintext: max + 1;
  ``neg`` too (the dialect has no negation: it prints as ``sub(encode(0), x)``);
* ``mul`` of two ciphertexts: the sum; a ciphertext times a plaintext: the plaintext is
  ``noisy.encode``d first (the dialect has no scaling op, so the printed program holds
  ``encode(c)``, a fresh 12-bit ciphertext), hence plus 12 -- and it is priced as a ``mul``;
* every other op (neg, rotate, extract, insert, splat, other management ops) keeps
  the largest bound of its ciphertext operands.

Plaintext operands are folded to their exact values when they are computed from
constants (``plain_magnitudes``); a plaintext that depends on an unknown value (a
plaintext argument, a ``decode``) is bounded by its element width (``i5`` -> 2^5).
The exact ILP placements (``eqsat.extract.ilp``) use the same numbers, so everything
they return passes ``check``.
"""

from __future__ import annotations

from dataclasses import dataclass

from eqsat.errors import InfeasibleError
from eqsat.ir import Program, VecRef

FRESH = 12
LIMIT = 26
FRESH_OPS = frozenset({"input", "encode", "reduce_noise", "bootstrap"})


class NoiseError(InfeasibleError):
    """No reduce_noise placement makes the program legal (or a placement is illegal)."""


@dataclass
class NoiseReport:
    bits: dict[int, float]  # live node id -> bound (secret values only)
    max_bits: float
    legal: bool
    first_illegal: int | None

    def to_json(self) -> dict[str, object]:
        return {"model": "noisy", "max_bits": self.max_bits, "budget": LIMIT, "legal": self.legal}


def elem_bits(elem: str) -> int:
    """Bits of a plaintext element type (``i5`` -> 5); 16 for anything unparsable."""
    digits = elem.lstrip("iuf")
    return int(digits) if digits.isdigit() and elem[0] in "iu" else 16


def plain_operand_bits(magnitude: float) -> float:
    """Noise bits a plaintext operand (of largest magnitude ``magnitude``) adds to a product
    with a ciphertext: it is encoded first, so it is a fresh ciphertext (the article's dialect
    has no scaling op), whatever its magnitude."""
    return float(FRESH)


def encode_plain_operands(prog: Program) -> Program:
    """``prog`` in the article's form: every plaintext operand of a secret ``add``/``sub``/
    ``mul`` goes through an explicit ``encode`` (what the printer writes), so op counts and
    noise bounds of the program are those of its printed text read back."""
    from eqsat.ir import Builder

    b = Builder.like(prog)
    remap: dict[int, int] = {}
    for i in prog.live():
        n = prog.nodes[i]
        if n.op == "input":
            remap[i] = b._arg_ids[str(n.attrs[0])]
            continue
        args = [remap[a] for a in n.args]
        if n.type.secret and n.type.is_scalar and n.op == "neg":  # printed as 0 - x
            zero = b.unary("encode", b.const(0.0 if n.type.is_float else 0, n.type.with_secret(False)))
            remap[i] = b.sub(zero, args[0])
            continue
        if n.type.secret and n.op in ("add", "sub", "mul"):
            args = [a if b.nodes[a].type.secret else b.unary("encode", a) for a in args]
        remap[i] = b.add_node(n.op, tuple(args), n.attrs, n.type)
    return b.finish([remap[r] for r in prog.results]).compact()


def plain_magnitudes(prog: Program) -> dict[int, float]:
    """Largest absolute slot value of every live plaintext node (exact where foldable)."""
    vals: dict[int, list[float] | None] = {}
    mags: dict[int, float] = {}
    for i in prog.live():
        n = prog.nodes[i]
        if n.type.secret:
            continue
        v = _fold(prog, i, vals)
        vals[i] = v
        mags[i] = max((abs(x) for x in v), default=0.0) if v is not None else 2.0 ** elem_bits(n.type.elem)
    return mags


def _fold(prog: Program, i: int, vals: dict[int, list[float] | None]) -> list[float] | None:
    n = prog.nodes[i]
    width = n.type.slots

    def vec(j: int) -> list[float] | None:
        v = vals.get(j)
        if v is None:
            return None
        return v if len(v) == prog.nodes[j].type.slots else v * prog.nodes[j].type.slots

    if n.op == "const":
        c = n.attrs[0]
        if isinstance(c, VecRef):
            c = c.values()
        return [float(x) for x in c] if isinstance(c, tuple) else [float(c)] * width  # type: ignore[arg-type]
    if n.op == "empty":
        return [0.0] * width
    args = [vec(a) for a in n.args]
    if any(a is None for a in args) or n.op in ("input", "decode"):
        return None
    a = args
    if n.op == "add":
        return [x + y for x, y in zip(a[0], a[1], strict=True)]  # type: ignore[arg-type]
    if n.op == "sub":
        return [x - y for x, y in zip(a[0], a[1], strict=True)]  # type: ignore[arg-type]
    if n.op == "mul":
        return [x * y for x, y in zip(a[0], a[1], strict=True)]  # type: ignore[arg-type]
    if n.op == "neg":
        return [-x for x in a[0]]  # type: ignore[union-attr]
    if n.op == "rotate":
        k = int(n.attrs[0]) % width  # type: ignore[call-overload]
        return a[0][k:] + a[0][:k]  # type: ignore[index,operator]
    if n.op == "extract":
        return [a[0][int(n.attrs[0])]]  # type: ignore[call-overload,index]
    if n.op == "insert":
        out = list(a[1])  # type: ignore[arg-type]
        out[int(n.attrs[0])] = a[0][0]  # type: ignore[call-overload,index]
        return out
    if n.op == "from_elements":
        return [x[0] for x in a]  # type: ignore[index]
    if n.op == "splat":
        return [a[0][0]] * width  # type: ignore[index]
    return list(a[0]) if a and a[0] is not None else None  # management ops: identity


def op_bits(op: str, arg_bits: list[float | None], plain_scale: float) -> float:
    """Noise of one op's result from its operands' bounds (``None`` = plaintext operand).

    ``plain_scale`` is ``plain_operand_bits`` of the plaintext operand of a ciphertext-plaintext
    ``mul`` (ignored otherwise).
    """
    sec = [x for x in arg_bits if x is not None]
    if op in FRESH_OPS:
        return float(FRESH)
    if op in ("add", "sub", "neg"):
        return max(sec) + 1
    if op == "mul":
        return sec[0] + sec[1] if len(sec) == 2 else sec[0] + plain_scale
    return max(sec, default=float(FRESH))  # neg, rotate, extract, insert, splat, management


def analyze(prog: Program) -> NoiseReport:
    """Noise bound of every live secret value; illegal if any exceeds ``LIMIT``."""
    bits: dict[int, float] = {}
    mags = plain_magnitudes(prog)
    first_bad = None
    for i in prog.live():
        n = prog.nodes[i]
        if not n.type.secret:
            continue
        a = [bits.get(x) for x in n.args]
        plain = [x for x in n.args if x in mags]
        b = op_bits(n.op, a, plain_operand_bits(mags[plain[0]]) if plain and n.op == "mul" else 0.0)
        bits[i] = b
        if b > LIMIT and first_bad is None:
            first_bad = i
    mx = max(bits.values(), default=0.0)
    return NoiseReport(bits, mx, first_bad is None, first_bad)


def check(prog: Program) -> None:
    """Raise ``NoiseError`` naming the first value that exceeds the budget."""
    rep = analyze(prog)
    if not rep.legal:
        i = rep.first_illegal
        assert i is not None
        raise NoiseError(
            f"value %{i} ({prog.nodes[i].op}) has {rep.bits[i]:g} bits of noise, over the budget of {LIMIT}"
        )


