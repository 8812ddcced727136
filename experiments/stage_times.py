"""Per-stage time, e-graph size and result quality of every kernel, for before/after comparisons.

In: MLIR files (default: every ``*.mlir`` of ``examples/`` and ``tests/heir_cases/``), run
``--repeats`` times through one batch process each (``eqsat optimize F1 F2 ... --out-dir D
--json``, so start-up is paid once per repeat, not per kernel; the process warmed as ``eqsat
serve`` warms unless ``--cold``). Out: ``<out>/<name>.csv``
with one row per kernel: the medians over the repeats of ``time_s`` and of each stage of the
report's ``timings`` (parse, load, saturate, analyze, extract, place, verify), and, from the
first repeat, the e-graph's nodes, classes, iterations and stop reason, the result's
rotations, ct*ct muls and cost (quality does not depend on the repeat; a row whose quality
differs between repeats says so in ``note``); ``<out>/<name>.png``: the slowest kernels'
seconds per stage, stacked. With ``--compare OLD.csv`` it also prints,
per kernel, old and new time and saturate seconds and flags any kernel whose rotations, muls
or cost got worse (``quality_change``).

With ``--baseline DIR`` (an older version's source tree) every repeat runs that version and
then this one, so a busy machine slows both alike; the baseline's rows go to
``<name>_baseline.csv`` and are compared against.

Run: ``python experiments/stage_times.py --out-name after --compare experiments/out/before.csv``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).resolve().parent / "out"
STAGES = ["parse", "load", "saturate", "analyze", "extract", "place", "verify"]
FIELDS = ["kernel", "time_s", *STAGES, "nodes", "classes", "iterations", "stop_reason", "rotations", "muls", "cost",
          "note"]


def default_files() -> list[Path]:
    return sorted((ROOT / "examples").glob("*.mlir")) + sorted((ROOT / "tests/heir_cases").glob("*.mlir"))


#: the child process: warmed as ``eqsat serve`` warms (the modules the oracles import lazily --
#: sympy, the chain search -- imported once, not again in every program's e-graph worker)
WARM_CHILD = ("import sys\nfrom eqsat import serve\nserve.warm()\nfrom eqsat.cli import main\n"
              "sys.exit(main(sys.argv[1:]))")


def link_subpackages(tree: Path) -> None:
    """Make ``tree``'s ``rules`` and ``backend`` folders its ``eqsat.rules`` and ``eqsat.backend``
    (links ``eqsat/rules -> ../rules``, as pyproject maps them): without them the tree's
    ``eqsat`` package found those two in the installed checkout, so a baseline ran this
    version's rules."""
    for sub in ("rules", "backend"):
        link = tree / "eqsat" / sub
        if (tree / sub).is_dir() and not link.exists() and not link.is_symlink():
            link.symlink_to(Path("..") / sub)


def run_batch(files: list[Path], extra: list[str], warm: bool = True,
              tree: Path | None = None) -> dict[str, dict[str, Any]]:
    """One batch process over ``files``; the report of each kernel by its stem. ``tree``:
    another source tree of the project (e.g. ``git archive`` of an older commit) imported
    instead of the installed one (first on ``PYTHONPATH``, same interpreter and packages)."""
    exe = [sys.executable, "-c", WARM_CHILD] if warm or tree else [str(Path(sys.executable).parent / "eqsat")]
    env = dict(os.environ, EQSAT_NO_SERVER="1")  # the stages of this process, not of a server's fork
    if tree is not None:
        link_subpackages(tree)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tree), env.get("PYTHONPATH", "")) if p)
    with tempfile.TemporaryDirectory() as tmp:
        # run in ``tree`` when given: ``python -c`` puts the working directory first on sys.path
        subprocess.run([*exe, "optimize", *(str(f.resolve()) for f in files), "--out-dir", tmp, "--json",
                        "--quiet", *extra], capture_output=True, text=True, check=False, env=env,
                       cwd=str(tree) if tree is not None else None)
        reports: dict[str, dict[str, Any]] = {}
        for f in files:
            js = Path(tmp) / f"{f.stem}.json"
            if js.exists():
                with contextlib.suppress(json.JSONDecodeError):
                    reports[f.stem] = json.loads(js.read_text())
        return reports


def quality(rep: dict[str, Any]) -> tuple[int, int, float]:
    after = rep.get("after") or {}
    ops = after.get("ops") or {}
    return int(ops.get("rotate", 0)), int(ops.get("mul", 0)), float(after.get("cost", 0.0))


def row(name: str, reps: list[dict[str, Any]]) -> dict[str, Any]:
    if not reps:
        return {"kernel": name, "note": "no report"}
    first = reps[0]
    out: dict[str, Any] = {"kernel": name}
    out["time_s"] = round(statistics.median(float(r.get("time_s", 0.0)) for r in reps), 3)
    for st in STAGES:
        vals = [float((r.get("timings") or {}).get(st, 0.0)) for r in reps]
        out[st] = round(statistics.median(vals), 3)
    eg = first.get("egraph") or {}
    out.update(nodes=eg.get("nodes"), classes=eg.get("classes"), iterations=eg.get("iterations"),
               stop_reason=first.get("stop_reason"))
    rot, mul, cost = quality(first)
    out.update(rotations=rot, muls=mul, cost=cost)
    out["note"] = "" if len({quality(r) for r in reps}) == 1 else "quality differs between repeats"
    return out


def quality_change(old: tuple[int, int, float], new: tuple[int, int, float]) -> str:
    """``same``; ``better`` (no count higher); ``WORSE`` (a higher cost, or a count higher at
    the same cost); ``mixed`` (a lower cost for a higher count: the cost model's choice)."""
    if old == new:
        return "same"
    if all(n <= o for n, o in zip(new, old, strict=True)):
        return "better"
    return "WORSE" if new[2] >= old[2] else "mixed"


def compare(old_csv: Path, rows: list[dict[str, Any]]) -> int:
    old = {r["kernel"]: r for r in csv.DictReader(old_csv.open())}
    worse = 0
    print(f"{'kernel':45s} {'time old':>8s} {'new':>7s} {'sat old':>8s} {'new':>7s}  quality")
    tot_old = tot_new = 0.0
    for r in rows:
        o = old.get(str(r["kernel"]))
        if o is None or not o.get("time_s") or r.get("time_s") is None:
            continue
        qo = (int(o["rotations"]), int(o["muls"]), float(o["cost"]))
        qn = (int(r["rotations"]), int(r["muls"]), float(r["cost"]))
        flag = quality_change(qo, qn)
        worse += flag == "WORSE"
        tot_old += float(o["time_s"])
        tot_new += float(r["time_s"])
        print(f"{r['kernel']!s:45s} {float(o['time_s']):8.2f} {float(r['time_s']):7.2f} "
              f"{float(o['saturate']):8.2f} {float(r['saturate']):7.2f}  {flag} {qo} -> {qn}")
    print(f"total time_s {tot_old:.1f} -> {tot_new:.1f}; kernels with worse quality: {worse}")
    return worse


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="MLIR files (default: examples/ and tests/heir_cases/)")
    ap.add_argument("--repeats", type=int, default=3, help="batch runs; times are medians over them")
    ap.add_argument("--out", type=Path, default=OUT, help="directory for the CSV")
    ap.add_argument("--out-name", default="stage_times", help="CSV file name without .csv")
    ap.add_argument("--compare", type=Path, help="an earlier CSV of this script to compare against")
    ap.add_argument("--cold", action="store_true",
                    help="a plain `eqsat optimize` batch (each e-graph worker imports what its oracles need)")
    ap.add_argument("--eqsat-args", default="", help="extra arguments for `eqsat optimize`, space separated")
    ap.add_argument("--baseline", type=Path,
                    help="a source tree of an older version (e.g. `git archive OLD | tar -x -C DIR`): each "
                         "repeat runs it, then this one, so both are timed in the same window; its rows go to "
                         "<out-name>_baseline.csv and are compared against (instead of --compare)")
    args = ap.parse_args(argv)
    files = args.files or default_files()
    runs: list[dict[str, dict[str, Any]]] = []
    base_runs: list[dict[str, dict[str, Any]]] = []
    for _ in range(args.repeats):
        if args.baseline:
            base_runs.append(run_batch(files, args.eqsat_args.split(), warm=not args.cold, tree=args.baseline))
        runs.append(run_batch(files, args.eqsat_args.split(), warm=not args.cold))
    rows = [row(f.stem, [r[f.stem] for r in runs if f.stem in r]) for f in files]
    args.out.mkdir(parents=True, exist_ok=True)
    if args.baseline:
        base_rows = [row(f.stem, [r[f.stem] for r in base_runs if f.stem in r]) for f in files]
        args.compare = args.out / f"{args.out_name}_baseline.csv"
        with args.compare.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(base_rows)
    path = args.out / f"{args.out_name}.csv"
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    old = {r["kernel"]: r for r in csv.DictReader(args.compare.open())} if args.compare else {}
    plot(rows, old, path.with_suffix(".png"))
    print(f"wrote {path} and {path.with_suffix('.png').name}")
    if args.compare:
        compare(args.compare, rows)
    return rows


def plot(rows: list[dict[str, Any]], old: dict[str, dict[str, Any]], path: Path, top: int = 25) -> None:
    """The ``top`` slowest kernels: seconds per stage, stacked (a black tick: the old
    ``time_s`` of ``--compare``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from experiments.plots import stacked_barh

    timed = sorted((r for r in rows if r.get("time_s") is not None),
                   key=lambda r: max(float(r["time_s"]), float(old.get(r["kernel"], {}).get("time_s") or 0)))[-top:]
    fig, ax = plt.subplots(figsize=(10, 0.3 * len(timed) + 1.5))
    stacked_barh(ax, range(len(timed)), [(st, [float(r.get(st) or 0) for r in timed]) for st in STAGES])
    for y, r in enumerate(timed):
        if r["kernel"] in old and old[r["kernel"]].get("time_s"):
            ax.plot([float(old[r["kernel"]]["time_s"])] * 2, [y - 0.4, y + 0.4], "k-", lw=2)
    ax.set_yticks(range(len(timed)), [str(r["kernel"]) for r in timed], fontsize=7)
    ax.set_xlabel("seconds (median); black tick: time_s before" if old else "seconds (median)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
