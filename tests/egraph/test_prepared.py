"""A prepared e-graph (``Session.prepare``: the rules declared before the program is loaded, as
``eqsat serve`` does once for all its requests) gives the results of a fresh one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import eqsat
from eqsat.egraph import compiled, session
from eqsat.rules import SCHEDULES

ROOT = Path(__file__).resolve().parent.parent.parent
KERNELS = [ROOT / "examples" / n for n in ("sum_8.mlir", "collapse_chain_16.mlir", "pow8.mlir", "dot_product_8.mlir")]
KERNELS.append(ROOT / "tests" / "heir_cases" / "rr_partial_sum_half_16.mlir")


@pytest.fixture(autouse=True)
def _no_prepared_left() -> Iterator[None]:
    session._PREPARED.clear()
    yield
    session._PREPARED.clear()


def _result(path: Path) -> tuple[str, object, object]:
    res = eqsat.optimize(eqsat.parse_mlir(path.read_text(), str(path))[0])
    return res.to_mlir(), res.report["after"], res.report["egraph"]


@pytest.mark.parametrize("in_process", [True, False], ids=["in-process", "forked-worker"])
@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_a_prepared_egraph_gives_the_same_result(path: Path, in_process: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if in_process:
        monkeypatch.setenv("EQSAT_IN_PROCESS", "1")
    fresh = _result(path)
    session.prepare([*SCHEDULES["default"], compiled.NOISE])
    prepared = _result(path)
    assert prepared == fresh
    if in_process:
        assert session._PREPARED == []  # the session took it
