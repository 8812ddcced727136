"""Cleartext interpreter: runs a ``Program`` on plain numbers.

In: a ``Program`` and its inputs (argument name -> number or flat/nested list).
Out: the results in return order, each a number (scalar) or a flat list (tensor).
Integer programs compute exactly, or modulo ``modulus`` when given (BGV's t);
float programs compute in float64.  Management ops are the identity.  This is the
reference every optimized and every encrypted run is compared against.

Inside ``evaluate`` a tensor is a numpy array: float64 for float types; for integer
types int64 when ``modulus`` < 2**31 (every op reduces, so products stay below 2**62),
else ``dtype=object`` (Python ints: exact, unbounded).  Scalars are Python numbers,
and results are converted back (``.tolist()``), so callers only see Python values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from eqsat.errors import UserError
from eqsat.ir import Program, Type, VecRef

Value = int | float | list[int | float]
_Array = npt.NDArray[Any]
_Val = int | float | _Array  # inside ``evaluate``: a tensor is a numpy array


class InputError(UserError, ValueError):
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
    # int64 is exact when every value is reduced below modulus < 2**31 (products < 2**62);
    # otherwise integer vectors hold Python ints (dtype=object): exact and unbounded
    int_dtype: type = np.int64 if modulus and 0 < modulus < 2**31 else object
    env: dict[int, _Val] = {}
    # int64 vectors are reduced lazily: ``bound[i]`` is a bound on |value| of vector ``i``
    # (absent: reduced, below ``modulus``); an op reduces only when its result could pass
    # 2**62, and results and extracted slots are reduced.  Arithmetic mod t commutes with the
    # ring operations, so the values are those of reducing after every op (a 4096x4096 matvec
    # spent most of its check in ``%``).
    lazy = int_dtype is np.int64
    t = modulus or 1  # the modulus on the lazy path (set whenever ``lazy``)
    bound: dict[int, int] = {}

    def red(x: int | float) -> int | float:
        if modulus and isinstance(x, int):
            return x % modulus
        return x

    def dtype(ty: Type) -> type:
        return np.float64 if ty.is_float else int_dtype

    def array(vals: Sequence[int | float], ty: Type) -> _Array:
        if ty.is_float:
            return np.array(vals, dtype=np.float64)
        out: _Array = np.empty(len(vals), dtype=int_dtype)
        out[:] = vals  # element-wise: keeps Python ints as they are in an object array
        return out

    def vec(i: int) -> _Array:
        v = env[i]
        if isinstance(v, np.ndarray):
            return v
        ty = prog.nodes[i].type
        return np.full(ty.slots, v, dtype=dtype(ty))

    def reduced(i: int) -> _Array:
        """Vector ``i`` in ``[0, modulus)`` (lazy path); the reduced array replaces it in ``env``."""
        v = vec(i)
        if i in bound:  # possibly negative or past modulus
            v = v % t  # a new array: ``v`` may be aliased by an identity op
            env[i] = v
            del bound[i]
        return v

    def held_vector(held: _Array) -> tuple[_Array, int]:
        """A registered integer vector as an int64 array and its bound, reduced when large."""
        b = int(np.abs(held).max()) if held.size else 0
        if b < 2**31:
            return held, b
        return held % t, t

    order = prog.live()
    uses: dict[int, int] = {}  # as ``prog.uses()``, without walking the program twice
    for i in order:
        for a in prog.nodes[i].args:
            uses[a] = uses.get(a, 0) + 1
    for res in prog.results:
        uses[res] = uses.get(res, 0) + 1
    results = set(prog.results)
    left = dict(uses)  # uses not yet evaluated: a value is dropped after its last use
    owned: set[int] = set()  # nodes whose array was built by an insert (not aliased)
    # inf and nan arise silently, as with Python floats
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for i in order:
            n = prog.nodes[i]
            op = n.op
            ty = n.type
            if op == "input":
                val = coerce_input(str(n.attrs[0]), inputs[str(n.attrs[0])], ty, modulus)
                env[i] = array(val, ty) if isinstance(val, list) else val
            elif op == "const":
                c = n.attrs[0]
                if isinstance(c, VecRef):
                    from eqsat.algebra.linmap import lookup_vector

                    held = lookup_vector(c.handle)
                    if held.dtype.kind == "i" and lazy:  # whole: no per-slot Python, reduced lazily
                        env[i], bound[i] = held_vector(held)
                        continue
                    c = tuple(held.tolist())
                if isinstance(c, tuple):
                    env[i] = array([red(x) for x in c], ty)
                elif ty.is_scalar:
                    env[i] = red(c)  # type: ignore[arg-type]
                else:
                    env[i] = np.full(ty.slots, red(c), dtype=dtype(ty))  # type: ignore[arg-type]
            elif op == "empty":
                env[i] = np.zeros(ty.slots, dtype=dtype(ty))
            elif op in ("add", "sub", "mul"):
                a, b = n.args
                if ty.is_scalar:
                    env[i] = red(_bin(op, env[a], env[b]))
                elif lazy and not ty.is_float:
                    ba, bb = bound.get(a, t), bound.get(b, t)
                    if op == "mul":
                        if ba * bb >= 2**62:
                            x, y = reduced(a), reduced(b)
                            ba = bb = t
                        else:
                            x, y = vec(a), vec(b)
                        r, rb = x * y, ba * bb
                    else:
                        r, rb = _bin(op, vec(a), vec(b)), ba + bb  # < 2**63: both bounds are < 2**62
                    if rb >= 2**62:
                        r %= t
                    else:
                        bound[i] = rb
                    env[i] = r
                else:
                    r = _bin(op, vec(a), vec(b))
                    if modulus and not ty.is_float:
                        r %= modulus
                    env[i] = r
            elif op == "neg":
                v = env[n.args[0]]
                if isinstance(v, np.ndarray):
                    r = -v
                    if lazy and not ty.is_float:
                        bound[i] = bound.get(n.args[0], t)
                    elif modulus and not ty.is_float:
                        r %= modulus
                    env[i] = r
                else:
                    env[i] = red(-v)
            elif op == "rotate":
                v = vec(n.args[0])
                k = int(n.attrs[0]) % len(v)  # type: ignore[call-overload]
                # result[i] = v[(i + k) mod n], i.e. np.roll(v, -k); concatenate is the same, cheaper
                env[i] = np.concatenate((v[k:], v[:k]))
                if n.args[0] in bound:
                    bound[i] = bound[n.args[0]]
            elif op == "linmap":
                from eqsat.algebra.linmap import lookup

                v = vec(n.args[0])
                m = lookup(str(n.attrs[0]))
                acc: _Array = np.zeros(ty.slots, dtype=dtype(ty))
                if lazy and not ty.is_float and all(c.dtype.kind == "i" for c in m.diags.values()):
                    v, acc_b = reduced(n.args[0]), 0
                    for d, coef in m.diags.items():
                        c, cb = held_vector(coef)
                        if acc_b + cb * t >= 2**62:
                            acc %= t
                            acc_b = t
                        acc = acc + c * np.concatenate((v[d:], v[:d]))
                        acc_b += cb * t
                    bound[i] = acc_b
                    env[i] = acc
                    continue
                for d, coef in m.diags.items():
                    if ty.is_float:
                        c = coef.astype(np.float64)
                    elif int_dtype is np.int64 and coef.dtype.kind == "i":
                        c = coef % modulus  # whole-vector: no per-slot Python
                    else:
                        c = array(coef.tolist(), ty)
                    acc = acc + c * np.concatenate((v[d:], v[:d]))
                    if modulus and not ty.is_float:
                        acc %= modulus
                env[i] = acc
            elif op == "extract":
                x = vec(n.args[0])[int(n.attrs[0])]  # type: ignore[call-overload]
                env[i] = red(x.item()) if isinstance(x, np.generic) else x  # a Python number
            elif op == "insert":
                s, v = n.args
                # a base used only here, whose array no other node aliases, is written in place
                # (copying made a chain of n inserts O(n^2): 30 s on a 32x32 stencil)
                base = env[v]
                if v in owned and uses.get(v, 0) == 1 and v not in results and isinstance(base, np.ndarray):
                    out = base
                else:
                    out = vec(v).copy()
                out[int(n.attrs[0])] = env[s]  # type: ignore[call-overload]
                env[i] = out
                if v in bound:
                    bound[i] = bound[v]
                owned.add(i)
            elif op == "from_elements":
                env[i] = array([env[a] for a in n.args], ty)  # type: ignore[misc]
            elif op == "splat":
                env[i] = np.full(ty.slots, env[n.args[0]], dtype=dtype(ty))
            else:  # encode, decode and the management ops are the identity on values
                env[i] = env[n.args[0]]
                if n.args[0] in bound:
                    bound[i] = bound[n.args[0]]
            for a in n.args:
                left[a] -= 1
                if not left[a] and a not in results:
                    del env[a]
    return [_public(reduced(r) if r in bound else env[r]) for r in prog.results]


def _public(v: _Val) -> Value:
    """An internal value as ``evaluate`` returns it: a Python number or a flat list."""
    return v.tolist() if isinstance(v, np.ndarray) else v


def _bin(op: str, x: Any, y: Any) -> Any:
    """``x op y`` on two Python numbers or two arrays of one length."""
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


def results_equal(
    a: Sequence[Value], b: Sequence[Value], modulus: int | None = None, tol: float = 1e-6
) -> bool:
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


# -- the one integer semantics ------------------------------------------------------
# Integer programs mean arithmetic modulo the plaintext modulus t of the scheme they run
# under (BGV's t; 65537 for every ring dimension up to 2^15, see backend.params); a
# declared width ``iN`` is a promise that every value fits N bits.  Constants are exact
# integers everywhere (rules fold over Z, which is sound modulo any t); a constant that
# does not fit its declared width makes the program's meaning depend on whether one
# wraps at N bits or reduces mod t, so it is refused (``WidthError``), never wrapped.
PLAINTEXT_MODULUS = 65537


class WidthError(UserError):
    """A constant (as written or folded) that does not fit its declared integer width."""


def int_range(elem: str) -> tuple[int, int] | None:
    """The values an ``iN``/``uN`` element holds, ``[-2^(N-1), 2^(N-1))``: MLIR reads an
    integer literal as N two's-complement bits (``200 : i8`` is -56), so only these print and
    read back unchanged; ``None`` for floats, ``index`` and unknown names."""
    digits = elem[1:]
    if not elem or elem[0] not in "iu" or not digits.isdigit():
        return None
    n = int(digits)
    return -(1 << (n - 1)), 1 << (n - 1)


def fits(value: int, elem: str) -> bool:
    """Whether the exact integer ``value`` is a literal of element type ``elem``."""
    r = int_range(elem)
    return r is None or r[0] <= value < r[1]


def constant_values(prog: Program | Any, i: int, cache: dict[int, tuple[int, ...] | None]) -> tuple[int, ...] | None:
    """Exact slot values of plaintext integer node ``i`` when it is computed from constants
    only (``None`` otherwise).  ``prog`` is a ``Program`` or a ``Builder`` (anything with
    ``nodes``); ``cache`` memoises across calls."""
    if i in cache:
        return cache[i]
    n = prog.nodes[i]
    out: tuple[int, ...] | None = None
    if not n.type.secret and not n.type.is_float:
        slots = n.type.slots
        if n.op == "const":
            c = n.attrs[0]
            vals = c if isinstance(c, tuple) else (c,) * slots
            out = tuple(int(v) for v in vals) if all(isinstance(v, int) for v in vals) else None  # type: ignore[arg-type]
        elif n.op == "empty":
            out = (0,) * slots
        elif n.op in ("add", "sub", "mul", "neg", "splat", "extract", "rotate"):
            got = [constant_values(prog, a, cache) for a in n.args]
            args: list[tuple[int, ...]] = [a for a in got if a is not None]
            if len(args) == len(got):
                vs = [a if len(a) == slots else a * slots for a in args]
                attr = int(str(n.attrs[0])) if n.attrs and n.op in ("extract", "rotate") else 0
                if n.op == "neg":
                    out = tuple(-x for x in vs[0])
                elif n.op == "splat":
                    out = (args[0][0],) * slots
                elif n.op == "extract":
                    out = (args[0][attr],)
                elif n.op == "rotate":
                    k = attr % slots
                    out = tuple(vs[0][k:] + vs[0][:k])
                else:
                    out = tuple(_bin(n.op, x, y) for x, y in zip(vs[0], vs[1], strict=True))
    cache[i] = out
    return out


def width_violations(prog: Program) -> list[tuple[int, int]]:
    """``(node, value)`` for every live plaintext integer node computed from constants whose
    exact value does not fit its declared width."""
    cache: dict[int, tuple[int, ...] | None] = {}
    bad: list[tuple[int, int]] = []
    for i in prog.live():
        vals = constant_values(prog, i, cache)
        if vals:
            elem = prog.nodes[i].type.elem
            wrong = [v for v in vals if not fits(v, elem)]
            if wrong:
                bad.append((i, wrong[0]))
    return bad
