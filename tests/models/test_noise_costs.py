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
    assert table is not None and set(table) == set(cost.TERMS)
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


def test_hoisting_term_from_measurement() -> None:
    mod = load_calibrate()
    # 8 rotations: 80 us unhoisted (10 each), 45 hoisted = 10 + 7 x 5: a further one costs half
    us = {"add": 1.0, "sub": 1.0, "neg": 1.0, "add_plain": 1.0, "mul_plain": 1.0, "mask": 1.0, "mul": 1.0,
          "relinearize": 1.0, "rotate": 12.0, "modswitch": 1.0, "rotate_8_unhoisted": 80.0,
          "rotate_8_hoisted": 45.0}
    assert mod.hoisted_fraction(us) == 0.5
    t = mod.table_from(us, "bgv")
    assert t["rotate_hoisted"] == 6.0 and "rotate_8_hoisted" not in t
    assert cost.table("bgv", t).hoisted_saving == 6.0
    assert cost.table("noisy").hoisted_saving == 0.0


def test_param_scale_grows_with_ring_and_primes() -> None:
    assert cost.param_scale(16384, 3) == 2 * cost.param_scale(8192, 3)
    assert cost.param_scale(8192, 4) > 2 * cost.param_scale(8192, 2)
