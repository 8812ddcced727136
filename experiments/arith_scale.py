"""Scaling of the arithmetic rules: random arithmetic programs through the whole pipeline.

In: program sizes (``--sizes 250,500,1000,2000``) and schedules (``--schedules
default,all``).  Out: ``arith_scale.csv`` (ops, schedule, wall s, saturation s, e-graph
nodes, iterations, stop reason, cost before/after, peak RSS MB) and ``arith_scale.png``
under ``--out`` (default ``experiments/out``), and one printed line per run.

The programs are ``eqsat.testing.programs.random_program`` with the ``ARITH`` shape (adds, subs,
ciphertext products, products by constants 2, 3, 5, 9, -7, 255, 1000 and small added
constants, each op reading one of the 30 latest values).  Each run is
``eqsat.pipeline.optimize`` under its default limits, in a fresh child process (so the
peak RSS is that run's own, and a run that exhausts memory or time is recorded as
``killed``/``timeout`` instead of ending the sweep).  Run with ``ulimit -v`` and
``timeout``: ``python experiments/arith_scale.py``.
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).resolve().parent / "out"
FIELDS = ["ops", "schedule", "wall_s", "saturation_s", "nodes", "iterations", "stop_reason",
          "cost_before", "cost_after", "peak_rss_mb"]


def run_one(ops: int, schedule: str) -> dict[str, object]:
    """Optimize ``random_program(ops)`` under ``schedule`` in this process; the CSV row."""
    from eqsat.pipeline import optimize
    from eqsat.testing.programs import ARITH, random_program

    prog = random_program(0, ops, ARITH)
    t = time.perf_counter()
    res = optimize(prog, "bgv", rules=schedule)
    wall = time.perf_counter() - t
    rep = res.report
    eg = rep["egraph"]
    assert isinstance(eg, dict)
    before, after = rep["before"], rep["after"]
    assert isinstance(before, dict) and isinstance(after, dict)
    return {
        "ops": ops, "schedule": schedule, "wall_s": round(wall, 2), "saturation_s": round(res.run.time_s, 2),
        "nodes": eg["nodes"], "iterations": eg["iterations"], "stop_reason": rep["stop_reason"],
        "cost_before": before["cost"], "cost_after": after["cost"],
        # the e-graph stage runs in a forked worker (eqsat.egraph.guard): count its peak too
        "peak_rss_mb": round(max(resource.getrusage(who).ru_maxrss
                                 for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024, 1),
    }


def run_child(ops: int, schedule: str, timeout_s: float) -> dict[str, object]:
    """``run_one`` in a child process; a failed child gives a row with its reason."""
    t = time.perf_counter()
    cmd = [sys.executable, __file__, "--one", f"{ops}:{schedule}"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return {"ops": ops, "schedule": schedule, "wall_s": round(time.perf_counter() - t, 2), "stop_reason": "timeout"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        reason = "killed" if proc.returncode < 0 or "memory" in proc.stderr else "error"
        print(proc.stderr[-2000:], file=sys.stderr)
        return {"ops": ops, "schedule": schedule, "wall_s": round(time.perf_counter() - t, 2), "stop_reason": reason}
    return json.loads(lines[-1])  # type: ignore[no-any-return]


def plot(rows: list[dict[str, object]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from eqsat.egraph.session import Limits

    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    # one colour per schedule in every panel; wall solid, saturation dashed; a hollow marker is a
    # run that stopped at the time limit (its e-graph is what the budget allowed, not saturated)
    for i, sched in enumerate(sorted({str(r["schedule"]) for r in rows})):
        colour = f"C{i}"
        mine = [r for r in rows if r["schedule"] == sched and r.get("nodes") is not None]
        xs = [int(r["ops"]) for r in mine]  # type: ignore[call-overload]
        cut = [r.get("stop_reason") == "time_limit" for r in mine]
        series = ((0, "wall_s", "-", f"{sched}: wall"), (0, "saturation_s", "--", f"{sched}: saturation"),
                  (1, "nodes", "-", sched), (2, "peak_rss_mb", "-", sched))
        for ax_i, key, style, label in series:
            ys = [float(r[key]) for r in mine]  # type: ignore[arg-type]
            axes[ax_i].plot(xs, ys, style, color=colour, label=label)
            axes[ax_i].scatter(xs, ys, color=colour, zorder=3,
                               facecolors=["none" if c else colour for c in cut])
    axes[0].axhline(Limits().time_s, color="0.5", ls=":", label="whole-call --time-limit")
    axes[0].plot([], [], "o", mfc="none", color="0.3", label="stopped at the time limit")
    for ax, label in zip(axes, ("time (s)", "e-graph nodes", "peak RSS (MB)"), strict=True):
        ax.set_xlabel("program ops")
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)  # from zero: a 1 MB spread must not look like a doubling
        ax.legend(fontsize=7)
    fig.suptitle("random arithmetic programs through optimize (default limits); peak RSS includes the "
                 "forked e-graph worker", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--sizes", default="250,500,1000,2000", help="program sizes (ops), comma-separated")
    ap.add_argument("--schedules", default="default,all", help="rule schedules to compare, comma-separated")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per run (child process)")
    ap.add_argument("--out", type=Path, default=OUT, help="directory for arith_scale.csv and arith_scale.png")
    ap.add_argument("--one", help="internal: OPS:SCHEDULE, run in this process and print the row as JSON")
    args = ap.parse_args(argv)
    if args.one:
        ops, _, sched = args.one.partition(":")
        print(json.dumps(run_one(int(ops), sched)))
        return []
    rows = []
    for ops in (int(s) for s in args.sizes.split(",")):
        for sched in args.schedules.split(","):
            row = run_child(ops, sched, args.timeout)
            rows.append(row)
            print(", ".join(f"{k}={row.get(k, '')}" for k in FIELDS), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "arith_scale.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    plot(rows, args.out / "arith_scale.png")
    return rows


if __name__ == "__main__":
    main()
