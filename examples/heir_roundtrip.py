"""HEIR round trip: heir-opt's front half -> eqsat optimize -> heir-opt --mlir-to-bgv -> OpenFHE C++.

In: an MLIR kernel in HEIR's input form (default ``examples/dot_product_8.mlir``), ``--out``
(a folder, default ``heir_roundtrip_out``), ``--scheme bgv|ckks``.  Needs heir-py
(``pip install -e '.[heir]'``), which ships ``heir-opt`` and ``heir-translate``; without it
the script says so in one line and exits 0.

Steps, each written to ``--out``:

1. ``1_front.mlir``: ``heir-opt --secretize --wrap-generic --canonicalize --cse`` (every
   argument secret, the body in one ``secret.generic``: HEIR's usual front half);
2. ``2_eqsat.mlir``: eqsat reads that, optimizes (rotations, multiplications) and prints it
   back in HEIR's dialects.  Its management ops are left out here (``--keep-eqsat-mgmt``
   keeps them): HEIR's ``--mlir-to-bgv`` places its own relinearizations and modulus
   switches for the parameters it picks, and keeping eqsat's as well relinearizes twice;
3. ``3_openfhe.mlir``: ``heir-opt --annotate-module="backend=openfhe scheme=bgv"
   --mlir-to-bgv --scheme-to-openfhe`` (``ckks`` for ``--scheme ckks``), HEIR's pipeline
   for its OpenFHE examples;
4. ``4_kernel.cpp`` / ``4_kernel.h``: ``heir-translate --emit-openfhe-pke`` and
   ``--emit-openfhe-pke-header``, C++ against OpenFHE's API.

It prints one line per step with the rotations and ct x ct multiplications in that step's
output.  Run: ``python examples/heir_roundtrip.py [KERNEL.mlir] [--out DIR] [--scheme bgv]``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from eqsat.frontend.mlir import parse_mlir, print_mlir
from eqsat.ir import op_counts
from eqsat.mgmt import strip_mgmt
from eqsat.pipeline import optimize
from eqsat.testing.heir import find_heir_opt, find_heir_translate

HERE = Path(__file__).resolve().parent
FRONT = ["--secretize", "--wrap-generic", "--canonicalize", "--cse"]


def back_half(scheme: str) -> list[str]:
    return [f"--annotate-module=backend=openfhe scheme={scheme}", f"--mlir-to-{scheme}", "--scheme-to-openfhe"]


def run(cmd: list[str], stdin: str) -> str:
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        err = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:300])
        raise SystemExit(f"heir_roundtrip: {Path(cmd[0]).name} failed: {err}")
    return proc.stdout


def count(text: str, pattern: str) -> int:
    return len(re.findall(pattern, text))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernel", nargs="?", type=Path, default=HERE / "dot_product_8.mlir",
                    help="MLIR kernel in HEIR's input form (default: examples/dot_product_8.mlir)")
    ap.add_argument("--out", type=Path, default=Path("heir_roundtrip_out"), help="folder for the four outputs")
    ap.add_argument("--scheme", choices=("bgv", "ckks"), default="bgv", help="HEIR scheme for the back half")
    ap.add_argument("--keep-eqsat-mgmt", action="store_true",
                    help="keep eqsat's relinearize/modreduce ops in step 2 (HEIR adds its own too)")
    args = ap.parse_args(argv)
    heir_opt, heir_translate = find_heir_opt(), find_heir_translate()
    if heir_opt is None or heir_translate is None:
        print("heir_roundtrip: heir-opt/heir-translate not found (pip install -e '.[heir]'); nothing to do")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)

    front = run([str(heir_opt), *FRONT], args.kernel.read_text())
    (args.out / "1_front.mlir").write_text(front)
    print(f"1 heir-opt front half: {count(front, r'tensor.extract ')} tensor.extract, "
          f"{count(front, r'arith.mul[if] ')} muls (in loops as written)")

    prog = parse_mlir(front, str(args.out / "1_front.mlir"))[0]
    res = optimize(prog, scheme=args.scheme)
    out_prog = res.program if args.keep_eqsat_mgmt else strip_mgmt(res.program)
    middle = print_mlir(out_prog)
    (args.out / "2_eqsat.mlir").write_text(middle)
    ops = op_counts(out_prog)
    print(f"2 eqsat optimize: {ops.get('rotate', 0)} rotations, {ops.get('mul', 0)} ct x ct muls, "
          f"{ops.get('extract', 0) + ops.get('insert', 0)} slot accesses")

    lowered = run([str(heir_opt), *back_half(args.scheme)], middle)
    (args.out / "3_openfhe.mlir").write_text(lowered)
    print(f"3 heir-opt --mlir-to-{args.scheme} --scheme-to-openfhe: {count(lowered, r'openfhe.rot ')} openfhe.rot, "
          f"{count(lowered, r'openfhe.mul_no_relin |openfhe.mul ')} ct x ct muls, "
          f"{count(lowered, r'openfhe.relin')} relinearizations")

    cpp = run([str(heir_translate), "--emit-openfhe-pke"], lowered)
    header = run([str(heir_translate), "--emit-openfhe-pke-header"], lowered)
    (args.out / "4_kernel.cpp").write_text(cpp)
    (args.out / "4_kernel.h").write_text(header)
    rotations, mults = count(cpp, r"EvalRotate\("), count(cpp, r"EvalMult(NoRelin)?\(ct\w*, ct")
    print(f"4 heir-translate --emit-openfhe-pke: {args.out / '4_kernel.cpp'} ({len(cpp.splitlines())} lines), "
          f"{rotations} EvalRotate, {mults} ct x ct EvalMult")
    return 0


if __name__ == "__main__":
    sys.exit(main())
