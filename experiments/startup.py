"""Fixed cost of one ``eqsat optimize`` run: wall clock of the CLI on a small kernel, per stage.

In: ``--kernel`` (default ``examples/sum_8.mlir``), ``--repeats`` (default 5), ``--out``.
Out: ``startup.csv`` (one row per run: ``cache`` -- ``cold`` when the compiled rule text was
just removed (``eqsat.egraph.compiled``, the first run after an install or an edit of the
rules), ``warm`` otherwise --, the process's wall seconds, the report's ``time_s`` and its
``timings`` per stage; the rest of the wall time is interpreter start-up and imports) and
``startup.png`` (median seconds per part, cold and warm).

Each run is a separate process (``python -m eqsat.cli optimize KERNEL --json``) with its own
cache directory (``EQSAT_CACHE_DIR``), so a cold run is really cold. The machine is shared:
read the medians as an order of magnitude and note the load (``os.getloadavg``) in the CSV.

Run: ``python experiments/startup.py [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).resolve().parent / "out"
STAGES = ["parse", "rules", "load", "saturate", "analyze", "extract", "place", "verify"]


def one_run(kernel: Path, cache: Path, cold: bool) -> dict[str, Any]:
    if cold:
        shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, EQSAT_CACHE_DIR=str(cache))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "eqsat.cli", "optimize", str(kernel), "--json"],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    wall = time.perf_counter() - t0
    rep = json.loads(proc.stdout)
    timings = rep.get("timings", {})
    row: dict[str, Any] = {"cache": "cold" if cold else "warm", "wall_s": round(wall, 4),
                           "time_s": rep["time_s"], "load_avg": round(os.getloadavg()[0], 2)}
    row.update({s: timings.get(s, 0.0) for s in STAGES})
    row["startup_s"] = round(wall - rep["time_s"] - timings.get("parse", 0.0), 4)
    row["rotations"] = rep["after"]["ops"].get("rotate", 0)
    return row


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    parts = ["startup_s", *STAGES]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    bottom = {"cold": 0.0, "warm": 0.0}
    for part in parts:
        vals = []
        for c in ("cold", "warm"):
            xs = [float(r[part]) for r in rows if r["cache"] == c]
            vals.append(statistics.median(xs) if xs else 0.0)
        ax.bar(["cold", "warm"], vals, bottom=[bottom["cold"], bottom["warm"]], label=part.removesuffix("_s"))
        bottom = {"cold": bottom["cold"] + vals[0], "warm": bottom["warm"] + vals[1]}
    ax.axhline(0.3, ls="--", color="gray", lw=1, label="0.3 s goal")
    ax.set_ylabel("seconds (median)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--kernel", type=Path, default=ROOT / "examples" / "sum_8.mlir", help="the MLIR file to optimize")
    ap.add_argument("--repeats", type=int, default=5, help="CLI runs per measurement (the median is kept)")
    ap.add_argument("--out", type=Path, default=OUT, help="directory for startup.csv and startup.png")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="eqsat-startup-") as tmp:
        cache = Path(tmp) / "cache"
        for _ in range(args.repeats):
            rows.append(one_run(args.kernel, cache, cold=True))
            rows.append(one_run(args.kernel, cache, cold=False))
    with open(args.out / "startup.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(rows, args.out / "startup.png")
    for c in ("cold", "warm"):
        xs = [float(r["wall_s"]) for r in rows if r["cache"] == c]
        print(f"{c}: median wall {statistics.median(xs):.3f} s over {len(xs)} runs")
    return rows


if __name__ == "__main__":
    main()
