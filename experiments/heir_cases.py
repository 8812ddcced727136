"""Run every HEIR lit case in ``tests/heir_cases/`` through the optimizer; write a CSV.

In: the ``.mlir`` files under ``tests/heir_cases/`` (one function each; the header line
``// heir-rotations: N`` gives HEIR's rotation count from its CHECK lines, ``-`` where
its lit test states none).  Out: ``experiments/out/heir_cases.csv`` with one row per
case: ops before (ciphertext ops of the source), rotations / muls / slot accesses after,
HEIR's count, optimize time and stop reason; and ``heir_cases.png`` beside the CSV: per case,
our rotations beside HEIR's (where its lit test states a count), slot accesses left, and
the optimize time.  A case the frontend rejects (outside the
supported subset) gets its error message in ``stop_reason``.  Each case runs in a child
process under a wall-clock limit (``--wall``, default 180 s), because the optimizer checks
its own time limit only between saturation iterations and one iteration can run for
minutes; such a case gets ``stop_reason`` ``wall_timeout``.

Usage: ``python experiments/heir_cases.py [--only SUBSTR] [--out PATH] [--time-limit S] [--wall S]``
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing as mp
import re
import sys
import time
from pathlib import Path

from eqsat.egraph.session import Limits
from eqsat.frontend.mlir import MLIRError, parse_mlir
from eqsat.pipeline import optimize

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "heir_cases"
OUT = Path(__file__).resolve().parent / "out" / "heir_cases.csv"
FIELDS = ["case", "ops_before", "rotate_after", "mul_after", "mul_plain_after", "extract_after",
          "insert_after", "heir_rotations", "time_s", "stop_reason", "egraph_nodes"]


def heir_count(text: str) -> str:
    m = re.search(r"^//\s*heir-rotations:\s*(\S+)", text, re.MULTILINE)
    return m.group(1) if m else "-"


def run_case(path: Path, limits: Limits) -> dict[str, object]:
    text = path.read_text()
    row: dict[str, object] = {"case": path.stem, "heir_rotations": heir_count(text)}
    try:
        prog = parse_mlir(text, str(path))[0]
    except MLIRError as exc:
        return row | {"stop_reason": f"rejected: {exc}"}
    start = time.perf_counter()
    res = optimize(prog, scheme="bgv", limits=limits)
    before: dict[str, int] = res.report["before"]["ops"]  # type: ignore[index]
    after: dict[str, int] = res.report["after"]["ops"]  # type: ignore[index]
    return row | {
        "ops_before": sum(v for k, v in before.items() if k not in ("relinearize", "modswitch", "rescale")),
        "rotate_after": after.get("rotate", 0),
        "mul_after": after.get("mul", 0),
        "mul_plain_after": after.get("mul_plain", 0),
        "extract_after": after.get("extract", 0),
        "insert_after": after.get("insert", 0),
        "time_s": round(time.perf_counter() - start, 3),
        "stop_reason": res.report["stop_reason"],
        "egraph_nodes": res.report["egraph"]["nodes"],  # type: ignore[index]
    }


def _child(path: Path, limits: Limits, queue: mp.Queue) -> None:  # type: ignore[type-arg]
    try:
        queue.put(run_case(path, limits))
    except Exception as exc:  # reported in the CSV: a crash is a finding, not a reason to stop
        queue.put({"case": path.stem, "stop_reason": f"error: {type(exc).__name__}: {exc}"[:300]})


def run_isolated(path: Path, limits: Limits, wall: float) -> dict[str, object]:
    queue: mp.Queue = mp.get_context("spawn").Queue()  # type: ignore[type-arg]
    proc = mp.get_context("spawn").Process(target=_child, args=(path, limits, queue))
    start = time.perf_counter()
    proc.start()
    proc.join(wall)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return {"case": path.stem, "heir_rotations": heir_count(path.read_text()),
                "time_s": round(time.perf_counter() - start, 1), "stop_reason": "wall_timeout"}
    return queue.get() if not queue.empty() else {"case": path.stem, "stop_reason": f"exit {proc.exitcode}"}


def _num(v: object) -> float | None:
    try:
        return float(str(v))
    except ValueError:
        return None


def plot(rows: list[dict[str, object]], path: Path) -> None:
    """Per case: our rotations beside HEIR's, slot accesses left, optimize time (log)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    done = [r for r in rows if _num(r.get("rotate_after")) is not None]
    if not done:
        return
    names = [str(r["case"]) for r in done]
    ys = list(range(len(done)))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, max(3.0, 0.22 * len(done) + 1.6)), sharey=True,
                                   gridspec_kw={"width_ratios": [2, 1]})
    ours = [_num(r["rotate_after"]) or 0.0 for r in done]
    heir = [_num(r.get("heir_rotations")) for r in done]
    left = [(_num(r.get("extract_after")) or 0.0) + (_num(r.get("insert_after")) or 0.0) for r in done]
    ax1.barh([y - 0.2 for y in ys], ours, height=0.4, color="tab:green", label="eqsat rotations")
    ax1.barh([y + 0.2 for y, h in zip(ys, heir, strict=True) if h is not None],
             [h for h in heir if h is not None], height=0.4, color="tab:grey", label="HEIR rotations (its lit test)")
    ax1.plot(left, ys, "x", color="tab:red", label="eqsat slot accesses left")
    ax1.set_yticks(ys, names, fontsize=7)
    ax1.invert_yaxis()
    ax1.set_xlabel("count (fewer is better)")
    ax1.legend(fontsize=7, loc="upper right")
    ax2.barh(ys, [_num(r.get("time_s")) or 0.0 for r in done], color="tab:blue")
    ax2.set_xscale("log")
    ax2.xaxis.set_minor_formatter(plt.NullFormatter())
    ax2.set_xlabel("optimize time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--only", default="", help="run only cases whose name contains this")
    ap.add_argument("--out", type=Path, default=OUT, help="the CSV to write (the PNG goes beside it)")
    ap.add_argument("--time-limit", type=float, default=Limits().time_s, help="the optimizer's time limit per case (s)")
    ap.add_argument("--wall", type=float, default=180.0, help="wall-clock seconds per case (child process)")
    args = ap.parse_args(argv)
    limits = Limits(time_s=args.time_limit)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    with args.out.open("w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for path in sorted(CASES.glob("*.mlir")):
            if args.only not in path.stem:
                continue
            row = run_isolated(path, limits, args.wall)
            rows.append(row)
            w.writerow(row)
            f.flush()
            print(", ".join(f"{k}={row.get(k, '')}" for k in FIELDS), flush=True)
    plot(rows, args.out.with_suffix(".png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
