"""Tests for the cleartext interpreter ``eqsat.interp.evaluate`` (numpy-backed vectors).

In: random small programs built with ``eqsat.ir.Builder`` (hypothesis), hand-written
programs that overflow int64, and a 4096-slot program of ~8k vector ops.
Out: pass/fail.  The property test compares ``evaluate`` with ``reference_evaluate``
below, a deliberately naive interpreter on Python lists, for integer programs with and
without a modulus (int64 and Python-int vectors inside ``evaluate``) and float programs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Builder, Program, Type

Num = int | float


# -- the reference: Python lists, one element at a time ------------------------------
def reference_evaluate(prog: Program, inputs: Mapping[str, Any], modulus: int | None) -> list[Any]:
    """Every node of ``prog`` (dead ones too) on plain lists; same contract as ``evaluate``."""
    env: dict[int, Any] = {}  # a number or a list of numbers

    def red(x: Num, ty: Type) -> Num:
        return x % modulus if modulus and not ty.is_float else x

    for i, n in enumerate(prog.nodes):
        ty = n.type
        if n.op == "input":
            raw = inputs[str(n.attrs[0])]
            raws = raw if isinstance(raw, list) else [raw]
            vals = [float(v) if ty.is_float else red(int(v), ty) for v in raws]
            env[i] = vals[0] if ty.is_scalar else vals
        elif n.op == "const":
            c = n.attrs[0]
            if isinstance(c, tuple):
                env[i] = [red(v, ty) for v in c]
            else:
                assert isinstance(c, int | float)
                env[i] = red(c, ty) if ty.is_scalar else [red(c, ty)] * ty.slots
        elif n.op == "empty":
            env[i] = [0.0 if ty.is_float else 0] * ty.slots
        elif n.op in ("add", "sub", "mul"):
            a, b = env[n.args[0]], env[n.args[1]]
            xs, ys = (a, b) if isinstance(a, list) else ([a], [b])
            out: list[Num] = []
            for x, y in zip(xs, ys, strict=True):
                z = x + y if n.op == "add" else x - y if n.op == "sub" else x * y
                out.append(red(z, ty))
            env[i] = out if ty.shape else out[0]
        elif n.op == "neg":
            a = env[n.args[0]]
            env[i] = [red(-x, ty) for x in a] if isinstance(a, list) else red(-a, ty)
        elif n.op == "rotate":
            v = env[n.args[0]]
            assert isinstance(v, list) and isinstance(n.attrs[0], int)
            env[i] = [v[(j + n.attrs[0]) % len(v)] for j in range(len(v))]
        elif n.op == "extract":
            v = env[n.args[0]]
            assert isinstance(v, list) and isinstance(n.attrs[0], int)
            env[i] = v[n.attrs[0]]
        elif n.op == "insert":
            s, v = env[n.args[0]], env[n.args[1]]
            assert isinstance(v, list) and not isinstance(s, list) and isinstance(n.attrs[0], int)
            v = list(v)
            v[n.attrs[0]] = s
            env[i] = v
        elif n.op == "from_elements":
            env[i] = [env[a] for a in n.args]  # type: ignore[misc]
        elif n.op == "splat":
            s = env[n.args[0]]
            assert not isinstance(s, list)
            env[i] = [s] * ty.slots
        else:  # encode, decode, management ops
            env[i] = env[n.args[0]]
    return [env[r] for r in prog.results]


# -- random programs -----------------------------------------------------------------
KINDS = {
    # name: (element type, modulus); 2**61 - 1 is above int64's safe range: Python-int vectors
    "int": ("i32", None),
    "int_mod_small": ("i32", 7),
    "int_mod_t": ("i32", 65537),
    "int_mod_31": ("i32", 2**31 - 1),  # int64 vectors reduced lazily, bounds near 2**62
    "int_mod_big": ("i64", 2**61 - 1),
    "float": ("f64", None),
}
OPS = ["add", "sub", "mul", "neg", "rotate", "extract", "insert", "from_elements", "splat", "const",
       "empty", "mgmt"]


@st.composite
def programs(draw: st.DrawFn) -> tuple[Program, dict[str, Any], int | None]:
    kind = draw(st.sampled_from(sorted(KINDS)))
    elem, modulus = KINDS[kind]
    is_float = elem.startswith("f")
    slots = draw(st.integers(min_value=1, max_value=6))
    shape = draw(st.sampled_from([(slots,), (1, slots)] if slots > 1 else [(1,)]))
    tt, st_ = Type(shape, elem, True), Type((), elem, True)
    b = Builder("rand")
    tensors = [b.arg("x0", tt), b.arg("x1", tt)]
    scalars = [b.arg("s0", st_)]

    def number() -> Num:
        if is_float:
            return draw(st.floats(min_value=-4.0, max_value=4.0, allow_nan=False, width=64))
        return draw(st.integers(min_value=-(2**40), max_value=2**40))

    def pick(pool: list[int]) -> int:
        # favour recent values, so chains (of inserts, of products) form
        return pool[-1] if draw(st.booleans()) else draw(st.sampled_from(pool))

    muls = 0
    for _ in range(draw(st.integers(min_value=1, max_value=25))):
        op = draw(st.sampled_from(OPS))
        if op == "mul":
            # at most 6 products: degree <= 64, so exact integers stay a few thousand bits
            # and floats stay finite
            muls += 1
            op = "mul" if muls <= 6 else "add"
        if op in ("add", "sub", "mul"):
            pool = tensors if draw(st.booleans()) else scalars
            pool.append(b.binary(op, pick(pool), pick(pool)))
        elif op == "neg":
            pool = tensors if draw(st.booleans()) else scalars
            pool.append(b.neg(pick(pool)))
        elif op == "rotate":
            k = draw(st.integers(min_value=-2 * slots, max_value=2 * slots))
            tensors.append(b.rotate(pick(tensors), k))
        elif op == "extract":
            scalars.append(b.extract(pick(tensors), draw(st.integers(min_value=0, max_value=slots - 1))))
        elif op == "insert":
            idx = draw(st.integers(min_value=0, max_value=slots - 1))
            tensors.append(b.insert(pick(scalars), pick(tensors), idx))
        elif op == "from_elements":
            tensors.append(b.from_elements([pick(scalars) for _ in range(slots)], tt))
        elif op == "splat":
            tensors.append(b.splat(pick(scalars), tt))
        elif op == "const":
            if draw(st.booleans()):
                scalars.append(b.const(number(), st_.with_secret(False)))
            elif draw(st.booleans()):
                tensors.append(b.const(number(), tt.with_secret(False)))
            else:
                tensors.append(b.const(tuple(number() for _ in range(slots)), tt.with_secret(False)))
        elif op == "empty":
            tensors.append(b.empty(tt))
        else:
            mgmt = draw(st.sampled_from(["relinearize", "modswitch", "encode", "decode"]))
            tensors.append(b.unary(mgmt, pick(tensors)))
    results = draw(st.lists(st.sampled_from(tensors + scalars), min_size=1, max_size=4))
    prog = b.finish(results)
    inputs: dict[str, Any] = {}
    for name, ty in prog.args:
        vals = [number() for _ in range(ty.slots)]
        inputs[name] = vals[0] if ty.is_scalar else vals
    return prog, inputs, modulus


def assert_same(got: Sequence[object], want: Sequence[object], is_float: bool) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert type(g) is type(w), (g, w)  # a list for a tensor, a Python number for a scalar
        for x in g if isinstance(g, list) else [g]:
            assert type(x) is (float if is_float else int), (x, type(x))
        assert g == w  # float64 arithmetic is IEEE in both: exactly equal


@settings(max_examples=300, deadline=None)
@given(programs())
def test_evaluate_matches_list_reference(case: tuple[Program, dict[str, Any], int | None]) -> None:
    prog, inputs, modulus = case
    is_float = prog.args[0][1].is_float
    assert_same(evaluate(prog, inputs, modulus), reference_evaluate(prog, inputs, modulus), is_float)


# -- hand-written cases --------------------------------------------------------------
def squarings(ty: Type, times: int) -> Program:
    b = Builder("squarings")
    x = b.arg("x", ty)
    for _ in range(times):
        x = b.mul(x, x)
    return b.finish([x, b.extract(x, 1)] if ty.shape else [x])


@pytest.mark.parametrize("modulus", [None, 65537, 2**31 - 1, 2**31, 2**61 - 1, 2**127 - 1])
def test_repeated_squaring_overflows_int64_and_stays_exact(modulus: int | None) -> None:
    vals = [1000, -1000, 3, 2**62]
    prog = squarings(Type((4,), "i64", True), 5)  # 1000**32 = 10**96, far past int64
    got = evaluate(prog, {"x": vals}, modulus)
    want = [v**32 if modulus is None else pow(v, 32, modulus) for v in vals]
    assert got == [want, want[1]]
    assert isinstance(got[0], list) and all(type(v) is int for v in got[0])
    assert type(got[1]) is int
    scalar = evaluate(squarings(Type((), "i64", True), 5), {"x": -1000}, modulus)
    assert scalar == [10**96 if modulus is None else pow(1000, 32, modulus)]


def test_negative_values_reduce_to_non_negative_residues() -> None:
    b = Builder("neg")
    x = b.arg("x", Type((3,), "i16", True))
    y = b.sub(b.neg(x), b.const((5, 6, 7), Type((3,), "i16", False)))
    prog = b.finish([y, b.extract(y, 2)])
    assert evaluate(prog, {"x": [1, 2, 3]}, 11) == [[(-6) % 11, (-8) % 11, (-10) % 11], (-10) % 11]
    assert evaluate(prog, {"x": [1, 2, 3]}) == [[-6, -8, -10], -10]


def test_rotate_is_left_rotation() -> None:
    b = Builder("rot")
    x = b.arg("x", Type((5,), "i16", True))
    prog = b.finish([b.rotate(x, 2), b.rotate(x, -1)])
    assert evaluate(prog, {"x": [0, 1, 2, 3, 4]}) == [[2, 3, 4, 0, 1], [4, 0, 1, 2, 3]]


def test_insert_chain_in_place_does_not_leak_into_shared_values() -> None:
    b = Builder("ins")
    ty = Type((4,), "i16", True)
    x = b.arg("x", ty)
    s = b.arg("s", Type((), "i16", True))
    y0 = b.insert(s, x, 0)
    y1 = b.insert(b.add(s, s), y0, 1)  # y0 is also a result: must be copied
    z0 = b.insert(s, y1, 2)
    r = b.unary("relinearize", z0)  # an alias of z0's array
    z1 = b.insert(b.mul(s, s), z0, 3)  # z0 has two uses: copied
    w = b.insert(s, b.insert(s, b.rotate(x, 1), 0), 1)  # a single-use chain: written in place
    prog = b.finish([x, y0, y1, r, z1, w])
    got = evaluate(prog, {"x": [1, 2, 3, 4], "s": 5}, 65537)
    assert got == [[1, 2, 3, 4], [5, 2, 3, 4], [5, 10, 3, 4], [5, 10, 5, 4], [5, 10, 5, 25], [5, 5, 4, 1]]


def test_4096_slot_program_of_thousands_of_vector_ops() -> None:
    """Sum of all 4096 rotations (8190 vector ops): every slot holds sum(x) mod t."""
    n, t = 4096, 65537
    b = Builder("allrot")
    ty = Type((n,), "i16", True)
    x = b.arg("x", ty)
    acc = x
    for k in range(1, n):
        acc = b.add(acc, b.rotate(x, k))
    mask = b.const(tuple(k % 3 for k in range(n)), ty.with_secret(False))
    prog = b.finish([b.mul(acc, mask), b.extract(acc, 17)])
    inputs = random_inputs(prog, 0, t, bound=1000)
    xs = inputs["x"]
    assert isinstance(xs, list)
    total = sum(int(v) for v in xs) % t
    got = evaluate(prog, inputs, t)
    assert got == [[total * (k % 3) % t for k in range(n)], total]
    assert results_equal(got, [[total * (k % 3) for k in range(n)], total + t], t)


@pytest.mark.parametrize("modulus", [65537, 2**31 - 1])
def test_lazy_reduction_of_large_linear_maps_and_handles(modulus: int) -> None:
    """int64 vectors reduced only when a bound could pass 2**62: a linear map and plaintext
    handles with coefficients near 2**40, long sums of products and negations give the
    residues of the exact integers (the Python-int evaluation without a modulus)."""
    import numpy as np

    from eqsat.algebra import linmap
    from eqsat.ir import VecRef

    n = 16
    rng = np.random.default_rng(modulus)
    diags = {d: rng.integers(-(2**40), 2**40, size=n) for d in range(0, n, 3)}
    b = Builder("lazy")
    ty = Type((n,), "i32", True)
    x = b.arg("x", ty)
    y = b.linmap(x, linmap.register(linmap.from_diagonals(diags, n)))
    w = b.const(VecRef(linmap.register_vector(rng.integers(-(2**40), 2**40, size=n))), ty.with_secret(False))
    acc = b.mul(y, w)
    for k in range(40):
        acc = b.add(b.neg(acc) if k % 7 == 0 else acc, b.mul(b.rotate(y, k), b.rotate(x, 2 * k)))
    prog = b.finish([acc, b.mul(acc, acc), b.extract(b.sub(y, acc), 3)])
    inputs = {"x": [int(v) for v in rng.integers(-(2**20), 2**20, size=n)]}
    exact = evaluate(prog, inputs, None)
    want = [[v % modulus for v in r] if isinstance(r, list) else r % modulus for r in exact]  # type: ignore[operator]
    assert evaluate(prog, inputs, modulus) == want
