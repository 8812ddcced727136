"""Cleartext interpreter: runs a ``Program`` on plain numbers.

In: a ``Program`` and its inputs (argument name -> number or flat/nested list).
Out: the results in return order, each a number (scalar) or a flat list (tensor).
Integer programs compute exactly, or modulo ``modulus`` when given (BGV's t);
float programs compute in float64.  Management ops are the identity.  This is the
reference every optimized and every encrypted run is compared against.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .ir import Program, Type

Value = int | float | list[int | float]


class InputError(ValueError):
    """Inputs that do not fit the program's arguments."""


def _flatten(x: object) -> list[object]:
    if isinstance(x, list | tuple):
        out: list[object] = []
        for e in x:
            out.extend(_flatten(e))
        return out
    return [x]


def coerce_input(name: str, value: object, ty: Type, modulus: int | None) -> Value:
    """Check one input against its type and normalise it (flatten, reduce)."""
    flat = _flatten(value)
    for v in flat:
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise InputError(f"input '{name}' holds {v!r}, not a number")
    if len(flat) != ty.slots:
        raise InputError(f"input '{name}' has {len(flat)} values, its type {ty} needs {ty.slots}")
    conv: list[int | float]
    if ty.is_float:
        conv = [float(v) for v in flat]  # type: ignore[arg-type]
    else:
        if any(isinstance(v, float) and not v.is_integer() for v in flat):
            raise InputError(f"input '{name}' has a non-integer value for an integer type")
        conv = [int(v) for v in flat]  # type: ignore[call-overload]
        if modulus:
            conv = [v % modulus for v in conv]
    return conv[0] if ty.is_scalar else conv


def evaluate(prog: Program, inputs: Mapping[str, object], modulus: int | None = None) -> list[Value]:
    """Evaluate ``prog`` on ``inputs``; see the module docstring."""
    missing = [n for n, _ in prog.args if n not in inputs]
    if missing:
        raise InputError(f"missing input(s): {', '.join(missing)}")
    env: dict[int, Value] = {}

    def red(x: int | float) -> int | float:
        if modulus and isinstance(x, int):
            return x % modulus
        return x

    def vec(i: int) -> list[int | float]:
        v = env[i]
        return v if isinstance(v, list) else [v] * prog.nodes[i].type.slots

    uses = prog.uses()
    results = set(prog.results)
    owned: set[int] = set()  # nodes whose list was built by an insert (not aliased)
    for i in prog.live():
        n = prog.nodes[i]
        op = n.op
        if op == "input":
            env[i] = coerce_input(str(n.attrs[0]), inputs[str(n.attrs[0])], n.type, modulus)
        elif op == "const":
            c = n.attrs[0]
            if isinstance(c, tuple):
                env[i] = [red(x) for x in c]
            elif n.type.is_scalar:
                env[i] = red(c)  # type: ignore[arg-type]
            else:
                env[i] = [red(c)] * n.type.slots  # type: ignore[arg-type]
        elif op == "empty":
            env[i] = [0.0 if n.type.is_float else 0] * n.type.slots
        elif op in ("add", "sub", "mul"):
            a, b = n.args
            if n.type.is_scalar:
                x, y = env[a], env[b]
                env[i] = red(_bin(op, x, y))  # type: ignore[arg-type]
            else:
                env[i] = [red(_bin(op, x, y)) for x, y in zip(vec(a), vec(b), strict=True)]
        elif op == "neg":
            v = env[n.args[0]]
            env[i] = [red(-x) for x in v] if isinstance(v, list) else red(-v)
        elif op == "rotate":
            v = vec(n.args[0])
            k = int(n.attrs[0]) % len(v)  # type: ignore[call-overload]
            env[i] = v[k:] + v[:k]
        elif op == "extract":
            env[i] = vec(n.args[0])[int(n.attrs[0])]  # type: ignore[call-overload]
        elif op == "insert":
            s, v = n.args
            # a base used only here, whose list no other node aliases, is written in place
            # (copying made a chain of n inserts O(n^2): 30 s on a 32x32 stencil)
            base = env[v]
            if v in owned and uses.get(v, 0) == 1 and v not in results and isinstance(base, list):
                out = base
            else:
                out = list(vec(v))
            out[int(n.attrs[0])] = env[s]  # type: ignore[call-overload,assignment]
            env[i] = out
            owned.add(i)
        elif op == "from_elements":
            env[i] = [env[a] for a in n.args]  # type: ignore[misc]
        elif op == "splat":
            env[i] = [env[n.args[0]]] * n.type.slots  # type: ignore[list-item]
        else:  # encode, decode and the management ops are the identity on values
            env[i] = env[n.args[0]]
    return [env[r] for r in prog.results]


def _bin(op: str, x: int | float, y: int | float) -> int | float:
    if op == "add":
        return x + y
    if op == "sub":
        return x - y
    return x * y


def random_inputs(prog: Program, seed: int, modulus: int | None = None, bound: int = 8) -> dict[str, Value]:
    """Deterministic random inputs for every argument (small values, or floats in [-1, 1])."""
    import random

    rng = random.Random(seed)
    out: dict[str, Value] = {}
    for name, ty in prog.args:
        if ty.is_float:
            vals: list[int | float] = [rng.uniform(-1.0, 1.0) for _ in range(ty.slots)]
        else:
            vals = [rng.randrange(bound) for _ in range(ty.slots)]
        out[name] = vals[0] if ty.is_scalar else vals
    return out


def results_equal(a: Sequence[Value], b: Sequence[Value], modulus: int | None = None, tol: float = 1e-6) -> bool:
    """Compare two result lists (exactly, modulo ``modulus``, or within ``tol`` for floats)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        xs = x if isinstance(x, list) else [x]
        ys = y if isinstance(y, list) else [y]
        if len(xs) != len(ys):
            return False
        for u, v in zip(xs, ys, strict=True):
            if isinstance(u, float) or isinstance(v, float):
                if abs(u - v) > tol * max(1.0, abs(u), abs(v)):
                    return False
            elif modulus:
                if (u - v) % modulus:
                    return False
            elif u != v:
                return False
    return True
