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


def test_vs_heir_tiny(tmp_path: Path) -> None:
    import pytest

    mod = load("vs_heir")
    if mod.find_heir_opt() is None:
        pytest.skip("heir-opt not installed (pip install -e '.[heir]')")
    rows = mod.main(["--only", "rr_simple_sum_8,pow8", "--repeats", "1", "--out", str(tmp_path)])
    by = {r["kernel"]: r for r in rows}
    assert set(by) == {"rr_simple_sum_8", "pow8"}
    assert by["rr_simple_sum_8"]["heir_pipeline"] == "vectorizer" and by["pow8"]["heir_pipeline"] == "mlir-to-bgv"
    assert by["rr_simple_sum_8"]["heir_rotations"] == 3 and by["rr_simple_sum_8"]["eqsat_rotations"] == 3
    assert by["pow8"]["heir_muls"] == 3 and by["pow8"]["eqsat_muls"] == 3 and by["pow8"]["heir_relins"] >= 1
    assert all(float(r["time_ratio"]) > 0 for r in rows)
    with open(tmp_path / "vs_heir.csv") as f:
        assert len(list(csv.DictReader(f))) == 2
    assert (tmp_path / "vs_heir.png").stat().st_size > 0
