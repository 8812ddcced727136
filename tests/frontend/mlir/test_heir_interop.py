"""HEIR reads what eqsat prints: every optimized program of ``examples/`` and
``tests/heir_cases/`` passes ``heir-opt --verify-each`` and parses back in eqsat.

Skipped without heir-opt (``pip install -e '.[heir]'``).  Programs in the ``noisy`` dialect
(the noisy-arithmetic article's, which HEIR does not have) and inputs eqsat's frontend
rejects are skipped with that reason; every other file must pass.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from mlir_testutil import EXAMPLES, ROOT

from eqsat.frontend.mlir import MLIRError, parse_mlir, print_mlir
from eqsat.ir import op_counts
from eqsat.pipeline import optimize
from eqsat.testing.heir import find_heir_opt

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
