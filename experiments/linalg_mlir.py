"""Benchmark: the tensor programs written in linalg MLIR, optimized, beside HEIR's rotation counts.

In: ``--only`` (comma-separated kernel names, default all), ``--encrypted`` (also run each
optimized program under BGV through its layouts), ``--matvec-sizes`` (square ``linalg.matvec``
files of these n, weights as one ``arith.constant dense`` literal: 4096 is a 67 MB literal),
``--out``.  Kernels: every ``examples/linalg_*.mlir``, rectangular ``linalg.matvec`` 8x4 / 4x8
and the square matvecs written here.  Out: ``linalg_mlir.csv`` (kernel, rotations before and
after, HEIR's rotations where it publishes one, plaintext and ciphertext products, depth,
result layout, parse seconds -- text to IR, lowering included --, compile seconds, encrypted
match) and ``linalg_mlir.png`` (rotations per kernel, ours beside HEIR's).  Times are one run
on a shared machine.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HEIR = {"linalg_matvec_16x16": 7, "linalg_conv2d_5x5": 13, "matvec_8x4": 5, "matvec_4x8": 4,
        **{f"matvec_{n}x{n}": r for n, r in {4: 3, 100: 19, 256: 31, 512: 45, 1024: 63, 4096: 127}.items()}}


def rect_matvec(r: int, c: int) -> str:
    w = np.random.default_rng(r * c).integers(-3, 4, size=(r, c))
    rows = ", ".join("[" + ", ".join(str(int(v)) for v in row) + "]" for row in w)
    return f"""func.func @matvec_{r}x{c}(%x: tensor<{c}xi16>) -> tensor<{r}xi16> {{
  %w = arith.constant dense<[{rows}]> : tensor<{r}x{c}xi16>
  %z = arith.constant dense<0> : tensor<{r}xi16>
  %y = linalg.matvec ins(%w, %x : tensor<{r}x{c}xi16>, tensor<{c}xi16>) outs(%z : tensor<{r}xi16>) -> tensor<{r}xi16>
  return %y : tensor<{r}xi16>
}}
"""


def kernels(matvec_sizes: tuple[int, ...] = ()) -> dict[str, str]:
    out = {p.stem: p.read_text() for p in sorted((ROOT / "examples").glob("linalg_*.mlir"))}
    out["matvec_8x4"] = rect_matvec(8, 4)
    out["matvec_4x8"] = rect_matvec(4, 8)
    for n in matvec_sizes:
        out[f"matvec_{n}x{n}"] = rect_matvec(n, n)
    return out


def bench(name: str, text: str, encrypted: bool) -> dict[str, object]:
    from eqsat.backend import run_program
    from eqsat.frontend.mlir import parse_mlir
    from eqsat.interp import random_inputs
    from eqsat.ir import multiplicative_depth, op_counts
    from eqsat.pipeline import optimize

    tp = time.perf_counter()
    prog = parse_mlir(text, f"{name}.mlir")[0]
    parse_s = time.perf_counter() - tp
    t0 = time.perf_counter()
    res = optimize(prog, "bgv")
    compile_s = time.perf_counter() - t0
    before, after = op_counts(prog), op_counts(res.program)
    lays = prog.meta.get("layouts")
    result_layout = lays["results"][0]["name"] if isinstance(lays, dict) else "row-major"
    row: dict[str, object] = {
        "kernel": name, "rotations_before": before.get("rotate", 0), "rotations": after.get("rotate", 0),
        "heir_rotations": HEIR.get(name, ""), "mul_plain": after.get("mul_plain", 0), "mul": after.get("mul", 0),
        "depth": multiplicative_depth(res.program), "result_layout": result_layout,
        "parse_s": round(parse_s, 3), "compile_s": round(compile_s, 3), "match": "",
    }
    if encrypted:
        inputs = random_inputs(prog, 1)
        enc = run_program(res.program, inputs, "bgv", insecure=True, seed=7)
        row["match"] = bool(enc["match"])
    return row


def plot(rows: list[dict[str, object]], path: Path) -> None:
    """Rotations per kernel: as written, after eqsat, and HEIR's published count ("n/a" where its
    tests state none); the result layout under each kernel name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.8))
    xs = np.arange(len(rows))
    w = 0.27
    before = ax.bar(xs - w, [int(str(r["rotations_before"])) for r in rows], w, color="0.7",
                    label="as written (before)")
    ours = ax.bar(xs, [int(str(r["rotations"])) for r in rows], w, color="tab:blue", label="eqsat")
    heir = [int(str(r["heir_rotations"])) if r["heir_rotations"] != "" else 0 for r in rows]
    theirs = ax.bar(xs + w, heir, w, color="tab:orange", label="HEIR (its lit tests)")
    for bars in (before, ours):
        ax.bar_label(bars, fontsize=7, padding=1)
    heir_text = [str(h) if r["heir_rotations"] != "" else "n/a" for h, r in zip(heir, rows, strict=True)]
    ax.bar_label(theirs, labels=heir_text, fontsize=7, padding=1)
    ax.set_xticks(xs, [f"{str(r['kernel']).removeprefix('linalg_')}\n({r['result_layout']} result)" for r in rows],
                  fontsize=7)
    ax.set_ylabel("rotations")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", default="", help="run only kernels whose name contains this")
    ap.add_argument("--encrypted", action="store_true", help="also run each kernel encrypted (BGV) and check the match")
    ap.add_argument("--matvec-sizes", default="", help="also square linalg.matvec files of these n (e.g. 256,4096)")
    ap.add_argument("--out", default="experiments/out", help="directory for linalg_mlir.csv and linalg_mlir.png")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wanted = [s for s in args.only.split(",") if s]
    sizes = tuple(int(s) for s in args.matvec_sizes.split(",") if s)
    rows = [bench(k, t, args.encrypted) for k, t in kernels(sizes).items() if not wanted or any(w in k for w in wanted)]
    with open(out / "linalg_mlir.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    plot(rows, out / "linalg_mlir.png")
    for r in rows:
        print(r)
    return rows


if __name__ == "__main__":
    main()
