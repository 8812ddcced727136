"""Chosen layouts against row-major on Coyote's and CHEHAB's small kernels; a CSV and a PNG.

In: the kernels of ``eqsat.testing.kernels`` (``PUBLISHED`` and ``NOT_MET``, with the best
count Coyote or CHEHAB publish for each). Out: ``experiments/out/layouts.csv``, one row per
kernel: the layout chosen by ``layouts="auto"``, rotations and ct*ct muls with it and with
``fixed`` (row-major), the published counts and source, the compile times (fixed, and the
whole outer search over candidates), ``match`` of an encrypted BGV run packed and unpacked
by the client helpers (small insecure parameters: a correctness check, not a benchmark),
every candidate's counts and cost, and for the decision trees each peer's own result
(``TREE_PEERS``); ``layouts.png`` plots rotations and muls per kernel, ours against published.

Usage: ``python experiments/layouts.py [--only SUBSTR] [--out DIR] [--repeats N]``
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

import eqsat
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.testing.kernels import NOT_MET, PUBLISHED, TREE_PEERS

OUT = Path(__file__).resolve().parent / "out"
FIELDS = ["kernel", "layout", "ciphertexts", "rotate", "mul", "rotate_fixed", "mul_fixed", "published_rotate",
          "published_mul", "meets_published", "time_fixed_s", "time_search_s", "match", "source", "peer_results",
          "candidates"]


def run_kernel(name: str, repeats: int) -> dict[str, object]:
    build, rot, mul, source = {**PUBLISHED, **NOT_MET}[name]
    prog = build()
    t_fixed: list[float] = []
    t_auto: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fixed = eqsat.optimize(prog, "bgv", layouts="fixed")
        t_fixed.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        auto = eqsat.optimize(prog, "bgv", layouts="auto")
        t_auto.append(time.perf_counter() - t0)
    ops, fops = auto.report["after"]["ops"], fixed.report["after"]["ops"]
    lays = auto.report["layouts"]
    inputs = random_inputs(prog, 1, bound=20)
    out = eqsat.run(auto.program, inputs, "bgv", insecure=True, layouts=lays)
    t = out["params"]["t"]
    match = out["match"] and results_equal(out["outputs"], evaluate(prog, inputs, modulus=t), modulus=t)
    arg_lays = list(lays["arguments"].values())
    return {
        "kernel": name,
        "layout": ",".join(sorted({a["name"] for a in arg_lays})),
        "ciphertexts": sum(a["ciphertexts"] for a in arg_lays),
        "rotate": ops.get("rotate", 0), "mul": ops.get("mul", 0),
        "rotate_fixed": fops.get("rotate", 0), "mul_fixed": fops.get("mul", 0),
        "published_rotate": rot, "published_mul": mul,
        "meets_published": ops.get("rotate", 0) <= rot and ops.get("mul", 0) <= mul,
        "time_fixed_s": round(statistics.median(t_fixed), 3),
        "time_search_s": round(statistics.median(t_auto), 3),
        "match": bool(match), "source": source,
        "peer_results": "; ".join(f"{p} {r}/{m}" for p, r, m in TREE_PEERS.get(name, [])),
        "candidates": "; ".join(f"{c['candidate']} {c['rotate']}/{c['mul']} cost {c['cost']}"
                                for c in auto.report["layout_search"]["candidates"]),
    }


def plot(rows: list[dict[str, object]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    names = [str(r["kernel"]) for r in rows]
    xs = range(len(rows))
    fig, axes = plt.subplots(2, 1, figsize=(max(6, len(rows) * 0.8), 6), sharex=True)
    for ax, key in zip(axes, ("rotate", "mul"), strict=True):
        w = 0.27
        # every bar carries its count: on a symlog axis 2 and 3 are hard to tell apart by height
        for dx, field, label, colour in ((-w, f"{key}_fixed", "row-major (fixed)", "tab:blue"),
                                         (0.0, key, "chosen layouts (auto)", "tab:orange"),
                                         (w, f"published_{key}", "best published (Coyote/CHEHAB)", "tab:green")):
            bars = ax.bar([x + dx for x in xs], [r[field] for r in rows], w, label=label, color=colour)
            ax.bar_label(bars, fontsize=6, padding=1)
        ax.set_ylabel("rotations" if key == "rotate" else "ct*ct muls")
        ax.set_yscale("symlog")
        ax.set_ylim(0, 2.5 * max(max(float(r[f]) for r in rows)  # type: ignore[arg-type]
                                 for f in (f"{key}_fixed", key, f"published_{key}")))
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axes[0].legend(fontsize=7)
    axes[1].set_xticks(list(xs), names, rotation=45, ha="right", fontsize=7)
    fig.suptitle("Chosen layouts vs row-major vs Coyote/CHEHAB (lower is better)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--only", default="", help="kernels whose name contains this")
    ap.add_argument("--out", default=str(OUT), help="directory for layouts.csv and layouts.png")
    ap.add_argument("--repeats", type=int, default=1, help="runs per kernel (the median time is kept)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = [run_kernel(k, args.repeats) for k in (*PUBLISHED, *NOT_MET) if args.only in k]
    with open(out / "layouts.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    plot(rows, out / "layouts.png")
    for r in rows:
        print(f"{r['kernel']:<20} {r['layout']:<14} rot {r['rotate']:>2} mul {r['mul']:>2}  "
              f"(fixed {r['rotate_fixed']}/{r['mul_fixed']}, published {r['published_rotate']}/"
              f"{r['published_mul']})  {r['time_search_s']} s  match {r['match']}")
    return rows


if __name__ == "__main__":
    main()
