"""Does the program the optimizer calls cheaper run faster encrypted, and by how much?

In: every example of ``examples/`` and every kernel of the kernel suite
(``experiments/kernels/``, its first writing style), optionally filtered with ``--only``.
Each is optimized (BGV, the default cost table unless ``--costs``); the original and the
optimized program are run encrypted once each through ``eqsat.backend.run_program``
(128-bit parameters chosen per program by ``eqsat run``'s default, the average-case noise
model; ``match`` columns) and then timed: the median
CPU time of ``--reps`` homomorphic evaluations (every op of the program, one thread; the
inputs are encrypted before the clock starts) on one key set after a warm-up run, so
key generation, plaintext encoding and encryption -- once per key set or client work,
not priced by the cost model -- are left out.  Both programs are timed under the
same parameters (the larger of the two programs' choices: the cost model prices ops,
not ring sizes), and each also under its own parameters (``*_own_params``: what a user
gains, ring changes included).  An original with more than ``--max-ops`` ciphertext ops
is skipped (minutes per run on a shared machine); the CSV says so.

Out: ``<out>/cost_vs_time.csv``, one row per program: model cost before/after and their
ratio (the predicted speed-up), measured times and their ratio (the measured speed-up),
the ring dimension and prime count each program chose, and prediction error =
predicted / measured - 1.  ``<out>/cost_vs_time.png``: left, predicted against measured
speed-up (log-log; on the diagonal the model is exact, in the band within 25%); right,
model cost against measured time of every timed program (before and after), log-log.
The Pearson correlation of the logs and the median |prediction error| are printed, put
in the plot titles and written to ``<out>/cost_vs_time_summary.json``.

The model cost is the report's ``cost`` (``eqsat.models.hoisting.program_cost``: op
counts priced by the table, rotations of a value after its first at ``rotate_hoisted``)
of the program that is timed.  The original is timed with the management ops the
report's ``before`` prices (``mgmt.manage``: relinearizations where placement puts them,
not after every product as an unmanaged run does), and an unrealized ``linalg`` map as
its best plan (``expand_linmaps``, as ``eqsat run`` runs it), priced as that plan
(``cost_before_report`` keeps the report's price, the map's direct realization).  The
own-parameter prediction (``predicted_speedup_own_params``) scales each program's cost by
``eqsat.models.cost.param_scale`` of the ring dimension and prime count it chose, and is
compared with ``measured_speedup_own_params``.  ``hoisted_*`` is the model's count of
hoisted rotations, ``hoisted_run_*`` the executor's (rotations that reused a kept
decomposition in one evaluation).  The timed programs are written to
``<out>/cost_vs_time_programs/`` (the original with its management ops, and the optimized
one), so ``--repredict TABLE.json`` prices them under another table without optimizing or
timing again -- the fair comparison of two tables on the same programs and times.

Usage: ``python experiments/cost_vs_time.py [--only NAME] [--max-ops 400] [--reps 3] [--out DIR]``
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eqsat.algebra.linmap_realize import expand_linmaps  # noqa: E402
from eqsat.backend import run_program  # noqa: E402
from eqsat.backend.bgv import BGV  # noqa: E402
from eqsat.backend.errors import BackendError  # noqa: E402
from eqsat.backend.executor import _input_bound, choose_params  # noqa: E402
from eqsat.backend.params import Params  # noqa: E402
from eqsat.backend.session import _GivenInputs  # noqa: E402
from eqsat.egraph.session import Limits  # noqa: E402
from eqsat.errors import EqsatError  # noqa: E402
from eqsat.frontend.mlir import parse_mlir, print_mlir  # noqa: E402
from eqsat.interp import coerce_input, random_inputs  # noqa: E402
from eqsat.ir import MGMT_OPS, IRError, Program  # noqa: E402
from eqsat.models.cost import load_overrides, param_scale, table  # noqa: E402
from eqsat.models.hoisting import hoisted_rotations, program_cost  # noqa: E402
from eqsat.pipeline import optimize  # noqa: E402
from experiments.kernels import load  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
#: ops that cost a ciphertext operation when run (the rest are free or clear)
CT_OPS = ("add", "sub", "mul", "mul_plain", "add_plain", "rotate", "extract", "insert", "neg",
          "relinearize", "modswitch", "rescale", "bootstrap", "reduce_noise")
FIELDS = ["program", "source", "status", "cost_before", "cost_after", "predicted_speedup", "cost_before_report",
          "time_before_s", "time_after_s", "measured_speedup", "prediction_error",
          "time_before_own_params_s", "time_after_own_params_s", "measured_speedup_own_params",
          "predicted_speedup_own_params", "prediction_error_own_params",
          "N_before", "N_after", "primes_before", "primes_after", "ops_before", "ops_after",
          "hoisted_before", "hoisted_after", "hoisted_run_before", "hoisted_run_after",
          "match_before", "match_after"]
#: where the timed programs are kept (MLIR), so that ``--repredict`` can price them again
PROGRAMS = "cost_vs_time_programs"


def programs(only: str) -> list[tuple[str, str, Path]]:
    """(name, source, file) of every example and every kernel's first style."""
    out = [(p.stem, "example", p) for p in sorted((ROOT / "examples").glob("*.mlir"))]
    out += [(e.name, "kernel suite", e.file(e.styles[0])) for e in load() if not e.slow]
    return [x for x in out if only in x[0]]


def ct_ops(ops: dict[str, int]) -> int:
    return sum(v for k, v in ops.items() if k in CT_OPS)


def eval_time(prog: Program, params: Params, inputs: dict[str, Any], seed: int, reps: int) -> tuple[float, int]:
    """Median CPU seconds of one homomorphic evaluation of ``prog`` under ``params``: the
    inputs are encrypted before the clock starts (fresh ciphertexts every repetition, so
    nothing cached on them is reused), and a warm-up run on the same key set comes first.
    Key generation (Galois keys are made lazily), plaintext encoding and encryption are
    once-per-key-set or client costs that the cost model does not price.  Also returns
    how many rotations of one evaluation reused a kept decomposition (hoisted)."""
    ev = BGV(params, seed)
    low = _GivenInputs(prog, ev, "bgv")
    types = dict(prog.args)

    def encrypted() -> dict[str, Any]:
        vals: dict[str, Any] = {}
        for name, ty in prog.args:
            v = coerce_input(name, inputs[name], types[name], low.t)
            vals[name] = low._encrypt(v, ty.slots, ty.is_scalar) if ty.secret else v
        return vals

    low.run(encrypted())  # warm-up: keys, plaintext cache, JIT
    times = []
    reuses = ev.stats["hoisted_reuses"]
    for _ in range(reps):
        vals = encrypted()
        t0 = time.process_time()
        _GivenInputs(prog, ev, "bgv").run(vals)
        times.append(time.process_time() - t0)
    return statistics.median(times), (ev.stats["hoisted_reuses"] - reuses) // max(reps, 1)


def managed_source(prog: Program) -> Program:
    """The original as the report prices it: with the management ops it needs to run."""
    from eqsat import mgmt

    return prog if any(prog.nodes[i].op in MGMT_OPS for i in prog.live()) else mgmt.manage(
        mgmt.strip_mgmt(prog), "bgv", None)


def save_programs(out: Path, name: str, before: Program, after: Program) -> None:
    d = out / PROGRAMS
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{name}.before.mlir").write_text(print_mlir(before))
    (d / f"{name}.after.mlir").write_text(print_mlir(after))


def measure(name: str, source: str, path: Path, costs: Any, max_ops: int, seed: int,
            time_limit: float, reps: int, out: Path | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"program": name, "source": source}
    try:
        prog = parse_mlir(path.read_text(), str(path))[0]
        if prog.style == "noisy":
            return row | {"status": "skipped: the noisy dialect has no BGV cost table"}
        res = optimize(prog, scheme="bgv", costs=costs, limits=Limits(time_s=time_limit))
    except (EqsatError, IRError) as exc:
        return row | {"status": "failed: " + " ".join(str(exc).split())[:100]}
    before, after = res.report["before"], res.report["after"]
    n_ops = ct_ops(before["ops"])
    # what is timed is what is priced: the original with the management ops the report's
    # "before" gives it (relinearizations where the placement puts them, not after every
    # product as an unmanaged run would) and an unrealized linmap as its best plan, as the
    # executor runs it (the report prices a source's map by its direct realization)
    priced_before = managed_source(expand_linmaps(prog))
    priced_after = expand_linmaps(res.program)
    table_ = table("bgv", costs)
    row |= {"cost_before": program_cost(priced_before, table_), "cost_after": program_cost(priced_after, table_),
            "cost_before_report": before["cost"],
            "ops_before": n_ops, "ops_after": ct_ops(after["ops"]),
            "hoisted_before": hoisted_rotations(priced_before),
            "hoisted_after": hoisted_rotations(priced_after)}
    if out is not None:
        save_programs(out, name, priced_before, priced_after)
    if row["cost_after"] > 0:
        row["predicted_speedup"] = round(row["cost_before"] / row["cost_after"], 3)
    if n_ops > max_ops:
        return row | {"status": f"skipped: {n_ops} ciphertext ops before optimization (> --max-ops {max_ops})"}
    inputs = random_inputs(prog, seed, bound=7)
    try:
        rb = run_program(priced_before, inputs, "bgv", seed=seed)  # correctness, and own parameters
        ra = run_program(priced_after, inputs, "bgv", seed=seed)
        bound = _input_bound(prog, inputs)
        p_before = choose_params(priced_before, "bgv", input_bound=bound, noise_model="average")
        p_after = choose_params(priced_after, "bgv", input_bound=bound, noise_model="average")
        # the same parameters for both (the larger set, so both fit): what the cost model prices
        common = max(p_before, p_after, key=lambda p: (p.N, len(p.moduli)))
        tb, hb = eval_time(priced_before, common, inputs, seed, reps)
        ta, ha = eval_time(priced_after, common, inputs, seed, reps)
        tb_own = tb if p_before == common else eval_time(priced_before, p_before, inputs, seed, reps)[0]
        ta_own = ta if p_after == common else eval_time(priced_after, p_after, inputs, seed, reps)[0]
    except BackendError as exc:
        return row | {"status": "run failed: " + str(exc)[:100]}
    row |= {
        "time_before_s": round(tb, 5), "time_after_s": round(ta, 5),
        "time_before_own_params_s": round(tb_own, 5), "time_after_own_params_s": round(ta_own, 5),
        "N_before": rb["params"]["N"], "N_after": ra["params"]["N"],
        "primes_before": rb["params"]["primes"], "primes_after": ra["params"]["primes"],
        "match_before": rb["match"], "match_after": ra["match"],
        "hoisted_run_before": hb, "hoisted_run_after": ha,
        "measured_speedup": round(tb / ta, 3) if ta > 0 else None,
        "measured_speedup_own_params": round(tb_own / ta_own, 3) if ta_own > 0 else None,
    }
    return own_params_prediction(row) | {"status": "ok"}


def own_params_prediction(row: dict[str, Any]) -> dict[str, Any]:
    """Fill the prediction errors; the own-parameter prediction scales each program's
    model cost by ``param_scale`` of the parameters it chose."""
    if "predicted_speedup" in row and row.get("measured_speedup"):
        row["prediction_error"] = round(row["predicted_speedup"] / row["measured_speedup"] - 1, 3)
    if "predicted_speedup" in row and all(row.get(k) for k in ("N_before", "N_after", "primes_before",
                                                                "primes_after")):
        scale = (param_scale(int(row["N_before"]), int(row["primes_before"]))
                 / param_scale(int(row["N_after"]), int(row["primes_after"])))
        row["predicted_speedup_own_params"] = round(row["predicted_speedup"] * scale, 3)
        if row.get("measured_speedup_own_params"):
            row["prediction_error_own_params"] = round(
                row["predicted_speedup_own_params"] / row["measured_speedup_own_params"] - 1, 3)
    return row


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in rows if r.get("status") == "ok" and r.get("prediction_error") is not None]
    if not ok:
        return {"programs": 0}
    errs = [abs(r["prediction_error"]) for r in ok]
    with_own = [r for r in ok if r.get("prediction_error_own_params") is not None]
    own = [abs(r["prediction_error_own_params"]) for r in with_own]
    lp = [math.log(r["predicted_speedup"]) for r in ok]
    lm = [math.log(r["measured_speedup"]) for r in ok]
    pts = [(math.log(r[f"cost_{w}"]), math.log(r[f"time_{w}_s"])) for r in ok for w in ("before", "after")
           if r[f"cost_{w}"] > 0]
    speedups = [r["measured_speedup"] for r in ok]
    return {
        "programs": len(ok),
        "median_abs_prediction_error": round(statistics.median(errs), 3),
        "within_25_percent": sum(e <= 0.25 for e in errs),
        "pearson_log_speedup": _pearson(lp, lm),
        "pearson_log_cost_vs_time": _pearson([p for p, _ in pts], [t for _, t in pts]),
        "median_measured_speedup": round(statistics.median(speedups), 3),
        "median_predicted_speedup": round(statistics.median(r["predicted_speedup"] for r in ok), 3),
        "median_abs_prediction_error_own_params": round(statistics.median(own), 3) if own else None,
        "within_25_percent_own_params": sum(e <= 0.25 for e in own),
        "pearson_log_speedup_own_params": _pearson(
            [math.log(r["predicted_speedup_own_params"]) for r in with_own],
            [math.log(r["measured_speedup_own_params"]) for r in with_own]),
        "median_kernel": _median_kernel(ok),
    }


def _median_kernel(ok: list[dict[str, Any]]) -> dict[str, Any]:
    """The program at the median measured speed-up (the lower middle of an even count)."""
    mid = sorted(ok, key=lambda r: r["measured_speedup"])[(len(ok) - 1) // 2]
    return {k: mid.get(k) for k in ("program", "predicted_speedup", "measured_speedup", "prediction_error")}


def _pearson(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return round(statistics.correlation(xs, ys), 3)


def plot(rows: list[dict[str, Any]], summ: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in rows if r.get("status") == "ok" and r.get("predicted_speedup")]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(14, 6.5))
    if ok:
        xs = [r["measured_speedup"] for r in ok] + [r.get("measured_speedup_own_params") or 1.0 for r in ok]
        ys = [r["predicted_speedup"] for r in ok] + [r.get("predicted_speedup_own_params") or 1.0 for r in ok]
        colors = ["tab:blue" if r["source"] == "example" else "tab:orange" for r in ok]
        ax.scatter(xs[:len(ok)], ys[:len(ok)], c=colors, s=28, zorder=3)
        own = [r for r in ok if r.get("predicted_speedup_own_params") and r.get("measured_speedup_own_params")]
        ax.scatter([r["measured_speedup_own_params"] for r in own], [r["predicted_speedup_own_params"] for r in own],
                   facecolors="none", edgecolors="grey", s=28, zorder=2, label="own parameters (hollow)")
        outside = sorted((r for r in ok if abs(r.get("prediction_error") or 0) > 0.25),
                         key=lambda r: r["measured_speedup"])
        for k, r in enumerate(outside):  # only the misses are named (the rest are in the CSV)
            ax.annotate(r["program"], (r["measured_speedup"], r["predicted_speedup"]), fontsize=7,
                        xytext=(4, -10 if k % 2 else 3), textcoords="offset points")
        lo = min(min(xs), min(ys), 1.0) / 1.5
        hi = max(max(xs), max(ys)) * 1.5
        grid = [lo, hi]
        ax.plot(grid, grid, "k-", lw=0.8, label="prediction = measurement")
        ax.fill_between(grid, [g / 1.25 for g in grid], [g * 1.25 for g in grid], color="green", alpha=0.12,
                        label="within 25%")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.scatter([], [], c="tab:blue", label="example")
        ax.scatter([], [], c="tab:orange", label="kernel suite")
        ax.legend(fontsize=8, loc="upper left")
    ax.set_xlabel("measured speed-up: encrypted time before / after optimization")
    ax.set_ylabel("predicted speed-up: model cost before / after")
    ax.set_title(f"predicted vs measured speed-up ({summ.get('programs', 0)} programs; named: outside 25%)\n"
                 f"equal parameters (filled): median |error| {summ.get('median_abs_prediction_error')}, "
                 f"{summ.get('within_25_percent')} within 25%, Pearson(log) {summ.get('pearson_log_speedup')}\n"
                 f"own parameters (hollow): median |error| {summ.get('median_abs_prediction_error_own_params')}, "
                 f"{summ.get('within_25_percent_own_params')} within 25%", fontsize=9)
    for w, marker in (("before", "o"), ("after", "^")):
        pts = [(r[f"cost_{w}"], r[f"time_{w}_s"]) for r in ok if r[f"cost_{w}"] > 0]
        if pts:
            bx.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, s=28,
                       label=f"{w} optimization")
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xlabel("model cost (cost-table units)")
    bx.set_ylabel("measured encrypted evaluation, CPU s (same parameters per pair)")
    bx.set_title(f"model cost vs measured time, Pearson(log) {summ.get('pearson_log_cost_vs_time')}",
                 fontsize=10)
    bx.legend(fontsize=8)
    bx.grid(True, which="both", alpha=0.25)
    ax.grid(True, which="both", alpha=0.25)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The CSV back, with numbers as numbers and empty cells dropped."""
    out = []
    with path.open() as fh:
        for raw in csv.DictReader(fh):
            row: dict[str, Any] = {}
            for k, v in raw.items():
                if v == "":
                    continue
                try:
                    row[k] = float(v)
                except ValueError:
                    row[k] = v
            out.append(row)
    return out


def repredict(out: Path, costs: Any) -> list[dict[str, Any]]:
    """The last run's rows with the model costs (and so the predictions) of its saved
    programs under ``costs``; the measured columns are kept as they were."""
    rows = read_rows(out / "cost_vs_time.csv")
    for row in rows:
        if row.get("status") != "ok":
            continue
        d = out / PROGRAMS
        cb = program_cost(parse_mlir((d / f"{row['program']}.before.mlir").read_text())[0], costs)
        ca = program_cost(parse_mlir((d / f"{row['program']}.after.mlir").read_text())[0], costs)
        row.pop("predicted_speedup_own_params", None)
        row.pop("prediction_error_own_params", None)
        row |= {"cost_before": cb, "cost_after": ca}
        if ca > 0:
            row["predicted_speedup"] = round(cb / ca, 3)
        own_params_prediction(row)
    return rows


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="only programs whose name contains this")
    ap.add_argument("--max-ops", type=int, default=400, help="skip originals with more ciphertext ops")
    ap.add_argument("--costs", type=Path, default=None, help="a cost table JSON (default: the built-in table)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    ap.add_argument("--reps", type=int, default=3, help="timed evaluations per program (the median is kept)")
    ap.add_argument("--time-limit", type=float, default=20.0, help="saturation time limit per program, s")
    ap.add_argument("--out", type=Path, default=OUT, help="directory for the CSV, PNG and summary")
    ap.add_argument("--replot", action="store_true", help="redraw the PNG and summary from <out>/cost_vs_time.csv")
    ap.add_argument("--repredict", type=Path, default=None, metavar="TABLE.json",
                    help="price the programs timed by the last run (<out>/cost_vs_time_programs) with this "
                         "cost table and print its summary (<out>/cost_vs_time_summary_<name>.json); "
                         "nothing is optimized or timed again")
    args = ap.parse_args(argv)
    if args.repredict:
        rows = repredict(args.out, table("bgv", load_overrides(args.repredict)))
        summ = summary(rows)
        (args.out / f"cost_vs_time_summary_{args.repredict.stem}.json").write_text(json.dumps(summ, indent=2) + "\n")
        print(json.dumps(summ))
        return rows
    if args.replot:
        rows = read_rows(args.out / "cost_vs_time.csv")
        summ = summary(rows)
        (args.out / "cost_vs_time_summary.json").write_text(json.dumps(summ, indent=2) + "\n")
        plot(rows, summ, args.out / "cost_vs_time.png")
        print(json.dumps(summ))
        return rows
    costs = load_overrides(args.costs) if args.costs else None
    rows = []
    for name, source, path in programs(args.only):
        row = measure(name, source, path, costs, args.max_ops, args.seed, args.time_limit, args.reps, args.out)
        print(f"{name:36s} cost {row.get('cost_before', '-')!s:>7} -> {row.get('cost_after', '-')!s:>6}  "
              f"time {row.get('time_before_s', '-')!s:>8} -> {row.get('time_after_s', '-')!s:>8} s  "
              f"pred {row.get('predicted_speedup', '-')!s:>7} meas {row.get('measured_speedup', '-')!s:>7}  "
              f"{row['status'][:70]}", flush=True)
        rows.append(row)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "cost_vs_time.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    summ = summary(rows)
    (args.out / "cost_vs_time_summary.json").write_text(json.dumps(summ, indent=2) + "\n")
    plot(rows, summ, args.out / "cost_vs_time.png")
    print(json.dumps(summ))
    return rows


if __name__ == "__main__":
    main()
