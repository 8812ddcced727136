"""Translation validation on every result (issue 13, item 3): ``verify=`` and ``--verify``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import eqsat
from eqsat.cli import main
from eqsat.errors import UserError
from eqsat.pipeline import OptimizeError, verify_encrypted

ROOT = Path(__file__).resolve().parents[2]
PROGS = Path(__file__).resolve().parent / "programs"


def test_verify_modes_in_the_report() -> None:
    prog = eqsat.parse_mlir((ROOT / "examples" / "pow8.mlir").read_text())[0]
    assert eqsat.optimize(prog, verify="off").report["verify"] == {"mode": "off"}
    assert eqsat.optimize(prog).report["verify"] == {"mode": "random", "random_trials": 3}
    enc = eqsat.optimize(prog, verify="encrypted").report["verify"]
    assert enc["encrypted_match"] is True and enc["encrypted_scheme"] == "bgv"  # type: ignore[index]
    assert enc["measured_bits"] <= enc["predicted_bits"]  # type: ignore[index,operator]
    with pytest.raises(UserError, match="unknown verify mode"):
        eqsat.optimize(prog, verify="maybe")


def test_encrypted_noisy_program_runs_under_bgv() -> None:
    prog = eqsat.parse_mlir((PROGS / "zero_times.mlir").read_text())[0]
    rep = eqsat.optimize(prog, scheme="noisy", verify="encrypted").report["verify"]
    assert rep["encrypted_match"] is True  # type: ignore[index]


def test_encrypted_check_catches_a_wrong_program() -> None:
    good = eqsat.parse_mlir((ROOT / "examples" / "mul_by_9.mlir").read_text())[0]
    wrong = eqsat.parse_mlir((ROOT / "examples" / "mul_by_9.mlir").read_text().replace("9", "8"))[0]
    with pytest.raises(OptimizeError, match="encrypted runs disagree"):
        verify_encrypted(good, wrong, "bgv")


def test_cli_verify_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["optimize", str(ROOT / "examples" / "mul_by_9.mlir"), "--verify", "encrypted", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    assert json.loads(out.strip().splitlines()[-1])["verify"]["mode"] == "encrypted"
