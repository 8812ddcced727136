"""Experiment: reduce_noise counts of greedy, placement-only ILP and joint ILP extraction.

In: ``--sizes`` (comma-separated op counts, default 50,100,200,300,500), ``--seeds`` (per
size, default 3), ``--time-limit`` (seconds per ILP, default 30), ``--out DIR`` (default
experiments/out).  Out: ``DIR/noise_placement.csv`` (one row per program: n_ops, seed,
live nodes, e-graph nodes, the three reduce_noise counts, the joint program's cost and
the placement-only program's cost, the ILP statuses, times, and whether every output
passed the noise checker) and ``DIR/noise_placement.png`` (counts and times against
size).  Programs come from ``eqsat.models.noisy.random_program`` (seeded).
"""

from __future__ import annotations

import argparse
import csv
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from eqsat.egraph.session import Limits, Session
from eqsat.egraph.view import EGraphView
from eqsat.ir import op_counts
from eqsat.mgmt.reduce_noise import count_reduce, extract_noisy, place_greedy, solve_placement
from eqsat.models import noisy as noise
from eqsat.models.cost import table
from eqsat.rules import resolve
from eqsat.testing.programs import random_noisy_program

FIELDS = [
    "n_ops", "seed", "live_nodes", "egraph_nodes", "greedy", "ilp_placement", "joint", "joint_cost",
    "placement_cost", "ilp_status", "joint_status", "greedy_s", "ilp_s", "saturate_s", "joint_s", "all_legal",
]


def run_one(n_ops: int, seed: int, time_limit: float) -> dict[str, object]:
    costs = table("noisy")
    prog = random_noisy_program(n_ops, seed)
    t0 = time.perf_counter()
    greedy = place_greedy(prog)
    t1 = time.perf_counter()
    placed, pinfo = solve_placement(prog, time_limit=time_limit)
    t2 = time.perf_counter()
    s = Session(prog)
    s.saturate([f.ruleset for f in resolve(None)], Limits(iterations=8, time_s=time_limit))
    g = EGraphView(s.serialize())
    t3 = time.perf_counter()
    both, jinfo = extract_noisy(g, [g.root(k) for k in s.roots], prog, costs, time_limit=time_limit)
    t4 = time.perf_counter()
    legal = all(noise.analyze(p).legal for p in (greedy, placed, both))
    return {
        "n_ops": n_ops, "seed": seed, "live_nodes": len(prog.live()), "egraph_nodes": len(g.nodes),
        "greedy": count_reduce(greedy), "ilp_placement": count_reduce(placed),
        "joint": count_reduce(both), "joint_cost": costs.total(op_counts(both)),
        "placement_cost": costs.total(op_counts(placed)), "ilp_status": pinfo["status"],
        "joint_status": jinfo["status"], "greedy_s": round(t1 - t0, 4), "ilp_s": round(t2 - t1, 4),
        "saturate_s": round(t3 - t2, 4), "joint_s": round(t4 - t3, 4), "all_legal": legal,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--sizes", default="50,100,200,300,500", help="random program sizes (ops), comma-separated")
    parser.add_argument("--seeds", type=int, default=3, help="random programs per size")
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds per ILP solve")
    parser.add_argument("--out", type=Path, default=Path("experiments/out"),
                        help="directory for noise_placement.csv and noise_placement.png")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    # Untimed warm-up on a small program: the first saturation otherwise pays egglog's and
    # HiGHS's one-time start-up, and the smallest size's times would carry it.
    run_one(min(sizes), 10_000, args.time_limit)
    rows = [run_one(n, seed, args.time_limit) for n in sizes for seed in range(args.seeds)]
    with open(args.out / "noise_placement.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)

    def mean(key: str, n: int) -> float:
        vals = [float(r[key]) for r in rows if r["n_ops"] == n]  # type: ignore[arg-type]
        return sum(vals) / len(vals)

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    # One colour per method in both panels; saturation (the joint ILP's e-graph) has its own.
    colour = {"greedy": "tab:blue", "ilp": "tab:orange", "joint": "tab:green", "saturate": "tab:grey"}
    # Distinct markers (hollow for the joint ILP) so equal curves stay visible on top of each other.
    marker: dict[str, dict[str, Any]] = {"greedy": dict(marker="o"), "ilp": dict(marker="s", markersize=7),
                                         "joint": dict(marker="^", markersize=9, markerfacecolor="none"),
                                         "saturate": dict(marker="x")}
    for key, method, label in (("greedy", "greedy", "greedy insertion (baseline)"),
                               ("ilp_placement", "ilp", "placement-only ILP"),
                               ("joint", "joint", "joint extraction ILP")):
        ax1.plot(sizes, [mean(key, n) for n in sizes], color=colour[method], label=label, **marker[method])
    ax1.set_xlabel("ops in the random program")
    ax1.set_ylabel("reduce_noise ops (mean over seeds)")
    ax1.set_ylim(bottom=0)
    ax1.legend()
    for key, method, label in (("greedy_s", "greedy", "greedy insertion"), ("ilp_s", "ilp", "placement-only ILP"),
                               ("saturate_s", "saturate", "saturation (for the joint ILP)"),
                               ("joint_s", "joint", "joint extraction ILP")):
        ax2.plot(sizes, [mean(key, n) for n in sizes], color=colour[method], label=label, **marker[method],
                 ls="--" if method == "saturate" else "-")
    ax2.set_xlabel("ops in the random program")
    ax2.set_ylabel("seconds (mean)")
    ax2.set_yscale("log")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(args.out / "noise_placement.png", dpi=120)
    plt.close(fig)
    for n in sizes:
        print(f"n={n}: greedy {mean('greedy', n):.1f}  ilp {mean('ilp_placement', n):.1f}  "
              f"joint {mean('joint', n):.1f}")
    print(f"wrote {args.out / 'noise_placement.csv'} and {args.out / 'noise_placement.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
