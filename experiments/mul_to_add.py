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


def plot(rows: list[tuple], mism: list[int], c_max: int, brute_max: int, out: Path) -> None:  # type: ignore[type-arg]
    """Lengths (found, NAF), ops above the exact optimum, and optimize time against c."""
    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(10, 9), sharex=True,
                                        gridspec_kw={"height_ratios": [3, 2, 2]})
    cs = [r[0] for r in rows]
    ax1.plot(cs, [r[4] for r in rows], ".", ms=2, color="0.65", label="NAF (baseline)")
    ax1.plot(cs, [r[1] for r in rows], ".", ms=2, color="tab:orange", label="found (e-graph extraction)")
    ax1.set_ylabel("chain length (ct ops)")
    ax1.set_ylim(bottom=0)
    ax1.legend(loc="lower right")
    ax1.set_title(f"x*c for c = 2..{c_max}: found = optimal for {len(rows) - len(mism)} of {len(rows)} "
                  f"constants (brute force confirms the optimum up to c = {brute_max})", fontsize=10)
    # how far above the exact optimum each method lands: the found chain should stay at 0
    ax2.plot(cs, [r[4] - r[2] for r in rows], ".", ms=2, color="0.65", label="NAF - optimal")
    ax2.plot(cs, [r[1] - r[2] for r in rows], ".", ms=3, color="tab:orange", label="found - optimal")
    ax2.axvspan(2, min(brute_max, c_max), color="tab:green", alpha=0.08,
                label="optimum also checked by brute force")
    ax2.set_ylabel("ops above optimal")
    ax2.set_ylim(bottom=-0.5)
    ax2.legend(loc="upper left", fontsize=8)
    ax3.plot(cs, [r[5] for r in rows], ".", ms=2)
    ax3.set_xlabel("c")
    ax3.set_ylabel("optimize time (s)")
    ax3.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(out / "mul_to_add.png", dpi=120)
    plt.close(fig)


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
    found_length(3)  # untimed warm-up: the first optimize pays egglog's and the cache's start-up
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
    plot(rows, mism, args.max, args.brute_max, out)


if __name__ == "__main__":
    main()
