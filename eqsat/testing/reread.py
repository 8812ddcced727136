"""Reports equal the printed program: re-read an optimized program's MLIR and compare.

In: an ``OptimizeResult`` (``eqsat.pipeline``), its scheme and cost overrides. Out:
``reread(result)`` -- the program parsed back from ``result.to_mlir()`` -- and
``report_differences(result, scheme, costs)``, one line per field where the report's
``after`` (op counts, depth, cost, noise verdict; for the noisy model also its bound)
differs from the same analysis run on the re-read program: empty when they agree.
``floor_violations(result, prog)``: where the e-graph analysis' per-result lower bounds
(``report["analysis"]``: BGV and CKKS depth floors) exceed the depth of a program the
e-graph holds (the re-read result, or the source).
"""

from __future__ import annotations

from collections.abc import Mapping

from eqsat.ir import Program
from eqsat.models.cost import table
from eqsat.pipeline import OptimizeResult, summarize


def reread(res: OptimizeResult) -> Program:
    """The optimized program as a user gets it: printed, then parsed back."""
    from eqsat.frontend.mlir import parse_mlir

    progs = parse_mlir(res.to_mlir(), "<printed>")
    return progs[0]


def report_differences(
    res: OptimizeResult, scheme: str, costs: Mapping[str, object] | None = None, printed: Program | None = None
) -> list[str]:
    """Where the report's ``after`` and the analysis of the re-read program (``printed``,
    default: ``reread(res)``) disagree."""
    again = summarize(printed or reread(res), table(scheme, costs), scheme, managed=scheme != "noisy")
    after: dict[str, object] = res.report["after"]  # type: ignore[assignment]
    diffs: list[str] = []
    for key in ("ops", "depth", "cost"):
        if after[key] != again[key]:
            diffs.append(f"{key}: report {after[key]} != re-read {again[key]}")
    rn: dict[str, object] = after["noise"]  # type: ignore[assignment]
    an: dict[str, object] = again["noise"]  # type: ignore[assignment]
    for key in ("legal", "max_bits", "levels_used"):
        if rn.get(key) != an.get(key):
            diffs.append(f"noise {key}: report {rn.get(key)} != re-read {an.get(key)}")
    return diffs


def floor_violations(res: OptimizeResult, prog: Program) -> list[str]:
    """Results of ``prog`` (a program in the e-graph: the re-read result or the source)
    whose BGV or CKKS multiplicative depth is below the analysis' floor for that result."""
    from eqsat.mgmt import strip_mgmt
    from eqsat.mgmt.levels import level_depths

    floors: dict[str, object] = res.report.get("analysis") or {}  # type: ignore[assignment]
    base = strip_mgmt(prog)
    out: list[str] = []
    for key, scheme in (("depth_floor", "bgv"), ("ckks_depth_floor", "ckks")):
        per_root: list[int | None] = floors.get(key) or []  # type: ignore[assignment]
        depth = level_depths(base, scheme)
        for k, (r, floor) in enumerate(zip(base.results, per_root, strict=False)):
            if floor is not None and depth.get(r, 0) < floor:
                out.append(f"{key} of result {k}: {floor} > the depth {depth.get(r, 0)} of {prog.name}")
    return out
