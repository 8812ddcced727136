"""Fixed cost of one ``eqsat optimize`` run on small kernels: cold, warm (``eqsat serve``), and HEIR.

In: ``--kernels`` (comma-separated MLIR files; default ``sum_8``, ``mul_by_9``, ``horner``,
``pow8`` and ``collapse_chain_16`` from ``examples/``), ``--repeats`` (default 5), ``--out``.
Out: ``startup.csv``, one row per run: ``kernel``, ``mode`` --

* ``cold-cache``: a new process right after the compiled rule text was removed
  (``eqsat.egraph.compiled``: the first run after an install or an edit of the rules; first
  kernel, first repeat only);
* ``cold``: a new process, rule text cached (every run without a server);
* ``warm``: the thin client of a running ``eqsat serve`` (``eqsat.serve``), which forks an
  already-imported server per command;
* ``batch``: one process ``eqsat optimize K1 K2 ... --out-dir D`` over all kernels, no
  server (its ``wall_s`` is the process's wall over the number of kernels);
* ``heir``: ``heir-opt`` with the pipeline ``experiments/vs_heir.py`` runs for the kernel
  (skipped, with a message, when ``heir-opt`` is not installed) --

the process's wall seconds, ``cpu_s`` (user + system seconds of the process and the children
it waited for: for ``cold`` the command and its e-graph workers, for ``warm`` the client
alone -- the server's fork is not its child -- so less sensitive to the machine's load than
the wall), the report's ``time_s`` and ``timings`` per stage (eqsat rows),
``startup_s`` (wall minus the report's time and parsing: interpreter start-up, imports, and
for ``warm`` the client and the fork), rotations, and the load average.  ``startup.png``:
left, median seconds per part for the first kernel in each eqsat mode; right, median wall
per kernel and mode on a log axis, with the 0.3 s goal.

Every run is a separate process (``python -m eqsat.cli optimize KERNEL --json``) with its own
cache folder (``EQSAT_CACHE_DIR``) and server folder (``XDG_RUNTIME_DIR``); the modes
alternate so a drift in machine load hits all of them.  The machine is shared: read the
medians with the load average in the CSV.

Run: ``python experiments/startup.py [--repeats 5] [--kernels examples/sum_8.mlir]``.
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
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eqsat.testing.heir import find_heir_opt  # noqa: E402
from experiments import vs_heir  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
STAGES = ["parse", "rules", "load", "saturate", "analyze", "extract", "place", "verify"]
KERNELS = ["sum_8", "mul_by_9", "horner", "pow8", "collapse_chain_16"]
EQSAT_MODES = ["cold-cache", "cold", "warm", "batch"]
FIELDS = ["kernel", "mode", "wall_s", "cpu_s", "time_s", "startup_s", *STAGES, "rotations", "load_avg"]


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _env(cache: Path, runtime: Path, server: bool) -> dict[str, str]:
    env = dict(os.environ, EQSAT_CACHE_DIR=str(cache), XDG_RUNTIME_DIR=str(runtime))
    env.pop("EQSAT_NO_SERVER", None)
    if not server:
        env["EQSAT_NO_SERVER"] = "1"
    return env


def eqsat_run(kernel: Path, mode: str, cache: Path, runtime: Path) -> dict[str, Any]:
    """One ``eqsat optimize --json`` process in ``mode`` (cold-cache, cold or warm)."""
    if mode == "cold-cache":
        for f in cache.glob("rules-*.json"):
            f.unlink()
    env = _env(cache, runtime, server=mode == "warm")
    t0, c0 = time.perf_counter(), _children_cpu()
    proc = subprocess.run([sys.executable, "-m", "eqsat.cli", "optimize", str(kernel), "--json"],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    rep = json.loads(proc.stdout)
    timings = rep.get("timings", {})
    row: dict[str, Any] = {"kernel": kernel.stem, "mode": mode, "wall_s": round(wall, 4), "cpu_s": round(cpu, 4),
                           "time_s": rep["time_s"],
                           "load_avg": round(os.getloadavg()[0], 2)}
    row.update({s: timings.get(s, 0.0) for s in STAGES})
    row["startup_s"] = round(wall - rep["time_s"] - timings.get("parse", 0.0), 4)
    row["rotations"] = rep["after"]["ops"].get("rotate", 0)
    return row


def batch_run(kernels: list[Path], cache: Path, runtime: Path) -> list[dict[str, Any]]:
    """One ``eqsat optimize K1 K2 ... --out-dir D --json`` process (no server) over all kernels:
    per kernel its report's time and stages, and ``wall_s`` = the process's wall divided by the
    number of kernels (its start-up is paid once and shared)."""
    env = _env(cache, runtime, server=False)
    with tempfile.TemporaryDirectory(prefix="eqsat-batch-") as out:
        t0, c0 = time.perf_counter(), _children_cpu()
        proc = subprocess.run([sys.executable, "-m", "eqsat.cli", "optimize", *map(str, kernels), "--out-dir", out,
                               "--json"], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
        wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    reports = json.loads(proc.stdout)
    rows = []
    for kernel in kernels:
        rep = reports[str(kernel)]
        timings = rep.get("timings", {})
        row: dict[str, Any] = {"kernel": kernel.stem, "mode": "batch", "wall_s": round(wall / len(kernels), 4),
                               "cpu_s": round(cpu / len(kernels), 4),
                               "time_s": rep["time_s"], "load_avg": round(os.getloadavg()[0], 2)}
        row.update({s: timings.get(s, 0.0) for s in STAGES})
        row["startup_s"] = round(wall / len(kernels) - rep["time_s"] - timings.get("parse", 0.0), 4)
        row["rotations"] = rep["after"]["ops"].get("rotate", 0)
        rows.append(row)
    return rows


def heir_run(heir_opt: Path, kernel: Path) -> dict[str, Any] | None:
    """``heir-opt`` on ``kernel`` with the pipeline vs_heir.py uses for its kind (None: no
    HEIR pipeline for it, e.g. a noisy-dialect kernel, or HEIR rejects it)."""
    k = vs_heir.kind(kernel.read_text())
    if k == "noisy":
        return None
    run = vs_heir.run_heir(heir_opt, kernel, vs_heir.PIPELINES["vectorizer" if k == "tensor" else "mlir-to-bgv"],
                           timeout=600.0)
    if run.status != "ok":
        return None
    return {"kernel": kernel.stem, "mode": "heir", "wall_s": round(run.seconds[0], 4),
            "rotations": run.counts.rotations if run.counts else "", "load_avg": round(os.getloadavg()[0], 2)}


def _server(action: str, cache: Path, runtime: Path) -> None:
    subprocess.run([sys.executable, "-m", "eqsat.cli", "serve", action], env=_env(cache, runtime, server=True),
                   cwd=ROOT, check=True, capture_output=True)


def _median(rows: list[dict[str, Any]], key: str, **where: str) -> float:
    xs = [float(r[key]) for r in rows if all(r.get(k) == v for k, v in where.items()) and r.get(key) not in ("", None)]
    return statistics.median(xs) if xs else 0.0


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kernels = list(dict.fromkeys(str(r["kernel"]) for r in rows))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1, 2]})
    first = kernels[0]
    modes = [m for m in EQSAT_MODES if any(r["mode"] == m and r["kernel"] == first for r in rows)]
    bottom = [0.0] * len(modes)
    for part in ["startup_s", *STAGES]:
        vals = [_median(rows, part, kernel=first, mode=m) for m in modes]
        a1.bar(modes, vals, bottom=bottom, label=part.removesuffix("_s"))
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    a1.axhline(0.3, ls="--", color="gray", lw=1, label="0.3 s goal")
    a1.set_ylabel("seconds (median)")
    a1.set_title(f"{first}: where the time goes", fontsize=9)
    a1.legend(fontsize=6, ncol=2)
    shown = [m for m in ["cold", "warm", "batch", "heir"] if any(r["mode"] == m for r in rows)]
    width = 0.8 / max(1, len(shown))
    for j, m in enumerate(shown):
        xs = [i + (j - (len(shown) - 1) / 2) * width for i in range(len(kernels))]
        ys = [_median(rows, "wall_s", kernel=k, mode=m) for k in kernels]
        a2.bar(xs, [y if y > 0 else float("nan") for y in ys], width, label="heir-opt" if m == "heir" else f"eqsat {m}")
    a2.axhline(0.3, ls="--", color="gray", lw=1, label="0.3 s goal")
    a2.set_xticks(range(len(kernels)), kernels, fontsize=8)
    a2.set_yscale("log")
    a2.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    a2.set_ylabel("wall seconds per command (median)")
    a2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--kernels", default=",".join(str(ROOT / "examples" / f"{k}.mlir") for k in KERNELS),
                    help="comma-separated MLIR files")
    ap.add_argument("--repeats", type=int, default=5, help="runs per kernel and mode (the median is kept)")
    ap.add_argument("--no-server", action="store_true", help="skip the warm (eqsat serve) runs")
    ap.add_argument("--no-batch", action="store_true", help="skip the batch runs (one process over all kernels)")
    ap.add_argument("--out", type=Path, default=OUT, help="directory for startup.csv and startup.png")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    kernels = [Path(k) for k in args.kernels.split(",") if k]
    heir_opt = find_heir_opt()
    if heir_opt is None:
        print("startup: heir-opt not found (pip install -e '.[heir]'); no HEIR rows", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="eqsat-startup-") as tmp:
        cache, runtime = Path(tmp) / "cache", Path(tmp) / "run"
        runtime.mkdir(mode=0o700)
        eqsat_run(kernels[0], "cold-cache", cache, runtime)  # builds the rule text the server reads
        if not args.no_server:
            _server("start", cache, runtime)
        try:
            for i, kernel in enumerate(kernels):
                for rep in range(args.repeats):
                    modes = ["cold-cache"] if i == 0 and rep == 0 else []  # one: it takes seconds
                    modes += ["cold"] + ([] if args.no_server else ["warm"])
                    for mode in modes:
                        rows.append(eqsat_run(kernel, mode, cache, runtime))
                    if heir_opt is not None:
                        h = heir_run(heir_opt, kernel)
                        if h is not None:
                            rows.append(h)
            if not args.no_batch:
                for _ in range(args.repeats):
                    rows += batch_run(kernels, cache, runtime)
        finally:
            if not args.no_server:
                _server("stop", cache, runtime)
            shutil.rmtree(cache, ignore_errors=True)
    with open(args.out / "startup.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    plot(rows, args.out / "startup.png")
    for kernel in dict.fromkeys(str(r["kernel"]) for r in rows):
        parts = [f"{m} {_median(rows, 'wall_s', kernel=kernel, mode=m):.3f} s"
                 for m in [*EQSAT_MODES, "heir"] if any(r["kernel"] == kernel and r["mode"] == m for r in rows)]
        print(f"{kernel}: median wall " + ", ".join(parts))
    return rows


if __name__ == "__main__":
    main()
