"""Property test of the template vectorizer on random slot-uniform programs.

A random template (depth <= 3 over <= 3 inputs, constants and reads at random offsets) is
written for every slot of a chain of random width in a random style (insert chain or
``from_elements``, operands of + and * in random order per slot); the optimized program must
have no ``extract``/``insert`` left, at most one rotation per distinct nonzero (input, offset)
read, and compute the same as the source on random inputs.
"""

from __future__ import annotations

import random

import pytest

from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Builder, Program, Type
from eqsat.pipeline import optimize

Tmpl = tuple  # ("read", input, offset) | ("const", c) | (op, left, right)


def random_template(rng: random.Random, depth: int, inputs: int) -> Tmpl:
    if depth == 0 or rng.random() < 0.3:
        if rng.random() < 0.2:
            return ("const", rng.randint(1, 5))
        return ("read", rng.randrange(inputs), rng.randint(-3, 3))
    op = rng.choice(["add", "sub", "mul", "add"])
    return (op, random_template(rng, depth - 1, inputs), random_template(rng, depth - 1, inputs))


def reads(t: Tmpl) -> set[tuple[int, int]]:
    if t[0] == "read":
        return {(t[1], t[2])}
    if t[0] == "const":
        return set()
    return reads(t[1]) | reads(t[2])


def build(t: Tmpl, n: int, style: str, seed: int) -> Program:
    rng = random.Random(seed)
    b = Builder(f"uniform_{seed}")
    ty = Type((n,), "i16", True)
    xs = [b.arg(f"x{k}", ty) for k in range(3)]

    def emit(u: Tmpl, slot: int) -> int:
        if u[0] == "read":
            return b.extract(xs[u[1]], (slot + u[2]) % n)
        if u[0] == "const":
            return b.const(u[1], Type((), "i16", False))
        left, right = emit(u[1], slot), emit(u[2], slot)
        if u[0] != "sub" and rng.random() < 0.5:
            left, right = right, left
        return b.binary(u[0], left, right)

    elems = [emit(t, i) for i in range(n)]
    if style == "from_elements":
        return b.finish([b.from_elements(elems, ty)])
    out = b.empty(ty)
    for i in rng.sample(range(n), n):
        out = b.insert(elems[i], out, i)
    return b.finish([out])


@pytest.mark.parametrize("seed", range(10))
def test_random_slot_uniform_programs_vectorize(seed: int) -> None:
    rng = random.Random(seed)
    t = random_template(rng, 3, 3)
    while not reads(t):
        t = random_template(rng, 3, 3)
    n = rng.choice([4, 5, 9, 16, 24, 40])
    style = rng.choice(["insert", "from_elements"])
    prog = build(t, n, style, seed)
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    distinct = {(x, k % n) for x, k in reads(t) if k % n}
    assert ops.get("extract", 0) == 0 and ops.get("insert", 0) == 0, (t, n, style, ops)
    assert ops.get("rotate", 0) <= len(distinct), (t, n, style, ops)
    for s in range(2):
        inputs = random_inputs(prog, s, bound=20)
        assert results_equal(evaluate(prog, inputs, 65537), evaluate(res.program, inputs, 65537), 65537)


@pytest.mark.parametrize("n", [8, 13])
def test_a_missing_constant_does_not_split_the_slots(n: int) -> None:
    """``out[i] = x[i+2] * (x[i+1] * x[i-2] - d[i])`` where ``d[i]`` is 0 in some slots, which
    then read ``x[i+2] * (x[i+1] * x[i-2])`` (the constant folded away, as a user writes it):
    the product is a term of the slots' aligned sum (the constant's coefficient 0 there), so
    the chain stays one vector form with 2 ct*ct products (slot-uniform full range, seed 44469,
    had 4: a product per group of slots)."""
    rng = random.Random(n)
    d = [0 if k % 3 == 0 else rng.randint(1, 9) for k in range(n)]
    b = Builder(f"missing_const_{n}")
    ty = Type((n,), "i16", True)
    x = b.arg("x", ty)
    elems = []
    for i in range(n):
        prod = b.binary("mul", b.extract(x, (i + 1) % n), b.extract(x, (i - 2) % n))
        inner = prod if d[i] == 0 else b.binary("sub", prod, b.const(d[i], Type((), "i16", False)))
        elems.append(b.binary("mul", b.extract(x, (i + 2) % n), inner))
    prog = b.finish([b.from_elements(elems, ty)])
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("extract", 0) == 0 and ops.get("insert", 0) == 0, ops
    assert ops.get("mul", 0) == 2 and ops.get("rotate", 0) <= 3, ops
    for s in range(2):
        inputs = random_inputs(prog, s, bound=20)
        assert results_equal(evaluate(prog, inputs, 65537), evaluate(res.program, inputs, 65537), 65537)


@pytest.mark.parametrize("n", [16, 128, 141])
def test_a_linear_template_vectorizes_at_every_width(n: int) -> None:
    """``out[i] = x[i-1] + x[i+3] - (9 - x[i-2])`` with wrap-around (slot-uniform full range,
    seed 776213899, 141 slots): the centered core's realization split it into halves with no
    term at offset 0 and no context to realize them, so from 128 slots on the chain came back
    unvectorized; the direct sum of rotations now sits beside every small core."""
    b = Builder(f"linear_{n}")
    ty = Type((n,), "i16", True)
    x = b.arg("x", ty)
    nine = b.const(9, Type((), "i16", False))
    elems = []
    for i in range(n):
        left = b.binary("add", b.extract(x, (i - 1) % n), b.extract(x, (i + 3) % n))
        elems.append(b.binary("sub", left, b.binary("sub", nine, b.extract(x, (i - 2) % n))))
    out = b.empty(ty)
    for i in reversed(range(n)):
        out = b.insert(elems[i], out, i)
    prog = b.finish([out])
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("extract", 0) == 0 and ops.get("insert", 0) == 0, ops
    assert ops.get("rotate", 0) <= 3, ops
    inputs = random_inputs(prog, 1, bound=20)
    assert results_equal(evaluate(prog, inputs, 65537), evaluate(res.program, inputs, 65537), 65537)


@pytest.mark.parametrize("n", [4, 8])
def test_two_alternating_templates_share_as_one_form(n: int) -> None:
    """Even slots ``x[i+1]*x[i+3] + (x[i+1] - x[i+2]) + y[i+3]``, odd slots ``y[i+1]*y[i+2] +
    (y[i] - x[i+3]) + x[i+2]``: ten monomials, each held by half the slots. On 4 slots they
    outnumber the slots but not half the (slot, monomial) pairs, so the chain is one masked
    vector form (5 rotations); an early stop after two slots, which saw ten monomials and ten
    pairs, declined it and left 6."""
    b = Builder(f"alternating_{n}")
    ty = Type((n,), "i16", True)
    x, y = b.arg("x", ty), b.arg("y", ty)

    def e(v: int, i: int) -> int:
        return b.extract(v, i % n)

    elems = []
    for i in range(n):
        if i % 2 == 0:
            t = b.binary("add", b.binary("mul", e(x, i + 1), e(x, i + 3)), b.binary("sub", e(x, i + 1), e(x, i + 2)))
            elems.append(b.binary("add", t, e(y, i + 3)))
        else:
            t = b.binary("add", b.binary("mul", e(y, i + 1), e(y, i + 2)), b.binary("sub", e(y, i), e(x, i + 3)))
            elems.append(b.binary("add", t, e(x, i + 2)))
    prog = b.finish([b.from_elements(elems, ty)])
    res = optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert ops.get("extract", 0) == 0 and ops.get("insert", 0) == 0, ops
    assert ops.get("rotate", 0) <= 5 and ops.get("mul", 0) == 2, ops
    for s in range(2):
        inputs = random_inputs(prog, s, bound=20)
        assert results_equal(evaluate(prog, inputs, 65537), evaluate(res.program, inputs, 65537), 65537)
