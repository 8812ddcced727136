"""Run every kernel of the suite (``experiments/kernels/``) in every writing style; write a CSV
and a PNG.

In: the manifest and MLIR files of ``experiments/kernels/``. Out: ``<out>/kernel_suite.csv``
with one row per (kernel, style): rotations, ct*ct muls, depth, extracts and inserts left
after optimization, compile time, whether the result is equivalent to the source on random
inputs (interpreter), the best published number of a fixed-layout peer (Porcupine, HECO,
HEIR: row-major inputs like ours) and of a chosen-packing peer (CHEHAB, Coyote) with their
sources, the target (the fixed-layout peer's number, else the issue-19 goal) and whether we
meet it. A style the frontend rejects gets its one-line error in ``status``.
``<out>/kernel_suite.png``: rotations per kernel and style beside the target.

Usage: ``python experiments/kernel_suite.py [--only NAME] [--tiny] [--out DIR] [--time-limit S]``
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eqsat.egraph.session import Limits  # noqa: E402
from eqsat.errors import EqsatError  # noqa: E402
from eqsat.frontend.mlir import parse_mlir  # noqa: E402
from eqsat.interp import evaluate, random_inputs, results_equal  # noqa: E402
from eqsat.ir import IRError  # noqa: E402
from eqsat.pipeline import optimize  # noqa: E402
from experiments.kernels import KernelEntry, load  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
FIELDS = [
    "kernel",
    "family",
    "style",
    "status",
    "rotations",
    "ct_muls",
    "depth",
    "extract_left",
    "insert_left",
    "rotations_before",
    "ct_muls_before",
    "compile_s",
    "equivalent",
    "fixed_peer",
    "fixed_rotations",
    "fixed_muls",
    "fixed_source",
    "chosen_peer",
    "chosen_rotations",
    "chosen_muls",
    "chosen_source",
    "target_rotations",
    "target_muls",
    "target_source",
    "meets_target",
    "slot_access_free",
]
#: kernels small enough for ``--tiny`` (one per family that exercises a distinct frontend path)
TINY = ("chehab_lin_reg_8", "heco_hamming_distance_4")


def measure(entry: KernelEntry, style: str, limits: Limits, check_seeds: int = 2) -> dict[str, object]:
    """Parse, optimize and check one (kernel, style); the CSV row."""
    path = entry.file(style)
    row: dict[str, object] = {"kernel": entry.name, "family": entry.family, "style": style}
    row |= peer_columns(entry)
    try:
        prog = parse_mlir(path.read_text(), str(path))[0]
    except (EqsatError, IRError) as exc:
        return row | {"status": "rejected: " + " ".join(str(exc).split())}
    start = time.perf_counter()
    try:
        res = optimize(prog, scheme="bgv", limits=limits)
    except (EqsatError, IRError) as exc:
        return row | {"status": "failed: " + " ".join(str(exc).split())}
    elapsed = time.perf_counter() - start
    before = res.report["before"]
    after = res.report["after"]
    ops = after["ops"]
    ok = all(
        results_equal(evaluate(prog, inp), evaluate(res.program, inp))
        for inp in (random_inputs(prog, seed) for seed in range(check_seeds))
    )
    rot, muls = ops.get("rotate", 0), ops.get("mul", 0)
    t_rot, t_mul = row["target_rotations"], row["target_muls"]
    meets: object = ""
    if t_rot != "":
        meets = rot <= t_rot and (t_mul == "" or muls <= t_mul)  # type: ignore[operator]
    free = ops.get("extract", 0) == 0 and ops.get("insert", 0) == 0
    return row | {
        "status": "ok",
        "rotations": rot,
        "ct_muls": muls,
        "depth": after.get("depth", ""),
        "extract_left": ops.get("extract", 0),
        "insert_left": ops.get("insert", 0),
        "rotations_before": before["ops"].get("rotate", 0),
        "ct_muls_before": before["ops"].get("mul", 0),
        "compile_s": round(elapsed, 3),
        "equivalent": ok,
        "meets_target": meets,
        "slot_access_free": free if entry.slot_uniform else "",
    }


def peer_columns(entry: KernelEntry) -> dict[str, object]:
    cols: dict[str, object] = {}
    for kind in ("fixed", "chosen"):
        p = entry.best(kind)
        cols |= {
            f"{kind}_peer": p.peer if p else "",
            f"{kind}_rotations": p.rotations if p else "",
            f"{kind}_muls": p.muls if p and p.muls is not None else "",
            f"{kind}_source": (p.source + (f" (via {p.via})" if p.via else "")) if p else "",
        }
    t_rot, t_mul, src = entry.target()
    cols |= {
        "target_rotations": "" if t_rot is None else t_rot,
        "target_muls": "" if t_mul is None else t_mul,
        "target_source": src,
    }
    return cols


def plot(rows: list[dict[str, object]], out: Path) -> None:
    """Three panels over the kernels, one bar per writing style: rotations and ct*ct muls
    after optimization (black line: the fixed-layout peer's number or the issue-19 goal; red
    x: the best peer that chose its own packing), and compile time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    def num(v: object) -> float | None:
        try:
            return float(v)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return None

    kernels = list(dict.fromkeys(str(r["kernel"]) for r in rows))
    styles = list(dict.fromkeys(str(r["style"]) for r in rows))
    fig, axes = plt.subplots(3, 1, figsize=(max(10, len(kernels) * 0.55), 11), sharex=True,
                             gridspec_kw={"height_ratios": [3, 3, 2]})
    width = 0.8 / max(1, len(styles))
    colors = plt.get_cmap("tab10")
    panels = (("rotations", "target_rotations", "chosen_rotations", "rotations"),
              ("ct_muls", "target_muls", "chosen_muls", "ct×ct muls"),
              ("compile_s", None, None, "compile time (s)"))
    for ax, (col, target, chosen, label) in zip(axes, panels, strict=True):
        for s, style in enumerate(styles):
            xs, ys = [], []
            for x, k in enumerate(kernels):
                for r in rows:
                    if r["kernel"] == k and r["style"] == style and r["status"] == "ok" and num(r[col]) is not None:
                        xs.append(x + s * width - 0.4 + width / 2)
                        ys.append(num(r[col]))
            ax.bar(xs, ys, width, label=style, color=colors(s))
        labelled: set[str] = set()
        for x, k in enumerate(kernels):
            first = next(r for r in rows if r["kernel"] == k)
            t = num(first[target]) if target else None
            if t is not None:
                ax.hlines(t, x - 0.45, x + 0.45, colors="black", linewidth=2.5,
                          label=None if "t" in labelled else "fixed-layout peer / goal")
                labelled.add("t")
            c = num(first[chosen]) if chosen else None
            if c is not None:
                ax.plot([x], [c], "x", color="red", markersize=8, mew=2,
                        label=None if "c" in labelled else "peer with its own packing")
                labelled.add("c")
        if col == "compile_s":
            ax.set_yscale("log")
            ticks = [0.5, 1, 2, 5, 10, 20, 50, 100]
            ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
            ax.yaxis.set_minor_formatter(NullFormatter())
        else:
            ax.set_yscale("symlog", linthresh=5)
            ticks = [0, 1, 2, 3, 4, 5, 10, 20, 50]
            ax.set_yticks(ticks, [str(t) for t in ticks])
            ax.set_ylim(0, 70)
        ax.set_ylabel(label)
        ax.grid(axis="y", linewidth=0.4, alpha=0.5)
        for x in range(len(kernels) + 1):
            ax.axvline(x - 0.5, color="0.85", linewidth=0.5)
    axes[0].legend(fontsize=8, ncol=4, loc="upper left")
    axes[1].legend(fontsize=8, ncol=4, loc="upper left")
    axes[-1].set_xticks(range(len(kernels)), kernels, rotation=60, ha="right", fontsize=8)
    axes[0].set_title("kernel suite: every kernel in every writing style (BGV, default schedule)")
    fig.tight_layout()
    fig.savefig(out / "kernel_suite.png", dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="run only kernels whose name contains this (default: all)")
    ap.add_argument("--style", default="", help="run only this writing style (default: every style)")
    ap.add_argument("--tiny", action="store_true", help=f"run only {', '.join(TINY)} (for tests)")
    ap.add_argument("--slow", action="store_true", help="include the kernels marked slow (64x64 box blur)")
    ap.add_argument(
        "--out", type=Path, default=OUT, help="directory for kernel_suite.csv/.png (default: experiments/out/)"
    )
    ap.add_argument("--time-limit", type=float, default=30.0,
                    help="time limit per case (optimize as a whole; saturation gets 75%%), s (default: 30)")
    ap.add_argument("--seeds", type=int, default=2, help="random inputs for the equivalence check (default: 2)")
    ap.add_argument("--replot", action="store_true", help="only redraw the PNG from <out>/kernel_suite.csv")
    args = ap.parse_args(argv)
    if args.replot:
        with open(args.out / "kernel_suite.csv", newline="") as f:
            rows_read: list[dict[str, object]] = list(csv.DictReader(f))
        plot(rows_read, args.out)
        return rows_read
    entries = [e for e in load() if args.only in e.name and (args.slow or not e.slow or args.only)]
    if args.tiny:
        entries = [e for e in entries if e.name in TINY]
    limits = Limits(time_s=args.time_limit)
    rows = []
    for e in entries:
        for style in e.styles:
            if args.style and style != args.style:
                continue
            row = measure(e, style, limits, args.seeds)
            print(
                f"{e.name:36s} {style:14s} rot={row.get('rotations', '-')!s:>4} mul={row.get('ct_muls', '-')!s:>3} "
                f"x/i={row.get('extract_left', '-')}/{row.get('insert_left', '-')} "
                f"target={row['target_rotations']!s:>3} "
                f"{row.get('compile_s', '')}s {row['status'][:60]}",
                flush=True,
            )
            rows.append(row)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "kernel_suite.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    plot(rows, args.out)
    return rows


if __name__ == "__main__":
    main()
