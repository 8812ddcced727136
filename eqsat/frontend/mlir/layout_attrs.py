"""Layouts as MLIR attributes on function arguments and results, both ways.

In: the ``layouts`` section of an optimize report (``eqsat.layouts.Packed.to_json``), or a
parsed ``func.func``. Out: ``arg_attrs``/``res_attrs`` dictionaries for the printer, and
``read_layouts(fn)`` rebuilding the section from them (``None`` when the function has none).

Each attribute dictionary holds, in HEIR's style, ``tensor_ext.layout`` as a relation
string ``{ [i0] -> [ct, slot] : (i0 = 0 and ct = 0 and slot = 4) or ... }`` (``i0`` the
element's row-major index; HEIR writes a ``#tensor_ext.layout`` attribute whose relation
is a Presburger set, ours lists its points), plus ``eqsat.layout`` (the name),
``eqsat.shape`` (the tensor's shape, ``"2x2"``, ``""`` for a scalar) and ``eqsat.slots``;
an argument split over several ciphertexts also names ``eqsat.tensor`` and
``eqsat.ciphertext`` (its index).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, IntegerType, StringAttr

_POINT = re.compile(r"\(i0 = (\d+) and ct = (\d+) and slot = (\d+)\)")


def relation(lay: Mapping[str, Any]) -> str:
    slots = int(lay["slots"])
    pts = [f"(i0 = {e} and ct = {f // slots} and slot = {f % slots})"
           for e, places in enumerate(lay["slot_index"]) for f in places]
    return "{ [i0] -> [ct, slot] : " + " or ".join(pts) + " }"


def _dict(lay: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> DictionaryAttr:
    i64 = IntegerType(64)
    d: dict[str, Any] = {
        "tensor_ext.layout": StringAttr(relation(lay)),
        "eqsat.layout": StringAttr(str(lay["name"])),
        "eqsat.shape": StringAttr("x".join(str(s) for s in lay["shape"])),
        "eqsat.slots": IntegerAttr(int(lay["slots"]), i64),
    }
    for k, v in (extra or {}).items():
        d[k] = StringAttr(v) if isinstance(v, str) else IntegerAttr(int(v), i64)
    return DictionaryAttr(d)


def attach(fn: func.FuncOp, arg_names: list[str], layouts: Mapping[str, Any]) -> None:
    """Set ``fn``'s argument and result attributes from a report's ``layouts`` section."""
    by_arg: dict[str, DictionaryAttr] = {}
    for tensor, lay in layouts["arguments"].items():
        cts = lay.get("ciphertext_args", [tensor])
        for c, an in enumerate(cts):
            by_arg[an] = _dict(lay, {"eqsat.tensor": tensor, "eqsat.ciphertext": c} if len(cts) > 1 else None)
    fn.arg_attrs = ArrayAttr([by_arg.get(n, DictionaryAttr({})) for n in arg_names])
    fn.res_attrs = ArrayAttr([_dict(lay) for lay in layouts["results"]])


def _layout(d: DictionaryAttr) -> dict[str, Any] | None:
    data = d.data
    rel, name = data.get("tensor_ext.layout"), data.get("eqsat.layout")
    shape, slots = data.get("eqsat.shape"), data.get("eqsat.slots")
    if not (isinstance(rel, StringAttr) and isinstance(name, StringAttr)
            and isinstance(shape, StringAttr) and isinstance(slots, IntegerAttr)):
        return None
    n_slots = int(slots.value.data)
    dims = [int(s) for s in shape.data.split("x")] if shape.data else []
    count = 1
    for s in dims:
        count *= s
    index: list[list[int]] = [[] for _ in range(count)]
    cts = 1
    for e, c, s in _POINT.findall(rel.data):
        if int(e) < count:
            index[int(e)].append(int(c) * n_slots + int(s))
            cts = max(cts, int(c) + 1)
    return {"name": name.data, "shape": dims, "ciphertexts": cts, "slots": n_slots, "slot_index": index}


def read_layouts(fn: func.FuncOp, arg_names: list[str]) -> dict[str, Any] | None:
    """The ``layouts`` section written by ``attach`` (None when ``fn`` carries none)."""
    if fn.arg_attrs is None and fn.res_attrs is None:
        return None
    args: dict[str, dict[str, Any]] = {}
    for an, d in zip(arg_names, fn.arg_attrs.data if fn.arg_attrs else [], strict=False):
        lay = _layout(d)
        if lay is None:
            continue
        tensor = d.data.get("eqsat.tensor")
        name = tensor.data if isinstance(tensor, StringAttr) else an
        entry = args.setdefault(name, {**lay, "ciphertext_args": []})
        entry["ciphertext_args"].append(an)
        entry["ciphertexts"] = max(entry["ciphertexts"], len(entry["ciphertext_args"]))
    results = [_layout(d) for d in (fn.res_attrs.data if fn.res_attrs else [])]
    if not args and not any(results):
        return None
    if any(r is None for r in results):
        return None
    return {"arguments": args, "results": results}
