"""Optimize time and e-graph size against slot count (issue 3's scale benchmark).

In: ``--sum-sizes`` (slot counts for a full sum written as unrolled extracts) and
``--blur-widths`` (W for a W x W box blur over a flattened tensor<W*W>), ``--out``.
Out: ``scaling.csv`` (kernel, slots, optimize_s -- the median of ``--repeats`` runs --,
repeats, egraph_nodes, iterations, stop_reason, rotations_after) and ``scaling.png``
(time and e-graph size against slots, log-log).  One small program is optimized first and
not timed, so the first point carries no warm-up (rule compilation, lazy imports).

Run: ``python experiments/scaling.py [--sum-sizes 64,256,1024,4096] [--blur-widths 8,16,32,64]``.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

from eqsat.ir import Builder, Program, Type
from eqsat.pipeline import optimize


def sum_program(n: int) -> Program:
    b = Builder(f"sum_{n}")
    x = b.arg("x", Type((n,), "i16", True))
    acc = b.extract(x, 0)
    for i in range(1, n):
        acc = b.add(acc, b.extract(x, i))
    return b.finish([acc])


def box_blur_program(w: int) -> Program:
    n = w * w
    b = Builder(f"box_blur_{w}x{w}")
    ty = Type((n,), "i16", True)
    img = b.arg("img", ty)
    out = img
    for x in range(w):
        for y in range(w):
            acc = None
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    e = b.extract(img, ((x + dx) * w + y + dy) % n)
                    acc = e if acc is None else b.add(acc, e)
            out = b.insert(acc, out, x * w + y)  # type: ignore[arg-type]
    return b.finish([out])


def measure(kernel: str, prog: Program, slots: int, repeats: int = 1) -> dict[str, object]:
    """Optimize ``prog`` ``repeats`` times; the median wall time and the last run's report."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        res = optimize(prog, "bgv", extraction="greedy")
        times.append(time.perf_counter() - start)
    rep = res.report
    return {
        "kernel": kernel, "slots": slots, "optimize_s": round(statistics.median(times), 3), "repeats": repeats,
        "egraph_nodes": rep["egraph"]["nodes"], "iterations": rep["egraph"]["iterations"],  # type: ignore[index]
        "stop_reason": rep["stop_reason"], "rotations_after": rep["after"]["ops"].get("rotate", 0),  # type: ignore[index]
    }


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--sum-sizes", default="64,256,1024,4096", help="slot counts of the unrolled full sums")
    ap.add_argument("--blur-widths", default="8,16,32,64", help="widths W of the W x W box blurs")
    ap.add_argument("--out", default="experiments/out", help="directory for scaling.csv and scaling.png")
    ap.add_argument("--repeats", type=int, default=3, help="runs per kernel (the median time is reported)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    optimize(sum_program(8), "bgv", extraction="greedy")  # warm-up, not timed
    rows = []
    for n in [int(s) for s in args.sum_sizes.split(",") if s]:
        rows.append(measure("sum", sum_program(n), n, args.repeats))
        print(rows[-1], flush=True)
    for w in [int(s) for s in args.blur_widths.split(",") if s]:
        rows.append(measure("box_blur", box_blur_program(w), w * w, args.repeats))
        print(rows[-1], flush=True)
    with open(out / "scaling.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for kernel in sorted({str(r["kernel"]) for r in rows}):
        rs = [r for r in rows if r["kernel"] == kernel]
        a1.plot([r["slots"] for r in rs], [r["optimize_s"] for r in rs], "o-", label=kernel)
        a2.plot([r["slots"] for r in rs], [r["egraph_nodes"] for r in rs], "o-", label=kernel)
    a1.axhline(10.0, ls="--", color="grey", label="goal: 10 s")
    for ax, label in ((a1, "optimize time (s)"), (a2, "e-graph nodes")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))  # 6, not 6x10^0
        ax.yaxis.set_minor_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}" if str(v)[0] in "25" else ""))
        ax.set_xlabel("slots")
        ax.set_ylabel(label)
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "scaling.png", dpi=120)
    return rows


if __name__ == "__main__":
    main()
