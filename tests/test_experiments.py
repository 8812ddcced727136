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


def test_calibrate_costs_tiny_writes_under_out_not_the_shipped_tables(tmp_path: Path) -> None:
    shipped = ROOT / "eqsat" / "models" / "cost_tables" / "bgv.json"
    before = shipped.read_text()
    assert load("calibrate_costs").main(["--n", "1024", "--reps", "1", "--out", str(tmp_path)]) == 0
    assert shipped.read_text() == before
    for scheme in ("bgv", "ckks"):
        assert (tmp_path / f"{scheme}.json").stat().st_size > 0
    with open(tmp_path / "calibrate_costs.csv") as f:
        assert {r["scheme"] for r in csv.DictReader(f)} == {"bgv", "ckks"}

def test_linalg_bench_tiny(tmp_path: Path) -> None:
    rows = load("linalg_bench").main(["--sizes", "4", "--encrypted-max", "4", "--out", str(tmp_path)])
    assert rows[0]["rotations"] <= 3 and rows[0]["match"] is True
    with open(tmp_path / "linalg_bench.csv") as f:
        assert len(list(csv.DictReader(f))) == 1
    assert (tmp_path / "linalg_bench.png").stat().st_size > 0


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
    # every way of running eqsat has its column, the headline one (warm) is eqsat_s
    assert all(r["eqsat_mode"] == "warm" and r["eqsat_s"] == r["eqsat_warm_s"] for r in rows)
    assert all(float(r["eqsat_batch_s"]) > 0 and float(r["eqsat_cold_s"]) > 0 for r in rows)
    with open(tmp_path / "vs_heir.csv") as f:
        assert len(list(csv.DictReader(f))) == 2
    assert (tmp_path / "vs_heir.png").stat().st_size > 0


def test_heir_cases_tiny_writes_csv_and_png(tmp_path: Path) -> None:
    import importlib
    import sys

    sys.path.insert(0, str(ROOT))  # the case runs in a spawned child, which imports the script by name
    mod = importlib.import_module("experiments.heir_cases")
    out = tmp_path / "heir_cases.csv"
    assert mod.main(["--only", "rr_simple_sum_8", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["case"] for r in rows] == ["rr_simple_sum_8"]
    assert int(rows[0]["rotate_after"]) <= int(rows[0]["heir_rotations"])
    assert out.with_suffix(".png").stat().st_size > 0


def test_profile_rules_tiny_writes_csv_and_png(tmp_path: Path) -> None:
    rows = load("profile_rules").main(["--kernel", "sum:16", "--iterations", "3", "--out", str(tmp_path)])
    assert rows and {int(str(r["iteration"])) for r in rows} <= {1, 2, 3}
    assert (tmp_path / "profile_rules.csv").stat().st_size > 0
    assert (tmp_path / "profile_rules.png").stat().st_size > 0
    # the rules' times come from the report's text: on this small e-graph egglog's per-rule
    # timedeltas are all 0, and every rule read 0.00 s
    matched = [r for r in rows if int(str(r["matches"])) > 0]
    assert matched and sum(float(str(r["rule_seconds"])) for r in rows) > 0


def test_profile_rules_reads_durations_with_units() -> None:
    text = ('IterationReport { rule_set_report: RuleSetReport { changed: true, rule_reports: {"lin-lift": '
            '[RuleReport { plan: None, search_and_apply_time: 5.5µs, num_matches: 3 }, RuleReport { plan: None, '
            'search_and_apply_time: 2ms, num_matches: 0 }], "slots-add": [RuleReport { plan: None, '
            'search_and_apply_time: 700ns, num_matches: 1 }]} } }')

    from types import SimpleNamespace

    got = load("profile_rules").rule_seconds(SimpleNamespace(iterations=[text, text]))
    assert set(got) == {"lin-lift", "analysis:slots-add"}
    assert abs(got["lin-lift"] - 2 * (5.5e-6 + 2e-3)) < 1e-12 and abs(got["analysis:slots-add"] - 1.4e-6) < 1e-15


def test_every_script_option_has_help_text() -> None:
    """`--help` of every experiment explains each option (issue 18: no bare options)."""
    import ast

    bare = []
    for path in sorted((ROOT / "experiments").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "add_argument" and not any(k.arg == "help" for k in node.keywords)):
                bare.append(f"{path.name}:{node.lineno}")
    assert not bare, f"options without help text: {bare}"

def test_cost_vs_time_tiny(tmp_path: Path) -> None:
    rows = load("cost_vs_time").main(["--only", "sum_8", "--reps", "1", "--out", str(tmp_path)])
    assert [r["program"] for r in rows] == ["sum_8"]
    r = rows[0]
    assert r["status"] == "ok" and r["match_before"] and r["match_after"]
    assert r["predicted_speedup"] == round(r["cost_before"] / r["cost_after"], 3) > 1
    assert r["time_before_s"] > 0 and r["time_after_s"] > 0
    with open(tmp_path / "cost_vs_time.csv") as f:
        assert len(list(csv.DictReader(f))) == 1
    assert (tmp_path / "cost_vs_time.png").stat().st_size > 0
    again = load("cost_vs_time").main(["--replot", "--out", str(tmp_path)])
    assert again[0]["program"] == "sum_8"


def test_bench_backend_plot_skips_an_absent_openfhe_panel(tmp_path: Path) -> None:
    bench = load("bench_backend")
    rows = [{"N": 8192, "ours": "BGV", "op": op, "ratio": 1.2, "ratio_openfhe": None} for op in bench.CORE]
    bench.plot(rows, tmp_path / "b.png", "openfhe unavailable: test")
    import matplotlib.image

    height = matplotlib.image.imread(tmp_path / "b.png").shape[0]
    rows[0]["ratio_openfhe"] = 0.9
    bench.plot(rows, tmp_path / "c.png", "")
    assert matplotlib.image.imread(tmp_path / "c.png").shape[0] > 1.5 * height  # a second panel only with data

def test_linalg_mlir_tiny(tmp_path: Path) -> None:
    rows = load("linalg_mlir").main(["--only", "matvec_8x4", "--encrypted", "--out", str(tmp_path)])
    assert rows[0]["rotations"] <= rows[0]["heir_rotations"] and rows[0]["match"] is True
    with open(tmp_path / "linalg_mlir.csv") as f:
        assert len(list(csv.DictReader(f))) == 1
    assert (tmp_path / "linalg_mlir.png").stat().st_size > 0


def test_stage_times_tiny_writes_csv_and_png(tmp_path: Path) -> None:
    rows = load("stage_times").main([str(ROOT / "examples/sum_8.mlir"), "--repeats", "1", "--out", str(tmp_path),
                                     "--out-name", "t"])
    assert [r["kernel"] for r in rows] == ["sum_8"] and int(rows[0]["rotations"]) == 3
    assert float(rows[0]["saturate"]) > 0 and rows[0]["stop_reason"] == "saturated"
    assert (tmp_path / "t.csv").stat().st_size > 0 and (tmp_path / "t.png").stat().st_size > 0


def test_printer_speed_tiny_writes_csv_and_png(tmp_path: Path) -> None:
    rows = load("printer_speed").main(["--kernels", "sum_8", "--repeats", "2", "--out", str(tmp_path)])
    assert {(r["program"], r["printer"]) for r in rows} == {
        (p, q) for p in ("source", "optimized") for q in ("xdsl", "text")}
    assert all(r["same"] and r["median_cpu_s"] > 0 for r in rows)
    assert (tmp_path / "printer_speed.csv").exists() and (tmp_path / "printer_speed.png").stat().st_size > 0


def test_vs_heir_counts_the_function_that_evaluates() -> None:
    """HEIR's ``--mlir-to-bgv`` output splits a kernel with constants into ``@k__preprocessing``
    (encodes them), ``@k__preprocessed`` (role ``server.evaluate``: the ciphertext ops) and
    ``@k`` (calls the two), then client helpers: the evaluating function's ops count."""
    mod = load("vs_heir")
    text = """
  func.func @k__preprocessing() -> !st attributes {heir.interface = {roles = ["server.preprocessing"]}} {
    %pt = lwe.rlwe_encode %cst : tensor<1024xi16> -> !pt
    return %0 : !preprocessing.storage<!pt>
  }
  func.func @k__preprocessed(%a: !ct, %b: !st) -> !ct attributes {heir.interface = {roles = ["server.evaluate"]}} {
    %ct = bgv.mul_plain %x, %pt : (!ct_L2, !pt) -> !ct_L2
    %ct_2 = bgv.mul %ct, %x : (!ct_L2, !ct_L2) -> !ct_L2_D3
    %ct_3 = bgv.relinearize %ct_2 <from_basis = [0, 1, 2], to_basis = [0, 1]> : !ct_L2_D3 -> !ct_L2
    %ct_4 = bgv.rotate_cols %ct_3 {offset = 1 : index} : !ct_L2
    return %ct_4 : tensor<1x!ct_L2_D3>
  }
  func.func @k(%arg0: tensor<1x!ct_L2>) -> tensor<1x!ct_L2_D3> attributes {heir.interface = {roles = ["entry"]}} {
    %0 = call @k__preprocessed(%arg0, %1) : (tensor<1x!ct_L2>, !preprocessing.storage<!pt>) -> tensor<1x!ct_L2_D3>
    return %0 : tensor<1x!ct_L2_D3>
  }
  func.func @k__decrypt__result0(%a: !ct, %sk: !sk) -> i16 attributes {heir.interface = {roles = ["client.decrypt"]}} {
    %ct_9 = bgv.mul %arg0, %arg0 : (!ct_L2, !ct_L2) -> !ct_L2_D3
    return %0 : i16
  }
"""
    c = mod.count_heir(text)
    assert (c.muls, c.relins, c.rotations) == (1, 1, 1)
    # without roles: the first function only (HEIR's vectorizer output)
    plain = text.replace("heir.interface", "other")
    assert mod.count_heir(plain).muls == 0


def test_vs_heir_hands_heir_its_current_secret_generic_syntax() -> None:
    mod = load("vs_heir")
    old = ("%0 = secret.generic ins(%arg0, %arg1 : !secret.secret<tensor<8xi16>>, !secret.secret<memref<2x2xi16, "
           "affine_map<(d0, d1) -> (d1, d0)>>>) {\n  ^bb0(%a: tensor<8xi16>):\n")
    new = mod.current_secret_syntax(old)
    assert new.startswith("%0 = secret.generic(%arg0: !secret.secret<tensor<8xi16>>, %arg1: "
                          "!secret.secret<memref<2x2xi16, affine_map<(d0, d1) -> (d1, d0)>>>) {\n")
    assert mod.current_secret_syntax(new) == new  # the current form is left alone
    for bad in ("secret.generic ins(%a, %b : i16) {", "secret.generic ins(%a : i16 {"):
        assert mod.current_secret_syntax(bad) == bad  # malformed: left for HEIR to report
    arrow = "secret.generic ins(%m, %n : memref<2xi16, affine_map<(d0) -> (d0)>, 1>, i16) {"
    assert mod.current_secret_syntax(arrow) == ("secret.generic(%m: memref<2xi16, affine_map<(d0) -> (d0)>, 1>, "
                                                "%n: i16) {")


def test_vs_heir_table_of_a_run() -> None:
    mod = load("vs_heir")
    rows = [
        {"kernel": "a", "eqsat_warm_s": "0.1", "eqsat_batch_s": "0.05", "eqsat_cold_s": "0.5", "heir_status": "ok",
         "heir_s": "0.05", "eqsat_rotations": "3", "heir_rotations": "3", "eqsat_moves": "3", "heir_moves": "4"},
        {"kernel": "b", "eqsat_warm_s": "0.4", "eqsat_batch_s": "", "eqsat_cold_s": "0.9",
         "heir_status": "failed: x", "eqsat_rotations": "2", "eqsat_moves": "2"},
    ]
    lines = mod.markdown_table(rows).splitlines()
    assert lines[0].startswith("| kernel | eqsat warm")
    assert lines[2] == "| b | 0.40 |  | 0.90 | fails |  |  | 2 / - | 2 / - |"  # slowest first
    assert lines[3] == "| a | 0.10 | 0.05 | 0.50 | 0.05 | 2.0 | 1.0 | 3 / 3 | 3 / 4 |"


def test_stage_times_baseline_tree_reads_its_own_rules(tmp_path: Path) -> None:
    """A baseline tree (``git archive`` layout: ``rules/`` beside ``eqsat/``) imports its own
    ``eqsat.rules``, not the installed checkout's."""
    import subprocess
    import sys

    st = load("stage_times")
    (tmp_path / "eqsat").mkdir()
    (tmp_path / "eqsat" / "__init__.py").write_text("")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "__init__.py").write_text("MARK = 'baseline'\n")
    st.link_subpackages(tmp_path)
    out = subprocess.run([sys.executable, "-c", "import eqsat.rules as r; print(r.MARK)"], cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "baseline"


def test_extraction_phases_tiny_writes_csv_and_png(tmp_path: Path) -> None:
    models = tmp_path / "models"
    load("extraction_ilp").dump([ROOT / "examples" / "dot_product_8.mlir"], models)
    rows = load("extraction_phases").main(["--models", str(models), "--repeats", "1", "--out", str(tmp_path)])
    assert [r[0] for r in rows] == ["dot_product_8"]
    _, total, greedy, lp, mip, rest, solver, _ = rows[0]
    assert total > 0 and min(greedy, lp, mip) >= 0 and abs(total - greedy - lp - mip - rest) < 1e-6
    assert solver in ("bound", "bnb", "lp", "highs")
    assert (tmp_path / "extraction_phases.csv").stat().st_size > 0
    assert (tmp_path / "extraction_phases.png").stat().st_size > 0


def test_extraction_phases_leaves_highspy_as_it_found_it(tmp_path: Path) -> None:
    import highspy

    run = highspy.Highs.run
    load("extraction_phases").main(["--models", str(tmp_path / "none"), "--repeats", "1", "--out", str(tmp_path)])
    assert highspy.Highs.run is run


def test_load_times_tiny_writes_csv_and_png(tmp_path: Path) -> None:
    rows = load("load_times").main([str(ROOT / "examples" / "sum_8.mlir"), "--repeats", "1", "--warmup", "0",
                                    "--out", str(tmp_path)])
    assert [r["tree"] for r in rows] == ["new"] and rows[0]["total_ms"] > 0 and rows[0]["ld_iterations"] > 0
    with open(tmp_path / "load_times.csv") as f:
        assert len(list(csv.DictReader(f))) == 1
    assert (tmp_path / "load_times.png").stat().st_size > 0
