"""Fast pickling of the plain values egglog stores as ``PyObject``s (our rule oracles' arguments).

In: ``install()``, called where egglog's bindings are loaded (``egglog_import.bindings``).
Out: ``cloudpickle.dumps`` replaced by ``dumps``, which gives the same bytes.

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
"""

from __future__ import annotations

import pickle
from typing import Any

#: the exact types pickled by ``pickle`` (the same bytes as cloudpickle's)
PLAIN_TYPES = frozenset({int, str, bytes, float, bool, type(None)})

_ORIGINAL: Any = None


def install() -> None:
    """Replace ``cloudpickle.dumps`` by ``dumps`` (once; nothing when cloudpickle is missing)."""
    global _ORIGINAL
    if _ORIGINAL is not None:
        return
    try:
        import cloudpickle
    except ImportError:  # egglog then fails on its first PyObject, as it would anyway
        return
    _ORIGINAL = cloudpickle.dumps
    default = cloudpickle.DEFAULT_PROTOCOL
    original = _ORIGINAL

    def dumps(obj: Any, protocol: int | None = None, buffer_callback: Any = None) -> bytes:
        if type(obj) in PLAIN_TYPES and protocol is None and buffer_callback is None:
            return pickle.dumps(obj, default)
        return original(obj, protocol=protocol, buffer_callback=buffer_callback)  # type: ignore[no-any-return]

    dumps.__doc__ = original.__doc__
    cloudpickle.dumps = dumps
    inner = getattr(cloudpickle, "cloudpickle", None)
    if inner is not None and getattr(inner, "dumps", None) is original:
        inner.dumps = dumps


def original_dumps() -> Any:
    """cloudpickle's own ``dumps`` (None before ``install``)."""
    return _ORIGINAL
