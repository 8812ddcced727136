"""Experiment: CPU time of the exact extraction ILP on the suite's own extraction models.

In: ``--dump`` runs ``eqsat optimize`` (default options) on every MLIR file of
``examples/`` and ``tests/heir_cases/`` (or ``--files``) and saves each call's extraction
model -- the e-graph view, roots, cost table and greedy warm start that the pipeline hands to
``eqsat.extract.ilp.ilp_extract`` -- as a pickle in ``--models`` (default
``experiments/out/extraction_models``). Without ``--dump`` it times ``ilp_extract`` on every
saved model with more than ``--min-cands`` candidates (default 60), ``--repeats`` times
(default 3), each in this process, and writes ``--out/extraction_ilp[_LABEL].csv``: per model
and repeat the candidates, CPU and wall seconds of the call, status, objective, the greedy
start's cost, the solver's info (``pruned``, ``bound``, ``proven``, ``found_s`` -- the solver's CPU
seconds to the program it returned, against ``cpu_s`` to its proof --, ``gap``, ``second_start``, ...).
``--prove`` lifts the proof budget (``eqsat.milp.PROOF_STALL_S``): every solve runs to a
proven optimum, time permitting; ``--stall S`` sets it to S CPU seconds. With ``--compare
A.csv B.csv`` it prints and plots (``extraction_ilp.png``) the per-model medians of two runs
side by side and checks that every objective is equal.

The code measured is whatever ``eqsat`` imports: set ``PYTHONPATH`` to an older checkout's
root to time the code before a change on the same models (the pickles hold only the view,
which both read alike, and the plaintext-vector registry of the run).

Run: ``python experiments/extraction_ilp.py --dump``, then
``python experiments/extraction_ilp.py --label after``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import pickle
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "experiments" / "out"
FIELDS = ["model", "repeat", "cands", "classes", "cpu_s", "wall_s", "status", "objective", "greedy_cost",
          "rounds", "pruned", "bound", "solver", "proven", "found_s", "gap", "rows", "hitting_rows", "second_start"]


def dump(files: list[Path], models: Path) -> None:
    import eqsat.extract.ilp as ilp_mod
    from eqsat.algebra import linmap
    from eqsat.cli import main as cli_main

    models.mkdir(parents=True, exist_ok=True)
    real = ilp_mod.ilp_extract
    current: list[str] = [""]
    count: dict[str, int] = {}

    def spy(g, roots, costs, *, time_limit=10.0, warm=None, **kw):  # type: ignore[no-untyped-def]
        name = current[0]
        k = count.get(name, 0)
        count[name] = k + 1
        with open(models / f"{name}{'' if k == 0 else f'.{k}'}.pkl", "wb") as f:
            pickle.dump({"g": g, "roots": roots, "costs": costs, "warm": warm, "time_limit": time_limit,
                         "registry": linmap.registry()}, f)
        return real(g, roots, costs, time_limit=time_limit, warm=warm, **kw)

    ilp_mod.ilp_extract = spy  # type: ignore[assignment]
    for path in files:
        current[0] = path.stem
        with contextlib.redirect_stdout(io.StringIO()):
            rc = cli_main(["optimize", str(path), "--json"])
        print(f"{path}: exit {rc}, {count.get(path.stem, 0)} extraction model(s)", file=sys.stderr)


def bench(models: Path, min_cands: int, repeats: int, only: list[str]) -> list[dict[str, Any]]:
    from eqsat.algebra import linmap
    from eqsat.extract.dag import dag_cost
    from eqsat.extract.ilp import egraph_problem, ilp_extract

    rows: list[dict[str, Any]] = []
    for path in sorted(models.glob("*.pkl")):
        if only and path.stem not in only:
            continue
        with open(path, "rb") as f:
            m = pickle.load(f)
        linmap.merge_registry(*m["registry"])  # the plaintext vectors its constants name
        pb = egraph_problem(m["g"], m["roots"], m["costs"])
        if len(pb.cands) <= min_cands:
            continue
        greedy_cost = dag_cost(m["g"], m["warm"], m["roots"], m["costs"]) if m["warm"] is not None else ""
        for rep in range(repeats):
            c0, w0 = time.process_time(), time.perf_counter()
            choice, info = ilp_extract(m["g"], m["roots"], m["costs"], time_limit=m["time_limit"], warm=m["warm"])
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            obj = dag_cost(m["g"], choice, m["roots"], m["costs"])
            rows.append({
                "model": path.stem, "repeat": rep, "cands": len(pb.cands), "classes": info.get("classes", ""),
                "cpu_s": round(cpu, 4), "wall_s": round(wall, 4), "status": info.get("status"),
                "objective": obj, "greedy_cost": greedy_cost, "rounds": info.get("rounds", ""),
                "pruned": info.get("pruned", ""), "bound": info.get("bound", ""), "solver": info.get("solver", ""),
                "proven": info.get("proven", ""), "found_s": info.get("found_s", ""), "gap": info.get("gap", ""),
                "rows": info.get("rows", ""), "hitting_rows": info.get("hitting_rows", ""),
                "second_start": info.get("second_start", ""),
            })
            print(f"{path.stem} #{rep}: {len(pb.cands)} cands, cpu {cpu:.3f} s, {info.get('status')}, "
                  f"objective {obj} (greedy {greedy_cost}), found after {info.get('found_s', '-')} s",
                  file=sys.stderr)
    return rows


def _medians(path: Path) -> dict[str, tuple[float, float, str]]:
    by: dict[str, list[dict[str, str]]] = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            by.setdefault(r["model"], []).append(r)
    return {
        k: (statistics.median(float(r["cpu_s"]) for r in rs), float(rs[0]["objective"]), rs[0]["status"])
        for k, rs in by.items()
    }


def compare(a: Path, b: Path, out: Path) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ma, mb = _medians(a), _medians(b)
    common = sorted(set(ma) & set(mb), key=lambda k: -ma[k][0])
    bad = [k for k in common if abs(ma[k][1] - mb[k][1]) > 1e-6]
    print(f"{'model':40s} {a.stem:>12s} {b.stem:>12s}  objective")
    for k in common:
        print(f"{k:40s} {ma[k][0]:12.3f} {mb[k][0]:12.3f}  {ma[k][1]:g} / {mb[k][1]:g} {mb[k][2]}")
    ta, tb = sum(ma[k][0] for k in common), sum(mb[k][0] for k in common)
    print(f"{len(common)} models: CPU {ta:.2f} s -> {tb:.2f} s; objectives differ on {bad or 'none'}")
    fig, ax = plt.subplots(figsize=(6, 5))
    xs, ys = [ma[k][0] for k in common], [mb[k][0] for k in common]
    ax.scatter(xs, ys)
    hi = max(xs + ys + [1e-3])
    ax.plot([1e-3, hi], [1e-3, hi], color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(f"extraction ILP CPU s, {a.stem} (median)")
    ax.set_ylabel(f"extraction ILP CPU s, {b.stem} (median)")
    ax.set_title(f"{len(common)} models: {ta:.1f} s -> {tb:.1f} s; below the line = faster", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "extraction_ilp.png", dpi=120)
    plt.close(fig)
    return 1 if bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--dump", action="store_true", help="run the pipeline and save its extraction models")
    p.add_argument("--files", nargs="*", type=Path, default=None,
                   help="MLIR files to dump (default: examples/*.mlir and tests/heir_cases/*.mlir)")
    p.add_argument("--models", type=Path, default=OUT / "extraction_models", help="folder of the saved models")
    p.add_argument("--min-cands", type=int, default=60, help="time only models with more candidates")
    p.add_argument("--repeats", type=int, default=3, help="runs per model")
    p.add_argument("--only", nargs="*", default=[], help="time only these models (file stems)")
    p.add_argument("--label", default="", help="suffix of the CSV's name")
    p.add_argument("--prove", action="store_true",
                   help="no proof budget (eqsat.milp.PROOF_STALL_S): every solve to proven optimality")
    p.add_argument("--stall", type=float, default=None,
                   help="the proof budget in CPU seconds instead of eqsat.milp.PROOF_STALL_S")
    p.add_argument("--compare", nargs=2, type=Path, default=None, help="two CSVs: medians side by side + PNG")
    p.add_argument("--out", type=Path, default=OUT, help="folder for the CSV and PNG")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.compare:
        return compare(args.compare[0], args.compare[1], args.out)
    if args.dump:
        files = args.files or sorted([*(ROOT / "examples").glob("*.mlir"),
                                      *(ROOT / "tests" / "heir_cases").glob("*.mlir")])
        dump(files, args.models)
        return 0
    if args.prove or args.stall is not None:
        import math

        from eqsat import milp

        if hasattr(milp, "PROOF_STALL_S"):
            milp.PROOF_STALL_S = math.inf if args.prove else args.stall
    rows = bench(args.models, args.min_cands, args.repeats, args.only)
    name = f"extraction_ilp{'_' + args.label if args.label else ''}.csv"
    with open(args.out / name, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    print(f"{len({r['model'] for r in rows})} models; CPU {sum(r['cpu_s'] for r in rows) / max(1, args.repeats):.2f} s "
          f"per repeat; wrote {args.out / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
