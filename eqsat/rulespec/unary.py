"""An oracle's non-negative integer result as a unary string, for ``EggLang.call_int``.

In: an oracle ``fn`` returning a non-negative int.  Out: ``Unary(fn)``, a callable giving
``"|" * fn(*args)`` (egglog has no string-to-integer primitive, but counts matches).

A class at module level, not a closure: egglog unpickles the callable at every call, and a
closure is pickled by value (its code rebuilt each time, 50 us) where this pickles as a
reference to the class and to ``fn`` (9 us).  It lives in a module of its own, importing
nothing: unpickling it must not import ``eqsat.rulespec.spec``, and with it egglog's Python
layer, in a saturation (``tests/test_startup_imports.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Unary:
    """``"|" * fn(*args)``; ValueError when ``fn`` gives a negative integer."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[..., int]) -> None:
        self.fn = fn

    @property
    def __name__(self) -> str:
        return self.fn.__name__

    def __call__(self, *args: Any) -> str:
        v = self.fn(*args)
        if v < 0:
            raise ValueError(f"{self.fn.__name__} returned a negative integer")
        return "|" * v

    def __reduce__(self) -> tuple[Any, ...]:
        return (Unary, (self.fn,))
