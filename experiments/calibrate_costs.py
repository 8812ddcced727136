"""Calibrate the BGV/CKKS cost tables from our own executor's measured op latencies.

In: ``--n`` (ring dimension, default 8192), ``--reps`` (timed runs per op, default 9),
``--out DIR`` (default ``experiments/out``), ``--install`` (also overwrite the shipped
tables in ``eqsat/models/cost_tables``, which the optimizer reads by default),
``--csv`` (default ``DIR/calibrate_costs.csv``).  Out: ``DIR/bgv.json`` and ``DIR/ckks.json``
(read by ``eqsat.models.cost``: ``{"scheme", "N", "levels", "unit", "costs": {op: relative
latency, add = 1}, "measured_us": {op: median microseconds}, "not_measured": [...]}``)
and a CSV with one row per scheme and op.

What is timed (``eqsat.backend``, the executor's own evaluator calls, at the top level
of a chain as long as 128-bit security allows at N, one thread, median of ``reps`` runs
after a warm-up): add, sub, neg, add_plain and mul_plain (the plaintext row is encoded
the first time and then reused from the executor's per-key-set cache, as in a program
run), mul (tensor product, no relinearization), relinearize, rotate (by 1, not hoisted),
modswitch (BGV) / rescale (CKKS; a CKKS ``modswitch`` drops a limb without dividing and
is timed as such), and the hoisting term: 8 rotations of one ciphertext (by 1, 2, ...,
128) unhoisted and hoisted, as ``bench_backend.py`` times them; a further rotation of an
already-rotated ciphertext costs (hoisted - unhoisted/8)/7, and ``rotate_hoisted`` is
that fraction of the single ``rotate``. ``extract`` and ``insert`` are priced as the lowering realizes them:
a rotation plus a mask multiplication (plus an addition for insert). Bootstrapping is
only simulated by the executor (decrypt and encrypt again), so
``bootstrap``/``reduce_noise`` keep the in-code defaults and are listed under
``not_measured``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from eqsat.backend.bgv import BGV
from eqsat.backend.ckks import CKKS
from eqsat.backend.params import make_params
from eqsat.models.cost import DEFAULTS, TERMS

ROOT = Path(__file__).resolve().parent.parent
INSTALLED = ROOT / "eqsat" / "models" / "cost_tables"
sys.path.insert(0, str(Path(__file__).resolve().parent))
# the benchmark's own timing and level choice, so both scripts measure the same way
from bench_backend import ROT_STEPS, _rotations, levels_for  # noqa: E402
from bench_backend import timeit as median_us  # noqa: E402

NOT_MEASURED = ("bootstrap", "reduce_noise")
#: rotations of one ciphertext in the hoisting measurement
ROTS = len(ROT_STEPS)


def time_bgv(n: int, reps: int) -> tuple[dict[str, float], int]:
    levels = max(1, levels_for(n, "bgv"))  # modswitch needs a prime to drop
    ev = BGV(make_params("bgv", n, levels, insecure=True))  # timing only: small N may be below 128 bits
    rng = np.random.default_rng(0)
    row = [int(v) for v in rng.integers(0, ev.params.t, n // 2)]
    mask = [1 if i < 4 else 0 for i in range(n // 2)]
    a, b = ev.encrypt(row), ev.encrypt(row)
    prod = ev.mul(a, b)
    modswitch = median_us(lambda: ev.modswitch(a.fresh()), reps)
    return {**_common_ops(ev, a, b, prod, row, mask, reps), "modswitch": modswitch}, levels


def time_ckks(n: int, reps: int) -> tuple[dict[str, float], int]:
    levels = max(1, levels_for(n, "ckks"))
    ev = CKKS(make_params("ckks", n, levels, insecure=True))  # timing only: small N may be below 128 bits
    rng = np.random.default_rng(0)
    row = [float(v) for v in rng.uniform(-1, 1, n // 2)]
    mask = [1.0 if i < 4 else 0.0 for i in range(n // 2)]
    a, b = ev.encrypt(row), ev.encrypt(row)
    prod = ev.mul(a, b)
    rel = ev.relinearize(prod)
    return {
        **_common_ops(ev, a, b, prod, row, mask, reps),
        "rescale": median_us(lambda: ev.rescale(rel.fresh()), reps),
        "modswitch": median_us(lambda: ev.drop_to(a.fresh(), a.level), reps),
    }, levels


def _common_ops(ev: Any, a: Any, b: Any, prod: Any, row: list[Any], mask: list[Any], reps: int) -> dict[str, float]:
    """Median microseconds of the ops both schemes have, on ``fresh()`` copies of ``a``,
    ``b`` (nothing an earlier call cached is reused: no polynomial form, no hoisted
    decomposition).  Plaintexts come from the evaluator's cache, as in a program run, where
    each distinct mask or weight is encoded once per key set."""
    return {
        "add": median_us(lambda: ev.add(a.fresh(), b.fresh()), reps),
        "sub": median_us(lambda: ev.sub(a.fresh(), b.fresh()), reps),
        "neg": median_us(lambda: ev.neg(a.fresh()), reps),
        "add_plain": median_us(lambda: ev.add_plain(a.fresh(), row), reps),
        "mul_plain": median_us(lambda: ev.mul_plain(a.fresh(), row), reps),
        "mask": median_us(lambda: ev.mul_plain(a.fresh(), mask), reps),
        "mul": median_us(lambda: ev.mul(a.fresh(), b.fresh()), reps),
        "relinearize": median_us(lambda: ev.relinearize(prod.fresh()), reps),
        "rotate": median_us(lambda: ev.rotate(a.fresh(), 1), reps),
        # the hoisting term: the same rotations of one ciphertext, each decomposing its
        # input afresh and all sharing one decomposition
        "rotate_8_unhoisted": median_us(_rotations(ev, a, hoisted=False), reps),
        "rotate_8_hoisted": median_us(_rotations(ev, a, hoisted=True), reps),
    }


def table_from(us: dict[str, float], scheme: str) -> dict[str, float]:
    """Relative costs (add = 1) for the whole vocabulary; unmeasured ops keep their defaults."""
    unit = us["add"]
    rel = {op: round(t / unit, 2) for op, t in us.items() if op in TERMS}
    if "rotate_8_hoisted" in us:
        rel["rotate_hoisted"] = round(us["rotate"] * hoisted_fraction(us) / unit, 2)
    rel["extract"] = round((us["rotate"] + us["mask"]) / unit, 2)
    rel["insert"] = round((us["rotate"] + us["mask"] + us["add"]) / unit, 2)
    if scheme == "bgv":
        rel["rescale"] = rel["modswitch"]  # BGV has no rescale; the same prime drop
    out = dict(DEFAULTS[scheme])
    out.update(rel)
    return out


def hoisted_fraction(us: dict[str, float]) -> float:
    """A further rotation of an already-rotated ciphertext over a first one: of
    ``ROTS`` rotations of one ciphertext, the hoisted run pays one full rotation and
    ``ROTS - 1`` increments (capped at 1: hoisting never costs more)."""
    per = us["rotate_8_unhoisted"] / ROTS
    inc = (us["rotate_8_hoisted"] - per) / (ROTS - 1)
    return min(1.0, max(0.0, inc / per))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--n", type=int, default=8192, help="ring dimension N of the timed operations")
    ap.add_argument("--reps", type=int, default=9, help="repetitions per operation (the median is kept)")
    ap.add_argument("--out", type=Path, default=ROOT / "experiments" / "out", help="directory for the measured tables")
    ap.add_argument("--install", action="store_true", help="also overwrite eqsat/models/cost_tables/*.json")
    ap.add_argument("--csv", type=Path, default=None, help="also write the raw timings to this CSV")
    args = ap.parse_args(argv)
    if args.csv is None:
        args.csv = args.out / "calibrate_costs.csv"
    args.out.mkdir(parents=True, exist_ok=True)
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, object]] = []
    for scheme, fn in (("bgv", time_bgv), ("ckks", time_ckks)):
        us, levels = fn(args.n, args.reps)
        costs = table_from(us, scheme)
        doc = {
            "scheme": scheme, "N": args.n, "levels": levels, "unit": "relative latency, add = 1",
            "source": "experiments/calibrate_costs.py (eqsat.backend, one thread, median)",
            "costs": costs, "measured_us": {k: round(v, 1) for k, v in us.items()},
            "not_measured": list(NOT_MEASURED),
        }
        text = json.dumps(doc, indent=2, sort_keys=True) + "\n"
        (args.out / f"{scheme}.json").write_text(text)
        if args.install:
            (INSTALLED / f"{scheme}.json").write_text(text)
        for op, c in sorted(costs.items()):
            rows.append({"scheme": scheme, "N": args.n, "op": op, "relative": c,
                         "measured_us": round(us[op], 1) if op in us else "",
                         "default": DEFAULTS[scheme][op]})
        print(f"{scheme}: " + ", ".join(f"{op} {c:g}" for op, c in sorted(costs.items())))
    with args.csv.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {args.out / 'bgv.json'}, {args.out / 'ckks.json'} and {args.csv}")
    if args.install:
        print(f"installed both tables in {INSTALLED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
