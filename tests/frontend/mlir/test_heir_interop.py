"""HEIR reads what eqsat prints: every optimized program of ``examples/`` and
``tests/heir_cases/`` passes ``heir-opt --verify-each`` and parses back in eqsat.

Skipped without heir-opt (``pip install -e '.[heir]'``).  Programs in the ``noisy`` dialect
(the noisy-arithmetic article's, which HEIR does not have) and inputs eqsat's frontend
rejects are skipped with that reason; every other file must pass.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from mlir_testutil import EXAMPLES, ROOT

from eqsat.frontend.mlir import MLIRError, parse_mlir, print_mlir
from eqsat.ir import op_counts
from eqsat.pipeline import optimize
from eqsat.testing.heir import find_heir_opt, find_heir_translate

HEIR_OPT = find_heir_opt()
CASES = ROOT / "tests" / "heir_cases"
LARGE = {"box_blur_64x64"}  # 2 MB of MLIR, ~10 s to optimize: in the slow run
FILES = sorted(EXAMPLES.glob("*.mlir")) + sorted(CASES.glob("*.mlir"))

pytestmark = pytest.mark.skipif(HEIR_OPT is None, reason="heir-opt not installed (pip install -e '.[heir]')")


def heir_verify(text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "printed.mlir"
    path.write_text(text)
    return subprocess.run([str(HEIR_OPT), "--verify-each", str(path)], capture_output=True, text=True, timeout=120)


def check(path: Path, tmp_path: Path) -> None:
    text = path.read_text()
    if "noisy." in text:
        pytest.skip("noisy dialect: the article's, HEIR has no such dialect")
    try:
        prog = parse_mlir(text, str(path))[0]
    except MLIRError as exc:
        pytest.skip(f"eqsat's frontend rejects the input: {exc}")
    printed = print_mlir(optimize(prog, scheme="bgv").program)
    proc = heir_verify(printed, tmp_path)
    assert proc.returncode == 0, f"heir-opt rejects eqsat's output for {path.name}:\n{proc.stderr[:2000]}"
    assert "mgmt.modswitch" not in printed and "mgmt.rescale" not in printed
    (again,) = parse_mlir(printed, "printed.mlir")  # eqsat still reads its own output
    assert print_mlir(again) == printed


@pytest.mark.parametrize("path", [p for p in FILES if p.stem not in LARGE], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_heir_reads_printed_program(path: Path, tmp_path: Path) -> None:
    check(path, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in FILES if p.stem in LARGE], ids=lambda p: p.stem)
def test_heir_reads_printed_program_large(path: Path, tmp_path: Path) -> None:
    check(path, tmp_path)


def test_modreduce_round_trips_by_element_type(tmp_path: Path) -> None:
    """A BGV modswitch (integers) and a CKKS rescale (floats) both print as HEIR's
    ``mgmt.modreduce``, which HEIR reads and eqsat reads back as the op it was."""
    from eqsat.ir import Builder, Type

    b = Builder("mr", style="secret")
    x = b.arg("x", Type((4,), "i16", True))
    y = b.arg("y", Type((4,), "f32", True))
    xm = b.unary("modswitch", b.unary("relinearize", b.mul(x, x)))
    ym = b.unary("rescale", b.unary("relinearize", b.mul(y, y)))
    prog = b.finish([xm, ym])
    text = print_mlir(prog)
    assert text.count("mgmt.modreduce") == 2
    assert heir_verify(text, tmp_path).returncode == 0
    (again,) = parse_mlir(text, "printed.mlir")
    assert op_counts(again) == op_counts(prog)


@pytest.mark.skipif(find_heir_translate() is None, reason="heir-translate not installed")
def test_heir_round_trip_example(tmp_path: Path) -> None:
    """examples/heir_roundtrip.py: HEIR's front half -> eqsat -> --mlir-to-bgv -> OpenFHE C++,
    with eqsat's three rotations and one ct x ct multiplication surviving to the C++."""
    proc = subprocess.run([sys.executable, str(EXAMPLES / "heir_roundtrip.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = {"1_front.mlir", "2_eqsat.mlir", "3_openfhe.mlir", "4_kernel.cpp", "4_kernel.h"}
    assert names <= {p.name for p in tmp_path.iterdir()}
    assert "secret.generic" in (tmp_path / "1_front.mlir").read_text()
    middle = (tmp_path / "2_eqsat.mlir").read_text()
    assert middle.count("tensor_ext.rotate") == 3 and "affine.for" not in middle
    cpp = (tmp_path / "4_kernel.cpp").read_text()
    assert cpp.count("EvalRotate(") == 3
    assert len(re.findall(r"EvalMult(NoRelin)?\(ct\w*, ct", cpp)) == 1  # ct x ct (EvalMult(ct, pt) is a mask)
    assert "#include \"openfhe/pke/openfhe.h\"" in cpp
