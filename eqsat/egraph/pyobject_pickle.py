"""Fast pickling of the plain values egglog stores as ``PyObject``s (our rule oracles' arguments).

In: ``install()``, called where egglog's bindings are loaded (``egglog_import.bindings``);
``memoized()``, a block in which egglog runs our rules (``eqsat.egraph.session``).
Out: ``cloudpickle.dumps`` replaced by ``dumps``, which gives the same bytes; inside
``memoized()`` both ``cloudpickle.dumps`` and ``cloudpickle.loads`` are memo tables.

Why: the rules call Python oracles through egglog's ``PyObject`` sort
(``eqsat.rulespec.spec.EggLang.call``), and egglog's Rust side stores every such value --
each oracle argument and result, an ``int`` or a ``str`` -- as its pickle, calling
``cloudpickle.dumps`` (looked up at each call).  cloudpickle builds a ``Pickler`` object per
call: about 6.5 us for an int against 0.8 us for ``pickle.dumps``, and an 8-slot sum makes
2,400 such calls (15-35 ms of its saturation).  For the exact types ``int``, ``str``,
``bytes``, ``float``, ``bool`` and ``None`` cloudpickle's pickler never reaches its own
reducers (the C pickler writes these types itself before it asks ``reducer_override``), so
``pickle.dumps(obj, protocol=cloudpickle.DEFAULT_PROTOCOL)`` is byte for byte the same: the
stored values, their hashes and equality are unchanged (``tests/egraph/test_pyobject_pickle.py``).
Everything else still goes through cloudpickle.

``memoized()``: egglog also *unpickles* a ``PyObject`` at every use -- a ``py-call`` its
function (a reference, found again by importing its module by name; an oracle's ``Unary``
wrapper is rebuilt, 9 us) and each argument, ``py-to-string`` its value -- and pickles every
argument and result again.  The 32-slot sum-and-product made about 150,000 such calls in one
saturation, on a few hundred distinct values.  Inside the block ``cloudpickle.loads`` and
``cloudpickle.dumps`` are the C ``__getitem__`` of two dicts (bytes -> object, value ->
bytes): a value seen before costs a dict lookup and no Python frame (0.06 us against 0.4-1.4
us, 9 us for a ``Unary``).  A miss (``__missing__``) computes what cloudpickle would
(``pickle.loads`` is ``cloudpickle.loads``; ``dumps`` as above) and keeps the answer only for
exact types whose objects are immutable (``LOAD_MEMO_TYPES``; ``int`` and ``str`` for
pickling), so egglog gets the same bytes and equal objects.  The block is only around egglog
running our own commands, whose ``PyObject`` values are the rules' ints and strings and the
oracles (module-level functions and ``Unary``): no other caller sees the tables, whose
lookups take one positional argument, hashable, and treat ``1``, ``True`` and ``1.0`` as one key.
"""

from __future__ import annotations

import contextlib
import functools
import pickle
import types
from collections.abc import Iterator
from typing import Any

from eqsat.rulespec.unary import Unary

#: the exact types pickled by ``pickle`` (the same bytes as cloudpickle's)
PLAIN_TYPES = frozenset({int, str, bytes, float, bool, type(None)})

#: the exact types whose unpickled objects ``memoized`` keeps: immutable values, and callables
#: that pickle as references to module-level objects (``Unary``: such a reference, wrapped)
LOAD_MEMO_TYPES = PLAIN_TYPES | frozenset({types.FunctionType, types.BuiltinFunctionType, Unary,
                                           type(functools.cache(len))})
#: a memo table is emptied when it holds this many entries (a long-lived process)
MEMO_LIMIT = 1 << 18

_ORIGINAL: Any = None


class _Loads(dict[bytes, Any]):
    """``loads(data)`` as ``memo[data]``."""

    def __missing__(self, data: bytes) -> Any:
        obj = pickle.loads(data)
        if type(obj) in LOAD_MEMO_TYPES:
            if len(self) >= MEMO_LIMIT:
                self.clear()
            self[data] = obj
        return obj


class _Dumps(dict[Any, bytes]):
    """``dumps(obj)`` as ``memo[obj]`` (ints and strings kept)."""

    def __missing__(self, obj: Any) -> bytes:
        data: bytes = dumps(obj)
        if type(obj) is int or type(obj) is str:
            if len(self) >= MEMO_LIMIT:
                self.clear()
            self[obj] = data
        return data


_LOADS = _Loads()
_DUMPS = _Dumps()


def dumps(obj: Any, protocol: int | None = None, buffer_callback: Any = None) -> bytes:
    """cloudpickle's bytes for ``obj`` (``install`` puts this in ``cloudpickle.dumps``)."""
    if type(obj) in PLAIN_TYPES and protocol is None and buffer_callback is None:
        return pickle.dumps(obj, _PROTOCOL)
    return _ORIGINAL(obj, protocol=protocol, buffer_callback=buffer_callback)  # type: ignore[no-any-return]


_PROTOCOL = pickle.DEFAULT_PROTOCOL


def install() -> None:
    """Replace ``cloudpickle.dumps`` by ``dumps`` (once; nothing when cloudpickle is missing)."""
    global _ORIGINAL, _PROTOCOL
    if _ORIGINAL is not None:
        return
    try:
        import cloudpickle
    except ImportError:  # egglog then fails on its first PyObject, as it would anyway
        return
    _ORIGINAL = cloudpickle.dumps
    _PROTOCOL = cloudpickle.DEFAULT_PROTOCOL
    cloudpickle.dumps = dumps
    inner = getattr(cloudpickle, "cloudpickle", None)
    if inner is not None and getattr(inner, "dumps", None) is _ORIGINAL:
        inner.dumps = dumps


@contextlib.contextmanager
def memoized() -> Iterator[None]:
    """``cloudpickle.dumps`` and ``cloudpickle.loads`` as memo tables inside the block (see the
    module docstring; nothing changes when ``install`` found no cloudpickle)."""
    if _ORIGINAL is None:
        yield
        return
    import cloudpickle

    saved = cloudpickle.dumps, cloudpickle.loads
    cloudpickle.dumps, cloudpickle.loads = _DUMPS.__getitem__, _LOADS.__getitem__
    try:
        yield
    finally:
        cloudpickle.dumps, cloudpickle.loads = saved


def original_dumps() -> Any:
    """cloudpickle's own ``dumps`` (None before ``install``)."""
    return _ORIGINAL
