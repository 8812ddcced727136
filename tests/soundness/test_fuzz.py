"""The fuzzer (issue 13, item 4): default run, slow run, Dask = serial, regression replay."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import eqsat
from eqsat.cli import main
from eqsat.testing.fuzz import (
    FAILURES,
    VERDICT_COLUMNS,
    Case,
    check,
    cost_verdict,
    run_many,
    shrink,
    summarize,
    write_csv,
)
from eqsat.testing.reread import floor_violations, report_differences, reread

REGRESSIONS = sorted((Path(__file__).resolve().parents[1] / "fuzz_regressions").glob("*.mlir"))


def _no_failures(rows: list[dict[str, object]]) -> None:
    bad = [(r["seed"], r["status"], r["detail"]) for r in rows if r["status"] in FAILURES]
    assert bad == []
    assert sum(1 for r in rows if r["status"] == "ok") >= 0.9 * len(rows)


DEFAULT_PROGRAMS = 200
CHUNKS = 4  # separate tests, so pytest-xdist spreads the programs over its workers


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_default_fuzz_run(chunk: int) -> None:
    size = DEFAULT_PROGRAMS // CHUNKS
    rows = run_many(size, chunk * size)
    _no_failures(rows)
    assert any(r["encrypted"] for r in rows)


def test_default_fuzz_run_covers_every_kind() -> None:
    from eqsat.testing.fuzz import draw_case

    kinds = {draw_case(s).kind for s in range(DEFAULT_PROGRAMS)}
    assert kinds >= {"int_scalar", "int_vector", "int_vector_consts", "noisy", "float_vector", "text_noisy"}
    for k in ("straight", "reduce", "stencil", "map"):  # MLIR text, plain and in secret.generic
        assert {f"text_{k}", f"text_{k}_generic"} <= kinds, k


@pytest.mark.slow
def test_slow_fuzz_run() -> None:
    _no_failures(run_many(2000, 10_000))


def _header(path: Path, key: str) -> str:
    for line in path.read_text().splitlines():
        if line.startswith(f"// {key}:"):
            return line.split(":", 1)[1].strip()
    return {"rules": "default", "scheme": "bgv"}.get(key, "")


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.name)
def test_regression_replays(path: Path) -> None:
    prog = eqsat.parse_mlir(path.read_text(), str(path))[0]
    scheme, rules = _header(path, "scheme"), _header(path, "rules")
    costs = json.loads(_header(path, "costs") or "null")
    res = eqsat.optimize(prog, scheme=scheme, rules=rules, costs=costs)
    assert report_differences(res, scheme, costs) == []
    assert res.report["after"]["noise"]["legal"]  # type: ignore[index]
    assert floor_violations(res, reread(res)) == floor_violations(res, prog) == []
    assert cost_verdict(res.report) == (False, "") or not res.report["before"]["noise"]["legal"]  # type: ignore[index]


def test_shrink_finds_a_smaller_failing_program() -> None:
    # a synthetic failure: "rejected" for any program holding a mul -- shrinking keeps one mul only
    from eqsat.testing import fuzz

    case = fuzz.draw_case(3)
    while "mul" not in [case.program.nodes[i].op for i in case.program.live()]:
        case = fuzz.draw_case(case.seed + 100)
    orig = fuzz.check

    def fake(c: Case, prog: eqsat.Program | None = None, encrypted: bool = False):  # type: ignore[no-untyped-def]
        p = prog if prog is not None else c.program
        return ("crash", "", {}) if any(p.nodes[i].op == "mul" for i in p.live()) else ("ok", "", {})

    fuzz.check = fake  # type: ignore[assignment]
    try:
        small = shrink(case, "crash", False)
    finally:
        fuzz.check = orig  # type: ignore[assignment]
    assert len(small.live()) <= len(case.program.live())
    assert any(small.nodes[i].op == "mul" for i in small.live())
    assert check is orig


@pytest.mark.skipif(importlib.util.find_spec("dask") is None, reason="dask is not installed")
def test_dask_local_cluster_gives_the_serial_csv(tmp_path: Path) -> None:
    """Row for row the same CSV; a row a time limit shaped (on either side: the Dask run
    shares the cores with the serial one's leftovers and the rest of the machine) keeps
    its verdict columns, its counts may differ."""
    serial = run_many(12, 500)
    dist = run_many(12, 500, workers=2)
    write_csv(serial, tmp_path / "a.csv")
    write_csv(dist, tmp_path / "b.csv")
    assert [r["seed"] for r in serial] == [r["seed"] for r in dist]
    for a, b in zip(serial, dist, strict=True):
        if a["time_bound"] or b["time_bound"]:
            assert {k: a[k] for k in VERDICT_COLUMNS} == {k: b[k] for k in VERDICT_COLUMNS}
        else:
            assert a == b
    if not any(r["time_bound"] for r in serial + dist):
        assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()


def test_cli_fuzz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "f.csv"
    assert main(["fuzz", "--count", "3", "--seed", "7", "--out", str(out)]) == 0
    assert out.read_text().splitlines()[0].startswith("seed,kind,scheme")
    assert '"programs": 3' in capsys.readouterr().out
    assert summarize([], 0.0)["programs"] == 0


def test_floor_violations_flags_a_floor_above_the_depth() -> None:
    src = "func.func @sq(%x: i16) -> i16 {\n  %0 = arith.muli %x, %x : i16\n  return %0 : i16\n}\n"
    prog = eqsat.parse_mlir(src)[0]
    res = eqsat.optimize(prog, scheme="bgv")
    assert res.report["analysis"]["depth_floor"] == [1]  # type: ignore[index]
    assert floor_violations(res, prog) == []
    res.report["analysis"]["depth_floor"] = [2]  # type: ignore[index]
    assert floor_violations(res, prog) == ["depth_floor of result 0: 2 > the depth 1 of sq"]
