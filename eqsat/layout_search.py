"""Joint choice of argument layouts and program: an outer search over a few candidates.

In: a ``Program``, ``layouts="fixed"|"auto"`` and the ``eqsat.pipeline.optimize`` options.
Out: an ``OptimizeResult`` whose ``program`` reads packed arguments, with
``report["layouts"]`` (per argument and result: name, shape, ciphertexts, slots and the
slot index of every element; see ``eqsat.layouts``) and ``result.layouts`` (a ``Packed``).

``layouts`` may also map argument names to given layouts (``Layout`` or its JSON): the
arguments arrive packed so -- the result layout of a producer flows into its consumer --
and a conversion is paid only where the program needs the tensor whole.

``fixed`` is today's contract (row-major, one ciphertext per tensor): the pipeline's
result, unchanged, with the identity layouts reported. ``auto`` optimizes the program
under every candidate -- row-major, the aligned packings of ``eqsat.layouts_aligned`` and
the select-tree lanes of ``eqsat.layouts_sched.select_candidates`` -- and keeps the cheapest by the cost
table (ties: fewer ciphertexts, then the earlier candidate, so row-major wins a tie).
``report["layout_search"]`` lists each candidate's cost, time, rotations and ct*ct muls.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from eqsat.ir import Program
from eqsat.layouts import Layout, LayoutError, Packed, identity, repack
from eqsat.layouts_aligned import aligned
from eqsat.layouts_sched import select_candidates
from eqsat.pipeline import OptimizeResult, optimize


def optimize_layouts(
    prog: Program, scheme: str = "bgv", layouts: str | Mapping[str, Layout | Mapping[str, Any]] = "fixed",
    **kwargs: Any,
) -> OptimizeResult:
    if not isinstance(layouts, str):
        return _given(prog, scheme, layouts, **kwargs)
    if layouts not in ("fixed", "auto"):
        raise ValueError(f"unknown layouts '{layouts}' (auto or fixed)")
    start = time.perf_counter()
    base = identity(prog)
    best = optimize(prog, scheme, **kwargs)
    best_packed = base
    searched: list[dict[str, object]] = []
    if layouts == "auto" and scheme != "noisy":
        bops = best.report["after"]["ops"]  # type: ignore[index]
        searched.append({"candidate": "row-major", "cost": best.report["after"]["cost"],  # type: ignore[index]
                         "time_s": best.report["time_s"], "rotate": bops.get("rotate", 0), "mul": bops.get("mul", 0)})
        t0 = time.perf_counter()
        cands = aligned(prog) + select_candidates(prog)
        t_build = time.perf_counter() - t0
        for cand in cands:
            res = optimize(cand.program, scheme, **kwargs)
            cost = float(res.report["after"]["cost"])  # type: ignore[index, arg-type]
            name = next(iter(cand.args.values())).name
            cops = res.report["after"]["ops"]  # type: ignore[index]
            searched.append({"candidate": name, "cost": cost, "time_s": res.report["time_s"],
                             "rotate": cops.get("rotate", 0), "mul": cops.get("mul", 0)})
            if (cost, _cts(cand)) < (float(best.report["after"]["cost"]), _cts(best_packed)):  # type: ignore[index, arg-type]
                best, best_packed = res, cand
        best.original = prog
        best.report["layout_search"] = {
            "candidates": searched, "build_s": round(t_build, 4),
            "time_s": round(time.perf_counter() - start, 4)}
    best.report["layouts"] = best_packed.to_json()
    if best_packed is base and "layouts" in prog.meta:  # the program's own packing (tensor programs)
        best.report["layouts"] = prog.meta["layouts"]
    if best_packed is not base:  # printed MLIR carries a chosen layout on arguments and results
        best.program.meta["layouts"] = best.report["layouts"]
    best.layouts = best_packed  # type: ignore[attr-defined]
    return best


def _given(
    prog: Program, scheme: str, given: Mapping[str, Layout | Mapping[str, Any]], **kwargs: Any
) -> OptimizeResult:
    """``prog`` over arguments that arrive in the ``given`` layouts (e.g. the result layout
    of the program that produced them): reads go to the packed slots, a whole-tensor use
    gets a conversion, and the optimizer pays for it (rotations, masks)."""
    lays = {n: v if isinstance(v, Layout) else Layout.from_json(v) for n, v in given.items()}
    unknown = sorted(set(lays) - {n for n, _ in prog.args})
    if unknown:
        raise LayoutError(f"layout for unknown argument(s) {', '.join(unknown)}")
    packed = repack(prog, lays)
    res = optimize(packed.program, scheme, **kwargs)
    res.original = prog
    res.report["layouts"] = packed.to_json()
    res.program.meta["layouts"] = res.report["layouts"]
    res.layouts = packed  # type: ignore[attr-defined]
    return res


def _cts(p: Packed) -> int:
    return sum(lay.ciphertexts for lay in p.args.values())
