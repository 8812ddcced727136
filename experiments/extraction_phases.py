"""Experiment: what the extract stage's CPU time is made of, per extraction model.

In: the extraction models that ``experiments/extraction_ilp.py --dump`` saved (``--models``,
default ``experiments/out/extraction_models``; ``--only NAME,...`` to pick some). For each, in
this process, ``--repeats`` times (default 15): the pipeline's greedy start (``greedy_dag`` then
``refine``) and ``ilp_extract`` from it, timed by CPU (``time.process_time``), with HiGHS's
``run`` split into its LP relaxations (the hitting-set rounds, ``eqsat.milp.Milp._cut_rounds``)
and its MILP searches. Out: ``extraction_phases.csv`` and ``.png`` (stacked bars) under ``--out``,
and the same table on stdout: per model the medians in ms of the whole, of the greedy
start, of the LPs, of the MILPs and of the rest (Python: the problem, contraction, reductions,
covers, hitting sets, second start, model building), and what proved the result (``solver``:
bound / bnb / lp / highs; ``second_start``: whether a second start restarted the solve).

Session 13 (issue 16, the small kernels beyond 2x HEIR; CPU ms on a loaded 2-core machine):
the MILP search is 45-65% of rr_rotation_duplicated, the dot products, heco_hamming_distance_4
and rr_not_supported_repeated_indices, the Python rest 25-50% of rr_reduce_add_and_mul_32,
heco_gx_kernel_4x4 and rr_rotation_multiple_tensors.

Run: ``python experiments/extraction_phases.py --only dot_product_8,heco_gx_kernel_4x4``.
"""

from __future__ import annotations

import argparse
import collections
import pickle
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: model, total, greedy, lp, mip, rest (CPU ms), solver, second start
Row = tuple[str, float, float, float, float, float, str, str]


def main(argv: Sequence[str] | None = None) -> list[Row]:
    """Time every model; returns the table's rows (model, total, greedy, lp, mip, rest ms, solver,
    second start)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=ROOT / "experiments" / "out" / "extraction_models",
                    help="folder of the models extraction_ilp.py --dump saved")
    ap.add_argument("--only", default="", help="comma-separated model names (default: all)")
    ap.add_argument("--repeats", type=int, default=15, help="runs per model; medians are kept")
    ap.add_argument("--out", type=Path, default=ROOT / "experiments" / "out", help="folder for the CSV and PNG")
    args = ap.parse_args(argv)

    import highspy

    spent: dict[str, float] = collections.defaultdict(float)
    run = highspy.Highs.run

    def timed_run(self: Any) -> Any:
        t = time.process_time()
        try:
            return run(self)
        finally:
            spent["lp" if self.getOptions().solve_relaxation else "mip"] += time.process_time() - t

    highspy.Highs.run = timed_run  # type: ignore[method-assign]
    try:
        return _time_models(args, spent)
    finally:
        highspy.Highs.run = run  # type: ignore[method-assign]  # main() may run inside a test process


def _time_models(args: argparse.Namespace, spent: dict[str, float]) -> list[Row]:
    from eqsat.algebra import linmap
    from eqsat.extract.dag import greedy_dag, refine
    from eqsat.extract.ilp import ilp_extract

    only = {n for n in args.only.split(",") if n}
    table: list[Row] = []
    print(f"{'model':40s} {'total':>6s} {'greedy':>6s} {'lp':>5s} {'mip':>6s} {'rest':>6s}  solver second")
    for path in sorted(args.models.glob("*.pkl")):
        if only and path.stem not in only:
            continue
        with open(path, "rb") as f:
            m = pickle.load(f)
        linmap.merge_registry(*m["registry"])
        g, roots, costs = m["g"], m["roots"], m["costs"]
        rows = []
        info: dict[str, object] = {}
        for _ in range(args.repeats):
            spent.clear()
            t0 = time.process_time()
            warm = refine(g, greedy_dag(g, costs), roots, costs)
            t1 = time.process_time()
            _, info = ilp_extract(g, roots, costs, time_limit=m["time_limit"], warm=warm)
            t2 = time.process_time()
            rows.append((t2 - t0, t1 - t0, spent["lp"], spent["mip"]))
        total, greedy, lp, mip = (statistics.median(r[i] for r in rows) * 1000 for i in range(4))
        row = (path.stem, total, greedy, lp, mip, total - greedy - lp - mip, str(info.get("solver")),
               str(info.get("second_start", "-")))
        table.append(row)
        print(f"{row[0]:40s} {total:6.1f} {greedy:6.1f} {lp:5.1f} {mip:6.1f} {row[5]:6.1f}  {row[6]} {row[7]}")
    write(table, args.out)
    return table


def write(table: list[Row], out: Path) -> None:
    """The CSV (ms) and a stacked bar per model: greedy start, LPs, MILPs, the Python rest."""
    import csv

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from experiments.plots import stacked_barh_figure

    out.mkdir(parents=True, exist_ok=True)
    with open(out / "extraction_phases.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "total_ms", "greedy_ms", "lp_ms", "mip_ms", "rest_ms", "solver", "second_start"])
        w.writerows([r[0], *(f"{x:.2f}" for x in r[1:6]), r[6], r[7]] for r in table)
    phases = ("greedy start", "LP relaxations", "MILP search", "Python rest")
    stacked_barh_figure(out / "extraction_phases.png", [r[0] for r in table],
                        [(label, [float(r[i]) for r in table]) for i, label in enumerate(phases, start=2)],
                        "CPU ms (median)", "What the extract stage's time is made of, per extraction model",
                        dpi=120, width=8.0)


if __name__ == "__main__":
    main()
