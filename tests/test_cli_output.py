"""The CLI as a script sees it: stdout is exactly the result (one JSON document or MLIR),
the report names its scheme, extraction and stage timings, the scheme is read from the
input, no program comes back costlier than it went in, and the small conveniences
(--version, inline --costs, explain --json, batch --out-dir, run --optimize) work."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from eqsat.cli import main

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"
BIG = {"box_blur_64x64.mlir", "hamming_distance_1024.mlir"}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("mode", ["ilp", "greedy"])
def test_json_stdout_is_exactly_one_document(mode: str) -> None:
    """A separate process, so that output written by C libraries (HiGHS' banner) is seen."""
    p = subprocess.run(
        [sys.executable, "-m", "eqsat.cli", "optimize", str(EX / "sum_8.mlir"), "--json", "--extraction", mode],
        capture_output=True, text=True, check=True, cwd=ROOT)
    doc, end = json.JSONDecoder().raw_decode(p.stdout)
    assert p.stdout[end:].strip() == ""
    assert doc["extraction"] == mode
    assert doc["scheme"] == "bgv"
    assert {"parse", "load", "saturate", "extract", "place", "verify"} <= set(doc["timings"])
    assert all(isinstance(v, float) and v >= 0 for v in doc["timings"].values())


@pytest.mark.parametrize("name", [
    pytest.param(p.name, marks=pytest.mark.slow) if p.name in BIG else p.name for p in sorted(EX.glob("*.mlir"))
])
def test_never_costlier_than_the_input(capfd, name: str) -> None:  # type: ignore[no-untyped-def]
    """capfd sees file-descriptor output too (C libraries, the forked e-graph worker), so this
    also checks that stdout of --json is exactly one document for every example."""
    code = main(["optimize", str(EX / name), "--json", "--quiet"])
    out, _ = capfd.readouterr()
    assert code == 0
    r, end = json.JSONDecoder().raw_decode(out)
    assert out[end:].strip() == "", out[end:end + 200]
    assert r["after"]["noise"]["legal"]
    if r["before"]["noise"]["legal"]:  # an input that breaks the noise budget has no cost to beat
        assert r["after"]["cost"] <= r["before"]["cost"], (name, r["scheme"])
    assert r["scheme"] == ("noisy" if name.startswith("noisy") else "bgv")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "greedy", "ilp"])
def test_json_pipe_for_every_example_and_extraction_mode(mode: str) -> None:
    """`eqsat optimize X --json | python3 -m json.tool` for every example under every
    extraction mode, in a real pipe (the batch form pays start-up once per mode)."""
    for path in sorted(EX.glob("*.mlir")):
        p = subprocess.run(
            f"{sys.executable} -m eqsat.cli optimize {path} --json --extraction {mode} --quiet"
            f" | {sys.executable} -m json.tool",
            shell=True, capture_output=True, text=True, cwd=ROOT)
        assert p.returncode == 0, (path.name, p.stderr[-500:])
        doc = json.loads(p.stdout)
        if doc["extraction"] == "none":  # the time limit ended the run while loading (a loaded machine)
            assert doc["stop_stage"] == "load", path.name
        elif mode == "greedy":  # the flag is honoured in every scheme
            assert doc["extraction"] == "greedy", path.name
        else:
            assert doc["extraction"] in ("greedy", "ilp", "ilp-noisy", "ilp-levels", "plan"), path.name


def test_scheme_mismatch_is_refused(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli(capsys, "optimize", str(EX / "noisy_branching.mlir"), "--scheme", "bgv")
    assert code == 2 and out == ""
    assert "noisy dialect" in err and "--scheme noisy" in err and len(err.strip().splitlines()) == 1


def test_scalar_program_under_noisy_scheme(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_cli(capsys, "optimize", str(EX / "pow8.mlir"), "--scheme", "noisy")
    assert code == 0 and "noisy.reduce_noise" in out
    code, out, err = run_cli(capsys, "optimize", str(EX / "sum_8.mlir"), "--scheme", "noisy")
    assert code == 2 and "secret tensors" in err


def test_version_inline_costs_and_explain_json(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("eqsat ")
    code, out, _ = run_cli(capsys, "optimize", str(EX / "sum_8.mlir"), "--json", "--costs", '{"rotate": 1000}')
    assert code == 0 and json.loads(out)["after"]["ops"].get("rotate", 0) == 0
    code, out, err = run_cli(capsys, "optimize", str(EX / "sum_8.mlir"), "--costs", '{"rotate": ')
    assert code == 2 and "--costs" in err
    code, out, _ = run_cli(capsys, "explain", str(EX / "sum_8.mlir"), "--json")
    doc = json.loads(out)
    assert code == 0 and "rules_fired" in doc and "func.func" in doc["program"]


def test_help_shows_defaults_and_explain_has_its_own(capsys) -> None:  # type: ignore[no-untyped-def]
    from eqsat.cli import build_parser

    ap = build_parser()
    sub = ap._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    opt, expl = sub["optimize"].format_help(), sub["explain"].format_help()
    assert "(default: auto)" in opt and "--out-dir" in opt
    assert "--out-dir" not in expl and "rules_fired" in expl


def test_batch_out_dir(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    a, b = str(EX / "sum_8.mlir"), str(EX / "pow8.mlir")
    code, out, _ = run_cli(capsys, "optimize", a, b, "--out-dir", str(tmp_path), "--json", "--quiet")
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {a, b}
    assert (tmp_path / "sum_8.mlir").read_text().startswith("func.func")
    assert json.loads((tmp_path / "pow8.json").read_text())["after"]["depth"] == 3
    code, out, err = run_cli(capsys, "optimize", a, b)
    assert code == 2 and "--out-dir" in err


def test_run_optimize_and_readable_noise(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_cli(capsys, "run", str(EX / "sum_8.mlir"), "--optimize", "--seed", "1")
    assert code == 0
    assert "OPTIMIZED" in out and "budget" in out and "{" not in out.split("noise:")[1].splitlines()[0]
    code, out, _ = run_cli(capsys, "run", str(EX / "sum_8.mlir"), "--json")
    assert code == 0 and json.loads(out)["program"] == "input"
    bad = tmp_path / "in.json"
    bad.write_text(json.dumps({"y": [1] * 8}))
    code, out, err = run_cli(capsys, "run", str(EX / "sum_8.mlir"), "--inputs", str(bad))
    assert code == 2 and "unknown input name(s): y" in err


def test_ckks_noise_line_names_the_ciphertext_error_beside_the_output_error() -> None:
    from eqsat.cli import noise_line

    noise = {"measured_bits": -10.9, "predicted_bits": -7.9, "model": "average", "ciphertext_error_bits": -9.3,
             "models": {"average": {"predicted_ciphertext_bits_per_output": [-7.7, None]}}}
    line = noise_line("ckks", noise)
    assert "2^-10.9" in line and "over all slots of the ciphertext 2^-9.3, predicted 2^-7.7" in line
    del noise["ciphertext_error_bits"]
    assert "over all slots" not in noise_line("ckks", noise)
