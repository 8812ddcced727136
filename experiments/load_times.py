"""The e-graph load stage (``Session(prog)``) of kernels, timed in warm processes, A/B interleaved.

In: MLIR files and optionally ``--baseline DIR`` (another source tree, e.g. ``git archive main``).
One child process per tree (warmed as ``eqsat serve`` warms) loads each kernel again and again
(``session.prepare_default()`` before each ``Session``); the parent alternates the trees per
repeat. Out (stdout): per kernel and tree the medians (ms) of the whole ``Session(prog)``, the
Python loader (``Loader(prog)``, ``load``, ``write``), the ``input`` commands, the ``ld`` run and
the analyses at load (``analyse``), and the egglog iteration counts of the ``ld`` run and of the
analyses; the same rows in ``<out>/load_times.csv`` and, in ``<out>/load_times.png``, each
kernel's stages stacked per tree (the slowest kernels first).

Run: ``python experiments/load_times.py --baseline /tmp/base --repeats 9 tests/heir_cases/*.mlir``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

CHILD = r'''
import json, sys, time
from eqsat import serve
serve.warm()
from egglog import bindings
from eqsat.egraph import session as S
from eqsat.egraph import loader as L
from eqsat.frontend.mlir import parse_mlir
import os
for flag in ("LOAD_FACTS", "LOAD_FILLED_ONLY", "LOAD_LATE_UNIONS"):  # experiments: EQSAT_LOAD_FACTS=0 ...
    if "EQSAT_" + flag in os.environ:
        setattr(S, flag, os.environ["EQSAT_" + flag] == "1")

acc = {}
def timed(name, fn):
    def wrap(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            acc[name] = acc.get(name, 0.0) + time.perf_counter() - t
    return wrap

L.Loader.__init__ = timed("py", L.Loader.__init__)
L.Loader.load = timed("py", L.Loader.load)
L.Loader.write = timed("py", L.Loader.write)
S.Session.analyse = timed("analyse", S.Session.analyse)
its = {}
orig_run_text = S.Session._run_text
def run_text(self, text, cache=False):
    t = time.perf_counter()
    out = orig_run_text(self, text, cache)
    dt = time.perf_counter() - t
    if "(run ld)" in text or "(run ld-" in text and "clean" not in text.split("(run ld-", 1)[1][:6]:
        kind = "ld"
    elif text.startswith("(input") or "\n(input" in text[:200]:
        kind = "input"
    elif "(run-schedule" in text and "term" in text:
        kind = "analyse_run"
    else:
        kind = "other"
    acc[kind] = acc.get(kind, 0.0) + dt
    for o in out:
        if isinstance(o, bindings.RunScheduleOutput) and kind in ("ld", "analyse_run"):
            its[kind] = its.get(kind, 0) + len(o.report.iterations)
    return out
S.Session._run_text = run_text

progs = {}
for line in sys.stdin:
    path = line.strip()
    if not path:
        continue
    if path not in progs:
        progs[path] = parse_mlir(open(path).read(), path)[0]
    acc.clear(); its.clear()
    S.prepare_default()
    t = time.perf_counter()
    sess = S.Session(progs[path])
    acc["total"] = time.perf_counter() - t
    del sess
    print(json.dumps({"ms": {k: v * 1e3 for k, v in acc.items()}, "its": its}), flush=True)
'''


class Child:
    def __init__(self, tree: Path | None) -> None:
        env = dict(os.environ, EQSAT_NO_SERVER="1")
        if tree is not None:
            sys.path.insert(0, str(ROOT / "experiments"))
            from stage_times import link_subpackages

            link_subpackages(tree)
            env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tree), env.get("PYTHONPATH", "")) if p)
        self.p = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, env=env, cwd=str(tree or ROOT))

    def run(self, path: Path) -> dict[str, Any]:
        assert self.p.stdin and self.p.stdout
        self.p.stdin.write(f"{path.resolve()}\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("child died")
        return json.loads(line)  # type: ignore[no-any-return]

    def close(self) -> None:
        assert self.p.stdin
        self.p.stdin.close()
        self.p.wait()


KEYS = ["total", "py", "input", "ld", "analyse"]


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path, help="MLIR kernels to load")
    ap.add_argument("--baseline", type=Path, help="another source tree, loaded alternately with this one")
    ap.add_argument("--repeats", type=int, default=7, help="timed loads per kernel and tree (medians)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed loads per kernel and tree first")
    ap.add_argument("--out", type=Path, default=ROOT / "experiments" / "out",
                    help="folder for load_times.csv and load_times.png")
    args = ap.parse_args(argv)
    trees: dict[str, Child] = {}
    if args.baseline:
        trees["base"] = Child(args.baseline)
    trees["new"] = Child(None)
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    try:
        for f in args.files:
            for _ in range(args.warmup):
                for c in trees.values():
                    c.run(f)
            for _ in range(args.repeats):
                for name, c in trees.items():
                    runs.setdefault((f.stem, name), []).append(c.run(f))
    finally:
        for c in trees.values():
            c.close()
    rows: list[dict[str, Any]] = []
    print(f"{'kernel':34} {'tree':5} " + " ".join(f"{k:>8}" for k in KEYS) + "  its(ld/an)")
    for (kernel, name), rs in runs.items():
        med = {k: statistics.median(r["ms"].get(k, 0.0) for r in rs) for k in KEYS}
        its = rs[0]["its"]
        rows.append({"kernel": kernel, "tree": name, **{f"{k}_ms": round(med[k], 3) for k in KEYS},
                     "ld_iterations": its.get("ld", 0), "analysis_iterations": its.get("analyse_run", 0)})
        print(f"{kernel:34} {name:5} " + " ".join(f"{med[k]:8.2f}" for k in KEYS)
              + f"  {its.get('ld', 0)}/{its.get('analyse_run', 0)}")
    write(rows, args.out)
    return rows


def write(rows: list[dict[str, Any]], out: Path) -> None:
    """The CSV, and a bar per kernel and tree: the Python loader, input, ld and the analyses, stacked (ms)."""
    import csv

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from experiments.plots import stacked_barh_figure

    out.mkdir(parents=True, exist_ok=True)
    with open(out / "load_times.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["kernel"])
        w.writeheader()
        w.writerows(rows)
    order = sorted(rows, key=lambda r: (-max(x["total_ms"] for x in rows if x["kernel"] == r["kernel"]),
                                        r["kernel"], r["tree"]))[:24]
    stacked_barh_figure(out / "load_times.png", [f"{r['kernel']} ({r['tree']})" for r in order],
                        [(k, [float(r[f"{k}_ms"]) for r in order]) for k in ("py", "input", "ld", "analyse")],
                        "ms (median), warm process", "The load stage per kernel: Python loader, input, ld, analyses",
                        top_down=True)


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
