"""The Python API: trace ordinary Python functions into FHE programs.

In: a Python function over secret values, written with ``+ - *``, unary ``-``, indexing
(``x[i]`` reads a slot), ``rotate(x, k)``, ``vector([...])`` and plain numbers.  Out: an
IR ``Program`` (``trace``/``@program``), which ``eqsat.optimize`` optimizes exactly as
the CLI does for MLIR input.

Example::

    from eqsat import program, secret_vector, optimize

    @program(x=secret_vector(8, "i16"))
    def total(x):
        return sum(x[i] for i in range(8))

    result = optimize(total, scheme="bgv")
    print(result.report["after"]["ops"], result.to_mlir())
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from eqsat.ir import Builder, Program, Type


@dataclass(frozen=True)
class ArgSpec:
    """The type of one traced argument."""

    type: Type


ELEM_TYPES = ("i1", "i2", "i3", "i4", "i5", "i8", "i16", "i32", "i64", "f16", "f32", "f64")


def _spec(shape: tuple[int, ...], elem: str, secret: bool) -> ArgSpec:
    """An argument type, checked now (a bad element type or size fails here, not later)."""
    if not isinstance(elem, str) or not (elem in ELEM_TYPES or (elem[:1] == "i" and elem[1:].isdigit()
                                                                 and 0 < int(elem[1:]) <= 64)):
        raise ValueError(f"unknown element type {elem!r} (use iN for N <= 64, f16, f32 or f64)")
    if any(not isinstance(d, int) or isinstance(d, bool) or d < 1 for d in shape):
        raise ValueError(f"a vector needs a positive integer length, not {shape[0]!r}")
    return ArgSpec(Type(shape, elem, secret))


def secret_vector(n: int, elem: str = "i16") -> ArgSpec:
    """A ciphertext vector of ``n`` slots."""
    return _spec((n,), elem, True)


def secret_scalar(elem: str = "i16") -> ArgSpec:
    """A ciphertext scalar."""
    return _spec((), elem, True)


def plain_vector(n: int, elem: str = "i16") -> ArgSpec:
    """A plaintext vector argument (e.g. weights known to the evaluator)."""
    return _spec((n,), elem, False)


def plain_scalar(elem: str = "i16") -> ArgSpec:
    """A plaintext scalar argument."""
    return _spec((), elem, False)


_ACTIVE: list[Builder] = []  # the builders of the traces running now (innermost last)


class Value:
    """A traced SSA value; arithmetic on it records IR nodes in the active builder."""

    __slots__ = ("b", "id")
    __array_ufunc__ = None  # ``numpy_array * value`` defers to ``value.__rmul__``

    def __init__(self, b: Builder, i: int) -> None:
        self.b, self.id = b, i

    @property
    def type(self) -> Type:
        return self.b.type_of(self.id)

    def _lift(self, other: object) -> Value:
        if isinstance(other, Value):
            if other.b is not self.b:
                raise ValueError("values from two different traces cannot be combined")
            return other
        tolist = getattr(other, "tolist", None)
        if callable(tolist):  # a numpy array or number
            other = tolist()
        if isinstance(other, list | tuple):  # a plaintext vector of weights
            flat = _numbers(other)
            if len(flat) != self.type.slots or self.type.is_scalar:
                raise ValueError(
                    f"a plaintext vector of {len(flat)} values cannot combine with {self.type} "
                    f"({self.type.slots} slots)")
            return Value(self.b, self.b.const(tuple(flat), self.type.with_secret(False)))
        if isinstance(other, bool) or not isinstance(other, int | float):
            raise TypeError(f"cannot combine a traced value with {type(other).__name__}")
        ty = self.type.with_secret(False)
        return Value(self.b, self.b.const(other, ty))

    def _bin(self, op: str, other: object, swap: bool = False) -> Value:
        o = self._lift(other)
        a, c = (o, self) if swap else (self, o)
        return Value(self.b, self.b.binary(op, a.id, c.id))

    def __add__(self, o: object) -> Value:
        return self._bin("add", o)

    def __radd__(self, o: object) -> Value:
        if isinstance(o, int) and o == 0 and not isinstance(o, bool):  # sum() starts from 0
            return self
        return self._bin("add", o, swap=True)

    def __sub__(self, o: object) -> Value:
        return self._bin("sub", o)

    def __rsub__(self, o: object) -> Value:
        return self._bin("sub", o, swap=True)

    def __mul__(self, o: object) -> Value:
        return self._bin("mul", o)

    def __rmul__(self, o: object) -> Value:
        return self._bin("mul", o, swap=True)

    def __neg__(self) -> Value:
        return Value(self.b, self.b.neg(self.id))

    def __pow__(self, k: int) -> Value:
        if not isinstance(k, int) or k < 1:
            raise ValueError("only positive integer powers can be traced")
        out = self
        for _ in range(k - 1):
            out = out * self
        return out

    def __getitem__(self, i: int) -> Value:
        if not isinstance(i, int):
            raise TypeError("slot indices must be Python ints")
        n = self.type.slots
        return Value(self.b, self.b.extract(self.id, i % n if i < 0 else i))

    def __len__(self) -> int:
        return self.type.slots

    def __iter__(self):  # type: ignore[no-untyped-def]
        return (self[i] for i in range(len(self)))


def rotate(v: Value, k: int) -> Value:
    """``v`` rotated left by ``k`` slots (``result[i] = v[(i + k) mod n]``)."""
    return Value(v.b, v.b.rotate(v.id, k))


def _numbers(xs: Sequence[object]) -> list[int | float]:
    out: list[int | float] = []
    for x in xs:
        if isinstance(x, list | tuple):
            out.extend(_numbers(x))
        elif isinstance(x, bool) or not isinstance(x, int | float):
            raise TypeError(f"a plaintext vector holds numbers, not {type(x).__name__}")
        else:
            out.append(x)
    return out


def vector(elems: Sequence[Value | int | float], elem: str | None = None) -> Value:
    """A vector built slot by slot from traced scalars and numbers; of numbers only (a
    list or numpy array), a plaintext constant vector of the running trace."""
    tolist = getattr(elems, "tolist", None)
    if callable(tolist):
        elems = tolist()
    first = next((e for e in elems if isinstance(e, Value)), None)
    if first is None:
        if not _ACTIVE:
            raise ValueError("vector() of numbers is used inside a traced function")
        b = _ACTIVE[-1]
        kind = elem or next((t.elem for _, t in b.args), "i16")
        flat = _numbers(list(elems))
        return Value(b, b.const(tuple(flat), Type((len(flat),), kind, False)))
    scalar = first.type.scalar().with_secret(False)
    ids = [e.id if isinstance(e, Value) else first.b.const(e, scalar) for e in elems]
    return Value(first.b, first.b.from_elements(ids, Type((len(ids),), first.type.elem, True)))


def trace(fn: Callable[..., object], args: dict[str, ArgSpec], name: str | None = None) -> Program:
    """Run ``fn`` on traced arguments and return the program it computes."""
    b = Builder(name or fn.__name__)
    params = list(inspect.signature(fn).parameters)
    missing = [p for p in params if p not in args]
    if missing:
        raise TypeError(f"no type given for argument(s) {', '.join(missing)} of {fn.__name__}")
    vals = {p: Value(b, b.arg(p, args[p].type)) for p in params}
    _ACTIVE.append(b)
    try:
        out = fn(**vals)
    finally:
        _ACTIVE.pop()
    raw = list(out) if isinstance(out, tuple | list) else [out]
    outs: list[Value] = []
    for o in raw:
        if not isinstance(o, Value):
            raise TypeError(f"{fn.__name__} must return traced values, not {type(o).__name__}")
        outs.append(o)
    return b.finish([o.id for o in outs])


def program(**args: ArgSpec) -> Callable[[Callable[..., object]], Program]:
    """Decorator: ``@program(x=secret_vector(8))`` turns a function into a ``Program``."""

    def deco(fn: Callable[..., object]) -> Program:
        return trace(fn, args)

    return deco
