"""Reports equal the printed program: re-read an optimized program's MLIR and compare.

In: an ``OptimizeResult`` (``eqsat.pipeline``), its scheme and cost overrides. Out:
``reread(result)`` -- the program parsed back from ``result.to_mlir()`` -- and
``report_differences(result, scheme, costs)``, one line per field where the report's
``after`` (op counts, depth, cost, noise verdict; for the noisy model also its bound)
differs from the same analysis run on the re-read program: empty when they agree.
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
    res: OptimizeResult, scheme: str, costs: Mapping[str, object] | None = None
) -> list[str]:
    """Where the report's ``after`` and the analysis of the re-read program disagree."""
    again = summarize(reread(res), table(scheme, costs), scheme, managed=scheme != "noisy")
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
