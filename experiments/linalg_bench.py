"""Benchmark: n x n plaintext matvec (one ``linmap`` node) optimized, beside HEIR's rotation counts.

In: ``--sizes`` (comma-separated n), ``--encrypted-max`` (run BGV for n up to this),
``--repeats``, ``--out``.  Out: ``linalg_bench.csv`` (n, rotations, HEIR's rotations,
plaintext products, additions, multiplicative depth, compile seconds -- the median of
``--repeats`` runs of ``eqsat.pipeline.optimize`` --, the median seconds of each stage of the
report's ``timings`` (``s_load`` ... ``s_verify``), encrypted run seconds or empty, match) and
``linalg_bench.png`` (rotations vs n, log axes, ours and HEIR's).  The machine is shared:
read single times as an order of magnitude.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

import numpy as np

HEIR = {4: 3, 100: 19, 256: 31, 512: 45, 1024: 63, 4096: 127}


STAGES = ("load", "saturate", "analyze", "extract", "place", "verify")


def bench(n: int, encrypted: bool, repeats: int = 1) -> dict[str, object]:
    from eqsat.backend import run_program
    from eqsat.frontend import linalg
    from eqsat.ir import Builder, Type, multiplicative_depth, op_counts
    from eqsat.pipeline import optimize

    w = np.random.default_rng(n).integers(-3, 4, size=(n, n))
    b = Builder(f"matvec{n}")
    x = b.arg("x", Type((n,), "i16", True))
    prog = b.finish([linalg.matvec(b, w, x)])
    times: list[float] = []
    stages: dict[str, list[float]] = {s: [] for s in STAGES}
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = optimize(prog, "bgv")
        times.append(time.perf_counter() - t0)
        timings: dict[str, float] = res.report["timings"]  # type: ignore[assignment]
        for s in STAGES:
            stages[s].append(float(timings.get(s, 0.0)))
    c = op_counts(res.program)
    row: dict[str, object] = {
        "n": n, "rotations": c.get("rotate", 0), "heir_rotations": HEIR.get(n, ""),
        "mul_plain": c.get("mul_plain", 0), "add": c.get("add", 0),
        "depth": multiplicative_depth(res.program), "compile_s": round(statistics.median(times), 3),
        "repeats": repeats, **{f"s_{s}": round(statistics.median(v), 3) for s, v in stages.items()},
        "run_s": "", "match": "",
    }
    if encrypted:
        v = np.random.default_rng(1).integers(0, 50, size=n).tolist()
        t1 = time.perf_counter()
        enc = run_program(res.program, {"x": v}, "bgv", insecure=True, seed=7)
        row["run_s"] = round(time.perf_counter() - t1, 3)
        row["match"] = bool(enc["match"])
    return row


def plot(rows: list[dict[str, object]], path: Path) -> None:
    """Left: rotations against n beside HEIR's published counts (log-log). Right: compile time
    per stage against n (stacked, log x) with the 10 s goal, and the encrypted run time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    ns = [int(str(r["n"])) for r in rows]
    ax.loglog(ns, [max(int(str(r["rotations"])), 1) for r in rows], "o-", label="eqsat")
    heir = [(int(str(r["n"])), int(str(r["heir_rotations"]))) for r in rows if r["heir_rotations"] != ""]
    if heir:
        ax.loglog(*zip(*heir, strict=True), "s--", label="HEIR (KernelCostTest)")
    for n, r in zip(ns, rows, strict=True):
        ax.annotate(str(r["rotations"]), (n, max(int(str(r["rotations"])), 1)), textcoords="offset points",
                    xytext=(4, -10), fontsize=7)
    ax.set_xlabel("n (n x n plaintext matvec)")
    ax.set_ylabel("rotations")
    ax.legend(fontsize=8)
    bottom = [0.0] * len(rows)
    for stage in ("load", "saturate", "analyze", "extract", "place", "verify"):
        vals = [float(str(r.get(f"s_{stage}", 0) or 0)) for r in rows]
        ax2.bar(range(len(rows)), vals, 0.6, bottom=bottom, label=stage)
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    ax2.plot(range(len(rows)), [float(str(r["compile_s"])) for r in rows], "k_", ms=18, mew=2,
             label="compile (median wall)")
    ran = [(i, float(str(r["run_s"]))) for i, r in enumerate(rows) if r.get("run_s") not in ("", None)]
    if ran:
        ax2.plot(*zip(*ran, strict=True), "D", color="tab:red", label="encrypted run (BGV)")
    ax2.axhline(10, color="0.5", ls=":", label="10 s goal (n = 4096)")
    ax2.set_xticks(range(len(rows)), [str(n) for n in ns])
    ax2.set_xlabel("n")
    ax2.set_ylabel("seconds")
    ax2.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4,100,256,512,1024", help="matrix sizes n of the n x n matvec, comma-separated")
    ap.add_argument("--encrypted-max", type=int, default=256, help="run encrypted up to this n")
    ap.add_argument("--repeats", type=int, default=1, help="optimize runs per size (medians are reported)")
    ap.add_argument("--out", default="experiments/out", help="directory for linalg_bench.csv and linalg_bench.png")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = [bench(n, n <= args.encrypted_max, args.repeats) for n in (int(s) for s in args.sizes.split(","))]
    with open(out / "linalg_bench.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    plot(rows, out / "linalg_bench.png")
    for r in rows:
        print(r)
    return rows


if __name__ == "__main__":
    main()
