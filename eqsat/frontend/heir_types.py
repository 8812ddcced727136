"""HEIR-style argument types for ``@eqsat.compile``: ``Secret[I16]``, ``Secret[Tensor[[8], I16]]``.

In: annotations written the way HEIR's Python frontend (heir_py, ``heir.mlir``) writes
them -- element types ``I1 … I64``, ``F16``/``F32``/``F64``, ``Tensor[[n], T]`` (a vector;
``[h, w]`` is a row-major matrix) and ``Secret[...]`` around what the client encrypts;
anything not wrapped in ``Secret`` is a plaintext argument.  Out: the ``ArgSpec`` the
tracer takes (``as_argspec``), so a function typed for heir_py traces here unchanged::

    @eqsat.compile(scheme="bgv")
    def dot(x: Secret[Tensor[[8], I16]], w: Tensor[[8], I16]): ...
"""

from __future__ import annotations

from dataclasses import dataclass

from eqsat.frontend.trace import ArgSpec, _spec


@dataclass(frozen=True)
class ElemType:
    """A scalar element type (``I16``, ``F64``, …)."""

    name: str

    def __repr__(self) -> str:
        return self.name.upper()


@dataclass(frozen=True)
class TensorType:
    """A statically shaped tensor of one element type."""

    shape: tuple[int, ...]
    elem: ElemType

    def __repr__(self) -> str:
        return f"Tensor[{list(self.shape)}, {self.elem!r}]"


@dataclass(frozen=True)
class SecretType:
    """What the client encrypts: a scalar or a tensor."""

    inner: ElemType | TensorType

    def __repr__(self) -> str:
        return f"Secret[{self.inner!r}]"


I1, I8, I16, I32, I64 = (ElemType(f"i{w}") for w in (1, 8, 16, 32, 64))
F16, F32, F64 = (ElemType(f"f{w}") for w in (16, 32, 64))


class Tensor:
    """``Tensor[[n], I16]`` / ``Tensor[[h, w], F64]``: a statically shaped tensor type."""

    def __class_getitem__(cls, params: tuple[object, object]) -> TensorType:
        if not (isinstance(params, tuple) and len(params) == 2):
            raise TypeError("write Tensor[[n], ElemType], e.g. Tensor[[8], I16]")
        shape, elem = params
        if not isinstance(elem, ElemType):
            raise TypeError(f"Tensor element type must be one of I1…I64, F16, F32, F64, not {elem!r}")
        if not isinstance(shape, list | tuple) or not shape or not all(isinstance(d, int) for d in shape):
            raise TypeError(f"Tensor shape must be a non-empty list of sizes, not {shape!r}")
        return TensorType(tuple(shape), elem)


class Secret:
    """``Secret[T]``: an argument the client encrypts (``T`` an element or tensor type)."""

    def __class_getitem__(cls, inner: object) -> SecretType:
        if not isinstance(inner, ElemType | TensorType):
            raise TypeError(f"Secret[...] takes an element or Tensor type, not {inner!r}")
        return SecretType(inner)


def as_argspec(annotation: object) -> ArgSpec | None:
    """The tracer's type for a HEIR-style annotation (``None`` if it is not one)."""
    if isinstance(annotation, ArgSpec):
        return annotation
    secret = isinstance(annotation, SecretType)
    inner = annotation.inner if isinstance(annotation, SecretType) else annotation
    if isinstance(inner, ElemType):
        return _spec((), inner.name, secret)
    if isinstance(inner, TensorType):
        return _spec(inner.shape, inner.elem.name, secret)
    return None
