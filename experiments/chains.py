"""Experiment: optimal addition-subtraction chain lengths against binary and NAF.

In: ``--limit N`` (constants 1 <= c < N, default 1024), ``--out DIR`` (default
experiments/out), ``--brute-limit M`` (brute-force cross-check for c < M, default 128).
Out: ``DIR/chains.csv`` with columns c, optimal_len, brute_force_len (blank when
c >= M), binary_len, naf_len, time_s (search time of ``optimal_chain``, first call), and
``DIR/chains.png``: the lengths against c (brute force as hollow circles), how many
constants binary/NAF chains pay k ops above optimal, and the search time.  Prints a summary.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from eqsat.algebra.chains import binary_chain, brute_force_length, naf_chain, optimal_chain


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--limit", type=int, default=1024, help="plan every constant 1 <= c < LIMIT")
    parser.add_argument("--brute-limit", type=int, default=128,
                        help="cross-check the optimal length by brute force for c < BRUTE_LIMIT")
    parser.add_argument("--out", type=Path, default=Path("experiments/out"),
                        help="directory for chains.csv and chains.png")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    optimal_chain(3)  # load the compiled search kernel outside the timings
    rows: list[dict[str, object]] = []
    total = 0.0
    for c in range(1, args.limit):
        start = time.perf_counter()
        chain = optimal_chain(c)
        elapsed = time.perf_counter() - start
        total += elapsed
        brute = brute_force_length(c) if c < args.brute_limit else ""
        rows.append({
            "c": c,
            "optimal_len": chain.length,
            "brute_force_len": brute,
            "binary_len": binary_chain(c).length,
            "naf_len": naf_chain(c).length,
            "time_s": f"{elapsed:.6f}",
        })

    with open(args.out / "chains.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    cs = [int(str(r["c"])) for r in rows]
    opt = [int(str(r["optimal_len"])) for r in rows]
    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(9, 10))
    # Lengths: optimal as the bottom line, binary and NAF as dots above it, the brute-force
    # cross-check as hollow circles (on the optimal line wherever the search is right).
    ax1.plot(cs, opt, "-", color="tab:green", lw=1, label="optimal (our search)", zorder=1)
    ax1.plot(cs, [int(str(r["binary_len"])) for r in rows], ".", color="tab:blue", markersize=2,
             label="binary", zorder=2)
    ax1.plot(cs, [int(str(r["naf_len"])) for r in rows], ".", color="tab:orange", markersize=2,
             label="NAF", zorder=3)
    checked = [(c, int(str(r["brute_force_len"]))) for c, r in zip(cs, rows, strict=True) if r["brute_force_len"] != ""]
    if checked:
        ax1.plot([c for c, _ in checked], [n for _, n in checked], "o", markerfacecolor="none", color="black",
                 markersize=4, label=f"brute force (c < {args.brute_limit})", zorder=4)
    ax1.set_xlabel("constant c")
    ax1.set_ylabel("chain length (ciphertext ops)")
    ax1.legend(fontsize=8)
    # What optimal saves: how many constants need k more ops with binary / NAF than optimal.
    extra_bin = [int(str(r["binary_len"])) - o for r, o in zip(rows, opt, strict=True)]
    extra_naf = [int(str(r["naf_len"])) - o for r, o in zip(rows, opt, strict=True)]
    ks = list(range(max(extra_bin + extra_naf) + 1))
    ax2.bar([k - 0.2 for k in ks], [extra_bin.count(k) for k in ks], width=0.4, color="tab:blue", label="binary")
    ax2.bar([k + 0.2 for k in ks], [extra_naf.count(k) for k in ks], width=0.4, color="tab:orange", label="NAF")
    ax2.set_xticks(ks)
    ax2.set_xlabel("ops above the optimal chain")
    ax2.set_ylabel("constants")
    ax2.legend(fontsize=8)
    ax3.semilogy(cs, [max(float(str(r["time_s"])), 1e-7) for r in rows], ".", markersize=2, color="tab:green")
    ax3.set_xlabel("constant c")
    ax3.set_ylabel("optimal search time [s]")
    fig.suptitle(f"Addition-subtraction chains, 1 <= c < {args.limit}")
    fig.tight_layout()
    fig.savefig(args.out / "chains.png", dpi=120)
    plt.close(fig)

    worst = max(rows, key=lambda r: int(str(r["optimal_len"])))
    saved = sum(int(str(r["naf_len"])) - int(str(r["optimal_len"])) for r in rows)
    print(f"c < {args.limit}: optimal search total {total:.3f} s, max optimal length "
          f"{worst['optimal_len']} (c = {worst['c']}), ops saved vs NAF {saved}")
    print(f"wrote {args.out / 'chains.csv'} and {args.out / 'chains.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
