"""Quick construction of frozen dataclasses made in bulk (IR nodes, e-nodes, ILP candidates).

In: a frozen dataclass with no defaults and no ``__post_init__``. Out: the same class, whose
``__init__`` sets the fields directly -- through their slot descriptors for a ``slots=True``
class, into the instance's ``__dict__`` otherwise -- instead of the dataclass's own, which
calls ``object.__setattr__`` once per field to get past the frozen ``__setattr__``.

Why: a program's nodes, a serialized e-graph's e-nodes and an extraction problem's candidates
are made by the thousand for every kernel (a 3x3 stencil over an 8x8 image: 1,800 IR nodes
while reading, 1,200 e-nodes twice and 1,100 candidates while extracting), and the frozen
``__init__`` took 2.5-3 us each on a loaded 2-core machine against 1.2-1.6 us this way. The
instances are the same: equality, hashing, ``repr``, ``dataclasses.replace``, pickling and the
frozen ``__setattr__`` are the dataclass's own.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

_T = TypeVar("_T")


def fast_init(cls: type[_T]) -> type[_T]:
    """Give the frozen dataclass ``cls`` the direct ``__init__`` (see the module docstring)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__, which this __init__ would skip")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if any(f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
           or not f.init for f in fields):
        raise TypeError(f"{cls.__name__} has fields with defaults or outside __init__")
    names = [f.name for f in fields]
    ns: dict[str, Any] = {}
    if "__slots__" in cls.__dict__:
        body = [f"    _set_{n}(self, {n})" for n in names]
        ns.update({f"_set_{n}": cls.__dict__[n].__set__ for n in names})
    else:
        body = ["    d = self.__dict__", *(f"    d[{n!r}] = {n}" for n in names)]
    src = f"def __init__(self, {', '.join(names)}):\n" + "\n".join(body or ["    pass"]) + "\n"
    exec(src, ns)  # generated from the class's own field names
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__  # type: ignore[misc]
    cls.__init__ = init  # type: ignore[misc,method-assign]
    # pickled as a call of the class with the fields (the slotted dataclass's own state
    # functions read and set each field by name: 3.7 ms each way for gx 8x8's program)
    ns_reduce: dict[str, Any] = {"cls": cls}
    exec(f"def __reduce__(self):\n    return (cls, ({''.join(f'self.{n}, ' for n in names)}))\n", ns_reduce)
    cls.__reduce__ = ns_reduce["__reduce__"]  # type: ignore[method-assign]
    return cls
