"""Cost tables: the calibrated BGV/CKKS files, their fallback, and the calibration arithmetic."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from eqsat.models import cost

ROOT = Path(__file__).resolve().parents[2]


def load_calibrate() -> ModuleType:
    path = ROOT / "experiments" / "calibrate_costs.py"
    spec = importlib.util.spec_from_file_location("_exp_calibrate", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
def test_calibrated_files_are_complete(scheme: str) -> None:
    doc = json.loads((cost.CALIBRATED_DIR / f"{scheme}.json").read_text())
    assert doc["scheme"] == scheme and doc["N"] == 8192
    table = cost.calibrated(scheme)
    assert table is not None and set(table) == set(cost.VOCABULARY)
    assert table["add"] == 1.0
    # measured, not copied: the relative costs are the measured latencies over add's
    us = doc["measured_us"]
    assert table["rotate"] == pytest.approx(us["rotate"] / us["add"], rel=0.01)
    # key switching dominates additions in any RLWE implementation
    assert table["rotate"] > 10 * table["add"] and table["relinearize"] > 10 * table["add"]
    for op in doc["not_measured"]:
        assert table[op] == cost.DEFAULTS[scheme][op]


def test_table_uses_calibration_only_on_request(tmp_path: Path) -> None:
    plain = cost.table("bgv")
    assert dict(plain.costs) == {k: float(v) for k, v in cost.DEFAULTS["bgv"].items()}
    cal = cost.table("bgv", calibrated_costs=True)
    assert dict(cal.costs) == cost.calibrated("bgv")
    assert cost.table("bgv", {"rotate": 7}, calibrated_costs=True)["rotate"] == 7.0  # overrides win
    assert cost.calibrated("bgv", tmp_path) is None  # missing file
    (tmp_path / "bgv.json").write_text('{"scheme": "bgv", "costs": {"add": "fast"}}')
    assert cost.calibrated("bgv", tmp_path) is None  # malformed: the caller falls back to DEFAULTS


def test_costs_option_accepts_a_calibration_file() -> None:
    over = cost.load_overrides(cost.CALIBRATED_DIR / "ckks.json")
    assert cost.table("ckks", over)["rescale"] == cost.calibrated("ckks")["rescale"]  # type: ignore[index]


def test_calibration_arithmetic() -> None:
    mod = load_calibrate()
    us = {"add": 50.0, "sub": 50.0, "neg": 25.0, "add_plain": 100.0, "mul_plain": 400.0, "mask": 400.0,
          "mul": 2000.0, "relinearize": 5000.0, "rotate": 6000.0, "modswitch": 200.0}
    t = mod.table_from(us, "bgv")
    assert (t["add"], t["neg"], t["mul"], t["rotate"]) == (1.0, 0.5, 40.0, 120.0)
    assert t["extract"] == 128.0 and t["insert"] == 129.0  # rotation + mask (+ add)
    assert t["rescale"] == t["modswitch"] == 4.0
    assert t["bootstrap"] == cost.DEFAULTS["bgv"]["bootstrap"]
