"""Experiment: optimal addition-subtraction chain lengths against binary and NAF.

In: ``--limit N`` (constants 1 <= c < N, default 1024), ``--out DIR`` (default
experiments/out), ``--brute-limit M`` (brute-force cross-check for c < M, default 128).
Out: ``DIR/chains.csv`` with columns c, optimal_len, brute_force_len (blank when
c >= M), binary_len, naf_len, time_s (search time of ``optimal_chain``, first call), and
``DIR/chains.png`` plotting the lengths and the search time against c.  Prints a summary.
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1024)
    parser.add_argument("--brute-limit", type=int, default=128)
    parser.add_argument("--out", type=Path, default=Path("experiments/out"))
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
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    for key, label in (("binary_len", "binary"), ("naf_len", "NAF"), ("optimal_len", "optimal")):
        ax1.plot(cs, [int(str(r[key])) for r in rows], ".", markersize=2, label=label)
    ax1.set_ylabel("chain length (ciphertext ops)")
    ax1.legend()
    ax2.semilogy(cs, [max(float(str(r["time_s"])), 1e-7) for r in rows], ".", markersize=2)
    ax2.set_xlabel("constant c")
    ax2.set_ylabel("search time [s]")
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
