"""The CLI and the Python API: report format, errors, limits, and agreement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import eqsat
from eqsat.cli import main
from eqsat.interp import evaluate, random_inputs, results_equal

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"
BAD = ROOT / "tests" / "frontend" / "mlir" / "bad"
VOCAB = {"add", "sub", "neg", "mul", "mul_plain", "add_plain", "rotate", "relinearize", "modswitch", "rescale",
         "reduce_noise", "bootstrap", "extract", "insert"}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def check_report(r: dict) -> None:  # type: ignore[type-arg]
    assert set(r) >= {"before", "after", "stop_reason", "egraph", "time_s", "extraction"}
    for side in ("before", "after"):
        assert set(r[side]) >= {"ops", "depth", "cost", "noise"}
        assert set(r[side]["ops"]) <= VOCAB
        assert all(isinstance(v, int) and v > 0 for v in r[side]["ops"].values())
        assert isinstance(r[side]["depth"], int)
        assert "legal" in r[side]["noise"]
    assert r["stop_reason"] in {"saturated", "iteration_limit", "node_limit", "time_limit"}
    assert set(r["egraph"]) >= {"nodes", "classes", "iterations"}  # DESIGN: keys are only added


@pytest.mark.parametrize(("name", "scheme"), [
    ("noisy_squarings.mlir", "noisy"), ("noisy_branching.mlir", "noisy"), ("sum_8.mlir", "bgv"),
    ("sum_loop.mlir", "bgv"), ("secret_generic_sum.mlir", "bgv"), ("dot_product_8.mlir", "ckks"),
])
def test_optimize_json_report_and_roundtrip(capsys, tmp_path, name: str, scheme: str) -> None:  # type: ignore[no-untyped-def]
    out_file = tmp_path / "out.mlir"
    code, out, err = run_cli(capsys, "optimize", str(EX / name), "--scheme", scheme, "--json", "-o", str(out_file))
    assert code == 0, err
    check_report(json.loads(out))
    original = eqsat.parse_mlir((EX / name).read_text())[0]
    optimized = eqsat.parse_mlir(out_file.read_text(), str(out_file))[0]  # the output parses again
    for seed in range(2):
        inputs = random_inputs(original, seed, bound=6)
        assert results_equal(evaluate(original, inputs, 65537), evaluate(optimized, inputs, 65537), 65537)


def test_noisy_article_counts(capsys) -> None:  # type: ignore[no-untyped-def]
    _, out, _ = run_cli(capsys, "optimize", str(EX / "noisy_squarings.mlir"), "--scheme", "noisy", "--json")
    assert json.loads(out)["after"]["ops"].get("reduce_noise") == 3
    _, out, _ = run_cli(capsys, "optimize", str(EX / "noisy_branching.mlir"), "--scheme", "noisy", "--json")
    assert json.loads(out)["after"]["ops"].get("reduce_noise") == 1


@pytest.mark.parametrize("bad", sorted(p.name for p in BAD.iterdir()))
def test_bad_input_is_one_located_line_exit_2(capsys, bad: str) -> None:  # type: ignore[no-untyped-def]
    code, _out, err = run_cli(capsys, "optimize", str(BAD / bad))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(str(BAD / bad) + ":")
    assert "Traceback" not in err


def test_missing_file_and_bad_costs(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_cli(capsys, "explain", str(EX / "sum_8.mlir"), "--rules", "nope")
    assert code == 2 and "unknown rule family or schedule 'nope'" in err and "schedules: all, arith" in err
    code, _, err = run_cli(capsys, "optimize", str(tmp_path / "nope.mlir"))
    assert code == 2 and ":1:1:" in err
    costs = tmp_path / "c.json"
    costs.write_text('{"rotate": "fast"}')
    code, _, err = run_cli(capsys, "optimize", str(EX / "sum_8.mlir"), "--costs", str(costs))
    assert code == 2 and "rotate" in err and len(err.strip().splitlines()) == 1
    assert err.startswith(f"{costs}:1:1: error:")  # the costs file is named, not the program
    costs.write_text("{bad json")
    code, _, err = run_cli(capsys, "optimize", str(EX / "sum_8.mlir"), "--costs", str(costs))
    assert code == 2 and f"{costs}:1:2" in err


def test_costs_override_changes_the_choice(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    costs = tmp_path / "c.json"
    costs.write_text('{"mul_plain": 100}')
    _, out, _ = run_cli(capsys, "optimize", str(EX / "mul_by_9.mlir"), "--costs", str(costs), "--json")
    ops = json.loads(out)["after"]["ops"]
    assert "mul_plain" not in ops and ops.get("add") == 4
    _, out, _ = run_cli(capsys, "optimize", str(EX / "mul_by_9.mlir"), "--json")
    assert json.loads(out)["after"]["ops"] == {"mul_plain": 1}


def test_limit_is_reported_and_result_still_correct(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out_file = tmp_path / "o.mlir"
    # a kernel that saturates in more than 2 iterations (sum_loop's sum and dot_product_8 now
    # load realized: 1; mul_by_9's chain takes 6)
    code, out, _ = run_cli(capsys, "optimize", str(EX / "mul_by_9.mlir"), "--iteration-limit", "2", "--json",
                           "-o", str(out_file))
    assert code == 0
    r = json.loads(out)
    assert r["stop_reason"] == "iteration_limit" and r["egraph"]["iterations"] == 2
    original = eqsat.parse_mlir((EX / "mul_by_9.mlir").read_text())[0]
    optimized = eqsat.parse_mlir(out_file.read_text())[0]
    inputs = random_inputs(original, 0)
    assert results_equal(evaluate(original, inputs), evaluate(optimized, inputs))
    code, out, _ = run_cli(capsys, "optimize", str(EX / "mul_by_9.mlir"), "--node-limit", "10", "--json")
    assert json.loads(out)["stop_reason"] == "node_limit"


def test_api_and_cli_agree(capsys) -> None:  # type: ignore[no-untyped-def]
    @eqsat.program(x=eqsat.secret_vector(8, "i32"))
    def simple_sum(x):  # type: ignore[no-untyped-def]
        return sum(x[i] for i in range(8))

    api = eqsat.optimize(simple_sum)
    _, out, _ = run_cli(capsys, "optimize", str(EX / "sum_8.mlir"), "--json")
    cli = json.loads(out)
    assert api.report["after"]["ops"] == cli["after"]["ops"] == {"rotate": 3, "add": 3}
    assert api.report["before"]["ops"] == cli["before"]["ops"]
    again = eqsat.optimize(simple_sum)  # the package attribute stays the function
    assert again.report["after"]["ops"] == api.report["after"]["ops"]
    assert "tensor_ext.rotate" in api.to_mlir()


def test_explain_names_rules_and_costs(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_cli(capsys, "explain", str(EX / "sum_8.mlir"))
    assert code == 0
    assert "rules that fired" in out and "lin-factor" in out and "rotate" in out and "cost" in out


def test_run_command_encrypted(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli(capsys, "run", str(EX / "sum_8.mlir"), "--scheme", "bgv", "--seed", "1", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["match"] is True and r["outputs"] == r["reference"]
    assert set(r["params"]) >= {"N", "log_q", "t", "security_bits"} and r["params"]["security_bits"] >= 128


def test_tracing_api_builds_programs() -> None:
    @eqsat.program(a=eqsat.secret_vector(4), b=eqsat.secret_vector(4))
    def f(a, b):  # type: ignore[no-untyped-def]
        return eqsat.rotate(a * b, 1) + 3 * a - b, -(a[0] * b[1])

    assert len(f.results) == 2
    out = evaluate(f, {"a": [1, 2, 3, 4], "b": [5, 6, 7, 8]})
    assert out == [[2 * 6 + 3 - 5, 3 * 7 + 6 - 6, 4 * 8 + 9 - 7, 1 * 5 + 12 - 8], -(1 * 6)]
    with pytest.raises(TypeError):
        eqsat.trace(lambda x: x, {})
