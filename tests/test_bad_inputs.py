"""Every bad input of issue 13's list: a clear one-line error with exit 2, or a correct result."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from eqsat.cli import main

ROOT = Path(__file__).resolve().parent.parent
POW8 = ROOT / "examples" / "pow8.mlir"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err.strip()


def one_error(err: str, where: str, text: str) -> None:
    lines = [ln for ln in err.splitlines() if "HiGHS" not in ln and "THIRD_PARTY" not in ln]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{where}:") and ": error: " in lines[0] and text in lines[0], lines[0]


@pytest.mark.parametrize(("target", "text"), [
    ("missing/out.mlir", "No such file or directory"),
    (".", "Is a directory"),
])
def test_output_path_errors(capsys, tmp_path: Path, target: str, text: str) -> None:  # type: ignore[no-untyped-def]
    out = str(tmp_path / target)
    code, _, err = run(capsys, "optimize", str(POW8), "-o", out)
    assert code == 2
    one_error(err, out, text)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can write anything")
def test_output_unwritable_file(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "ro.mlir"
    out.write_text("")
    out.chmod(0o444)
    code, _, err = run(capsys, "optimize", str(POW8), "-o", str(out))
    assert code == 2
    one_error(err, str(out), "Permission denied")


def test_sixty_chained_squarings(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lines = ["func.func @sq(%x: tensor<8xi16>) -> tensor<8xi16> {"]
    prev = "%x"
    for i in range(60):
        lines.append(f"  %v{i} = arith.muli {prev}, {prev} : tensor<8xi16>")
        prev = f"%v{i}"
    lines += [f"  return {prev} : tensor<8xi16>", "}"]
    src = tmp_path / "sq.mlir"
    src.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "optimize", str(src), "--json")
    assert code == 0, err  # the analysis saturates instead of overflowing
    assert json.loads(out.strip().splitlines()[-1])["after"]["noise"]["legal"]


def test_huge_tensor_is_refused_early(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "huge.mlir"
    src.write_text("func.func @h(%x: tensor<1000000000xi32>) -> tensor<1000000000xi32> {\n"
                   "  %0 = arith.muli %x, %x : tensor<1000000000xi32>\n"
                   "  return %0 : tensor<1000000000xi32>\n}\n")
    code, _, err = run(capsys, "optimize", str(src))
    assert code == 2
    one_error(err, str(src), "1000000000 elements")
    assert "GiB" in err


def test_utf8_bom_is_accepted(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "bom.mlir"
    src.write_bytes(b"\xef\xbb\xbf" + POW8.read_bytes())
    code, out, err = run(capsys, "optimize", str(src))
    assert code == 0, err
    assert "func.func @" in out


@pytest.mark.parametrize(("flag", "value"), [
    ("--time-limit", "-1"), ("--time-limit", "nan"), ("--node-limit", "-5"), ("--iteration-limit", "-3"),
])
def test_bad_limits(capsys, flag: str, value: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "optimize", str(POW8), f"{flag}={value}")
    assert code == 2
    one_error(err, str(POW8), f"{flag} must be a positive number")


def test_infinite_mul_cost_on_a_program_needing_a_product(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    costs = tmp_path / "c.json"
    costs.write_text('{"mul": Infinity}')
    code, _, err = run(capsys, "optimize", str(POW8), "--costs", str(costs))
    assert code == 2
    one_error(err, str(POW8), "priced Infinity")
    assert "bug" not in err


def test_run_float_program_under_bgv(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "f.mlir"
    src.write_text("func.func @f(%x: f32) -> f32 {\n  %0 = arith.mulf %x, %x : f32\n  return %0 : f32\n}\n")
    code, _, err = run(capsys, "run", str(src), "--scheme", "bgv")
    assert code == 2
    one_error(err, str(src), "float program cannot run under BGV")


def test_optimize_reads_standard_input(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(POW8.read_bytes())))
    code, out, err = run(capsys, "optimize", "-")
    assert code == 0, err
    assert "func.func @pow8" in out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"func.func @")))
    code, _, err = run(capsys, "optimize", "-")
    assert code == 2
    assert err.splitlines()[-1].startswith("<stdin>:")
