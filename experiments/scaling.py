"""Optimize time and peak memory against slot count, beside HEIR's times for the same inputs.

In: ``--sum-sizes`` (slot counts for a full sum written as unrolled extracts),
``--blur-widths`` (W for a W x W box blur over a flattened tensor<W*W>), ``--repeats``,
``--out``; ``--big`` sets the sizes of issue 16 (sums up to 16,384 slots, blurs up to
128 x 128: minutes, several GB).  The defaults run in about a minute.
Out: ``scaling.csv`` (kernel, slots, optimize_s -- the median of ``--repeats`` runs --,
peak_mb -- the largest resident set of the run's process and its e-graph worker --,
repeats, egraph_nodes, iterations, stop_reason, rotations_after; and with ``heir-opt``
installed heir_s, heir_peak_mb, heir_rotations) and ``scaling.png`` (time and peak memory
against slots, log-log, HEIR's beside eqsat's, the 10 s and 2 GB goals).

Each eqsat point is its own process (``scaling.py --one KERNEL SIZE``): it builds the program
with ``eqsat.ir.Builder`` (no MLIR parsing, which is not what this measures), imports
before the clock starts, and times ``eqsat.pipeline.optimize`` (greedy extraction); its peak
memory comes from ``os.wait4`` in a small launcher process.  HEIR gets the same program as MLIR text
(``eqsat.frontend.mlir.print_mlir``) and the pipeline ``experiments/vs_heir.py`` runs for its
kind; its time is the wall clock of the whole ``heir-opt`` process (start-up included, a few
ms).  Without ``heir-opt`` the HEIR columns stay empty (one line says so).

Run: ``python experiments/scaling.py [--big] [--sum-sizes 64,256,1024] [--blur-widths 8,16]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eqsat.ir import Builder, Program, Type  # noqa: E402

DEFAULT_SUMS, DEFAULT_BLURS = "64,256,1024", "8,16"
BIG_SUMS, BIG_BLURS = "64,256,1024,4096,16384", "8,16,32,64,128"
FIELDS = ["kernel", "slots", "optimize_s", "peak_mb", "repeats", "egraph_nodes", "iterations", "stop_reason",
          "rotations_after", "heir_s", "heir_peak_mb", "heir_rotations", "heir_status"]


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


def program(kernel: str, size: int) -> Program:
    return sum_program(size) if kernel == "sum" else box_blur_program(size)


#: a small interpreter that runs a command and writes the command's peak resident KB (``os.wait4``)
#: to the file named first: measured from a fork of this script, the peak would include this
#: script's own size, which a forked child counts until it execs
_LAUNCHER = ("import os, sys\npid = os.fork()\nif pid == 0:\n    os.execvp(sys.argv[2], sys.argv[2:])\n"
             "_, status, usage = os.wait4(pid, 0)\nopen(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
             "sys.exit(os.waitstatus_to_exitcode(status))\n")


def _measured(cmd: list[str], timeout: float) -> tuple[int, str, float, float]:
    """Run ``cmd``: exit status (-1: timeout), stdout, wall seconds, peak resident MB of it
    and of the children it waited for."""
    with tempfile.TemporaryDirectory(prefix="eqsat-scaling-") as tmp:
        peak_file = Path(tmp) / "peak"
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCHER, str(peak_file), *cmd], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            out, _ = proc.communicate()
            code = -1
        wall = time.perf_counter() - start
        peak = float(peak_file.read_text()) / 1024.0 if peak_file.exists() else float("nan")  # KB on Linux
    return code, out.decode(), wall, peak


def one(kernel: str, size: int) -> dict[str, Any]:
    """In a fresh process (``--one``): optimize the program once, report time and counts."""
    from eqsat.pipeline import optimize

    prog = program(kernel, size)
    start = time.perf_counter()
    res = optimize(prog, "bgv", extraction="greedy")
    seconds = time.perf_counter() - start
    rep = res.report
    return {"optimize_s": seconds, "egraph_nodes": rep["egraph"]["nodes"],  # type: ignore[index]
            "iterations": rep["egraph"]["iterations"], "stop_reason": rep["stop_reason"],  # type: ignore[index]
            "rotations_after": rep["after"]["ops"].get("rotate", 0)}  # type: ignore[index]


def measure(kernel: str, size: int, slots: int, repeats: int, heir_opt: Path | None,
            timeout: float = 1800.0) -> dict[str, Any]:
    """``repeats`` eqsat processes (median time, largest peak) and as many ``heir-opt`` runs."""
    times, peaks, last = [], [], {}
    for _ in range(repeats):
        code, out, _, peak = _measured([sys.executable, str(Path(__file__).resolve()), "--one", kernel, str(size)],
                                       timeout)
        if code != 0:
            return {"kernel": kernel, "slots": slots, "stop_reason": "failed" if code > 0 else "timeout",
                    "repeats": repeats}
        last = json.loads(out.strip().splitlines()[-1])
        times.append(float(last["optimize_s"]))
        peaks.append(peak)
    row: dict[str, Any] = {"kernel": kernel, "slots": slots, "optimize_s": round(statistics.median(times), 3),
                           "peak_mb": round(max(peaks)), "repeats": repeats,
                           **{k: last[k] for k in ("egraph_nodes", "iterations", "stop_reason", "rotations_after")}}
    if heir_opt is not None:
        row.update(heir(heir_opt, program(kernel, size), repeats, timeout))
    return row


def heir(heir_opt: Path, prog: Program, repeats: int, timeout: float) -> dict[str, Any]:
    """``heir-opt`` on ``prog`` printed as MLIR, with vs_heir.py's pipeline for its kind."""
    from eqsat.frontend.mlir import print_mlir
    from experiments import vs_heir

    text = print_mlir(prog)
    pipeline = vs_heir.PIPELINES["vectorizer" if vs_heir.kind(text) == "tensor" else "mlir-to-bgv"]
    with tempfile.TemporaryDirectory(prefix="eqsat-scaling-") as tmp:
        src = Path(tmp) / f"{prog.name}.mlir"
        src.write_text(text)
        times, peaks, out = [], [], ""
        for _ in range(repeats):
            code, out, wall, peak = _measured([str(heir_opt), *pipeline, str(src)], timeout)
            if code != 0:
                return {"heir_status": "timeout" if code == -1 else "failed", "heir_s": round(wall, 3)}
            times.append(wall)
            peaks.append(peak)
    return {"heir_status": "ok", "heir_s": round(statistics.median(times), 3), "heir_peak_mb": round(max(peaks)),
            "heir_rotations": vs_heir.count_heir(out).rotations}


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for i, kernel in enumerate(sorted({str(r["kernel"]) for r in rows})):
        color = f"C{i}"
        rs = [r for r in rows if r["kernel"] == kernel and r.get("optimize_s") is not None]
        a1.plot([r["slots"] for r in rs], [r["optimize_s"] for r in rs], "o-", color=color, label=f"{kernel} eqsat")
        a2.plot([r["slots"] for r in rs], [r["peak_mb"] for r in rs], "o-", color=color, label=f"{kernel} eqsat")
        hs = [r for r in rows if r["kernel"] == kernel and r.get("heir_status") == "ok"]
        if hs:
            a1.plot([r["slots"] for r in hs], [r["heir_s"] for r in hs], "s--", color=color, label=f"{kernel} heir-opt")
            a2.plot([r["slots"] for r in hs], [r["heir_peak_mb"] for r in hs], "s--", color=color,
                    label=f"{kernel} heir-opt")
    a1.axhline(10.0, ls=":", color="grey", label="goal: 10 s")
    a2.axhline(2048.0, ls=":", color="grey", label="goal: 2 GB")
    for ax, label in ((a1, "seconds (eqsat: optimize; heir-opt: process)"), (a2, "peak memory (MB)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))  # 6, not 6x10^0
        ax.yaxis.set_minor_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}" if str(v)[0] in "25" else ""))
        ax.set_xlabel("slots")
        ax.set_ylabel(label)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--sum-sizes", default=None, help=f"slot counts of the unrolled full sums ({DEFAULT_SUMS})")
    ap.add_argument("--blur-widths", default=None, help=f"widths W of the W x W box blurs ({DEFAULT_BLURS})")
    ap.add_argument("--big", action="store_true", help=f"sums {BIG_SUMS}, blurs {BIG_BLURS} (minutes, GBs)")
    ap.add_argument("--out", default="experiments/out", help="directory for scaling.csv and scaling.png")
    ap.add_argument("--repeats", type=int, default=1, help="runs per kernel (the median time is reported)")
    ap.add_argument("--no-heir", action="store_true", help="leave heir-opt out even when it is installed")
    ap.add_argument("--timeout", type=float, default=1800.0, help="wall seconds per single run of either tool")
    ap.add_argument("--one", nargs=2, metavar=("KERNEL", "SIZE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]))))
        return []
    sums = args.sum_sizes if args.sum_sizes is not None else (BIG_SUMS if args.big else DEFAULT_SUMS)
    blurs = args.blur_widths if args.blur_widths is not None else (BIG_BLURS if args.big else DEFAULT_BLURS)
    heir_opt = None
    if not args.no_heir:
        from eqsat.testing.heir import find_heir_opt

        heir_opt = find_heir_opt()
        if heir_opt is None:
            print("scaling: heir-opt not found (pip install -e '.[heir]'); no HEIR columns", file=sys.stderr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for kernel, sizes in (("sum", sums), ("box_blur", blurs)):
        for size in [int(x) for x in sizes.split(",") if x]:
            rows.append(measure(kernel, size, size if kernel == "sum" else size * size, args.repeats, heir_opt,
                                args.timeout))
            print(rows[-1], flush=True)
    with open(out / "scaling.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=FIELDS)
        wr.writeheader()
        wr.writerows(rows)
    plot(rows, out / "scaling.png")
    return rows


if __name__ == "__main__":
    main()
