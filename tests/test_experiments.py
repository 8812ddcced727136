"""Every experiment script runs at a tiny size and writes its CSV and PNG."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, ROOT / "experiments" / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_scaling_tiny(tmp_path: Path) -> None:
    rows = load("scaling").main(["--sum-sizes", "8,16", "--blur-widths", "4", "--repeats", "1", "--out", str(tmp_path)])
    assert [r["rotations_after"] for r in rows[:2]] == [3, 4]
    with open(tmp_path / "scaling.csv") as f:
        assert len(list(csv.DictReader(f))) == 3
    assert (tmp_path / "scaling.png").stat().st_size > 0


def test_layouts_tiny(tmp_path: Path) -> None:
    rows = load("layouts").main(["--only", "conv_4x2", "--out", str(tmp_path)])
    assert rows[0]["rotate"] == 1 and rows[0]["mul"] == 1 and rows[0]["match"]
    with open(tmp_path / "layouts.csv") as f:
        assert len(list(csv.DictReader(f))) == 1
    assert (tmp_path / "layouts.png").stat().st_size > 0


def test_kernel_suite_tiny(tmp_path: Path) -> None:
    rows = load("kernel_suite").main(["--tiny", "--style", "unrolled", "--seeds", "1", "--out", str(tmp_path)])
    assert [r["kernel"] for r in rows] == ["chehab_lin_reg_8", "heco_hamming_distance_4"]
    assert all(r["status"] == "ok" and r["equivalent"] is True for r in rows)
    with open(tmp_path / "kernel_suite.csv") as f:
        assert len(list(csv.DictReader(f))) == 2
    assert (tmp_path / "kernel_suite.png").stat().st_size > 0
