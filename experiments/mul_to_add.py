"""Benchmark: addition-subtraction chains found through the e-graph, c = 2 .. 1023.

In: nothing (``--max C`` and ``--brute-max B`` optional).  Out: a table on stdout and
``experiments/out/mul_to_add.csv`` + ``mul_to_add.png``.  For every c: the number of
ciphertext additions/subtractions extracted for ``x * c`` under a cost table where
``mul_plain`` is dear (``found``), the shortest chain length by ``eqsat.algebra.chains``'
exact search (``optimal``), the length by the independent brute force
(``brute``, for c <= B: it is exponential), the NAF baseline, and the optimize time.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from eqsat.algebra.chains import brute_force_length, naf_chain, optimal_chain
from eqsat.ir import Builder, Type
from eqsat.pipeline import optimize

OUT = Path(__file__).resolve().parent / "out"


def found_length(c: int) -> tuple[int, float]:
    b = Builder("m")
    x = b.arg("x", Type((), "i32", True))
    prog = b.finish([b.mul(x, b.const(c, Type((), "i32", False)))])
    t = time.perf_counter()
    res = optimize(prog, "bgv", costs={"mul_plain": 100}, rules=["mul-to-add"])
    ops = res.report["after"]["ops"]
    return ops.get("add", 0) + ops.get("sub", 0) + ops.get("neg", 0), time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--max", type=int, default=1023, help="largest constant c of x*c to plan")
    ap.add_argument("--brute-max", type=int, default=300,
                    help="largest constant whose optimal chain is also found by brute force")
    ap.add_argument("--out", type=Path, default=OUT, help="directory for mul_to_add.csv and mul_to_add.png")
    args = ap.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    print(f"{'c':>5} {'found':>5} {'optimal':>7} {'brute':>5} {'naf':>4} {'time_s':>7}")
    for c in range(2, args.max + 1):
        found, secs = found_length(c)
        opt = optimal_chain(c).length
        brute = brute_force_length(c) if c <= args.brute_max else ""
        naf = naf_chain(c).length
        rows.append((c, found, opt, brute, naf, round(secs, 4)))
        print(f"{c:>5} {found:>5} {opt:>7} {brute!s:>5} {naf:>4} {secs:>7.3f}")
    with (out / "mul_to_add.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(("c", "found", "optimal", "brute_force", "naf", "time_s"))
        w.writerows(rows)
    mism = [r[0] for r in rows if r[1] != r[2] or (r[3] != "" and r[3] != r[2])]
    print(f"constants: {len(rows)}, mismatches: {mism or 'none'}, "
          f"total time {sum(r[5] for r in rows):.1f} s")
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    cs = [r[0] for r in rows]
    ax1.plot(cs, [r[4] for r in rows], ".", ms=2, color="0.7", label="NAF")
    ax1.plot(cs, [r[2] for r in rows], "-", lw=0.8, label="optimal (exact search)")
    ax1.plot(cs, [r[1] for r in rows], ".", ms=2, label="found (e-graph extraction)")
    ax1.set_ylabel("chain length (ct ops)")
    ax1.legend()
    ax2.plot(cs, [r[5] for r in rows], ".", ms=2)
    ax2.set_xlabel("c")
    ax2.set_ylabel("optimize time (s)")
    fig.tight_layout()
    fig.savefig(out / "mul_to_add.png", dpi=120)


if __name__ == "__main__":
    main()
