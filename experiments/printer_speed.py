"""Printing time: the direct text printer (``print_mlir``) against the xDSL-built reference
(``print_mlir_xdsl``), on small and large kernels, before and after optimization.

In: ``--kernels`` (names under ``examples/``; default ``sum_8``, ``dot_product_8``,
``hamming_distance_1024``, ``gx_16x16``, ``box_blur_64x64``), ``--repeats`` (default 15; a
print taking more than 0.2 s is repeated 5 times), ``--scheme`` (default bgv), ``--out``.
Out: ``printer_speed.csv``, one row per kernel, program (``source``: the parsed IR;
``optimized``: ``eqsat.optimize``'s program) and printer -- live nodes, bytes printed,
median / min CPU seconds of one print (``time.process_time``), and ``same`` (both printers
wrote the same bytes); ``printer_speed.png``: the medians per kernel on a log axis.

Run: ``python experiments/printer_speed.py [--kernels sum_8,gx_16x16] [--repeats 15]``.
The machine is shared: CPU time, not wall, and medians.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eqsat.frontend.mlir import parse_mlir  # noqa: E402
from eqsat.frontend.mlir.printer import print_mlir, print_mlir_xdsl  # noqa: E402
from eqsat.ir import Program  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
KERNELS = ["sum_8", "dot_product_8", "hamming_distance_1024", "gx_16x16", "box_blur_64x64"]
PRINTERS: dict[str, Callable[[Program], str]] = {"xdsl": print_mlir_xdsl, "text": print_mlir}


def cpu_times(fn: Callable[[], object], repeats: int) -> list[float]:
    """CPU seconds of ``repeats`` calls (fewer, 5, when one call takes over 0.2 s)."""
    times: list[float] = []
    while len(times) < repeats:
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
        if times[0] > 0.2 and len(times) >= 5:
            break
    return times


def measure(kernel: str, scheme: str, repeats: int) -> list[dict[str, Any]]:
    from eqsat.pipeline import optimize

    path = ROOT / "examples" / f"{kernel}.mlir"
    (source,) = parse_mlir(path.read_text(), str(path))
    progs = {"source": source, "optimized": optimize(source, "noisy" if source.style == "noisy" else scheme).program}
    rows = []
    for which, prog in progs.items():
        texts = {name: fn(prog) for name, fn in PRINTERS.items()}  # also warms caches
        for name, fn in PRINTERS.items():
            ts = cpu_times(lambda fn=fn, prog=prog: fn(prog), repeats)  # type: ignore[misc]
            rows.append({"kernel": kernel, "program": which, "printer": name, "live_nodes": len(prog.live()),
                         "bytes": len(texts[name]), "median_cpu_s": round(statistics.median(ts), 6),
                         "min_cpu_s": round(min(ts), 6), "runs": len(ts),
                         "same": texts["text"] == texts["xdsl"]})
            print(f"{kernel:24} {which:9} {name:5} {statistics.median(ts) * 1e3:10.3f} ms "
                  f"({len(prog.live())} nodes, same={texts['text'] == texts['xdsl']})", flush=True)
    return rows


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
    for ax, which in zip(axes, ["source", "optimized"], strict=True):
        sel = [r for r in rows if r["program"] == which]
        kernels = list(dict.fromkeys(r["kernel"] for r in sel))
        for k, name in enumerate(PRINTERS):
            vals = [next(r["median_cpu_s"] for r in sel if r["kernel"] == kern and r["printer"] == name)
                    for kern in kernels]
            ax.bar([i + 0.4 * k for i in range(len(kernels))], vals, width=0.4, label=name)
        ax.set_xticks([i + 0.2 for i in range(len(kernels))], kernels, rotation=20, ha="right")
        ax.set_yscale("log")
        ax.set_title(f"{which} program")
        ax.set_ylabel("median CPU seconds per print")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--kernels", default=",".join(KERNELS),
                    help="comma-separated kernel names under examples/ (without .mlir)")
    ap.add_argument("--repeats", type=int, default=15,
                    help="prints timed per kernel, program and printer (5 when one takes over 0.2 s)")
    ap.add_argument("--scheme", default="bgv", help="the scheme the optimized program is built for")
    ap.add_argument("--out", default=str(OUT), help="folder for printer_speed.csv and printer_speed.png")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for kernel in args.kernels.split(","):
        rows += measure(kernel, args.scheme, args.repeats)
    with open(out / "printer_speed.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(rows, out / "printer_speed.png")
    return rows


if __name__ == "__main__":
    main()
