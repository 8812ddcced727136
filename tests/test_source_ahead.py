"""The source's share of the report computed while the worker saturates
(``eqsat.source_ahead``): the same report as in order, its errors raised where they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from eqsat import pipeline
from eqsat.frontend.mlir import parse_mlir
from eqsat.models.cost import table
from eqsat.source_ahead import SourceAhead

ROOT = Path(__file__).resolve().parent
EXAMPLES = ROOT.parent / "examples"


def _stable(report: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in report.items() if k not in ("time_s", "timings", "ilp", "analysis")}


@pytest.mark.parametrize("name", ["sum_8", "pow8", "noisy_squarings", "poly_64", "secret_generic_sum"])
def test_the_report_is_the_one_computed_in_order(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    prog = parse_mlir((EXAMPLES / f"{name}.mlir").read_text())[0]
    scheme = "noisy" if name.startswith("noisy") else "bgv"
    ahead = pipeline.optimize(prog, scheme)

    class Nothing(SourceAhead):  # nothing computed ahead: the pipeline computes it in order
        def start(self) -> None:
            pass

    monkeypatch.setattr(pipeline, "SourceAhead", Nothing)
    in_order = pipeline.optimize(prog, scheme)
    assert _stable(ahead.report) == _stable(in_order.report)
    assert ahead.program.nodes == in_order.program.nodes


def test_an_error_ahead_is_raised_where_it_is_used() -> None:
    prog = parse_mlir((EXAMPLES / "sum_8.mlir").read_text())[0]

    def broken(*args: object, **kwargs: object) -> dict[str, object]:
        raise RuntimeError("summary failed")

    work = SourceAhead(prog, "bgv", table("bgv"), None, False, lambda: 1.0, broken, None)
    work.start()
    with pytest.raises(RuntimeError, match="summary failed"):
        work.before()
    assert work.evaluations() is None


def test_nothing_ahead_without_time_for_an_ilp() -> None:
    prog = parse_mlir((EXAMPLES / "pow8.mlir").read_text())[0]
    work = SourceAhead(prog, "bgv", table("bgv"), None, False, lambda: 0.0, pipeline.summarize,
                       lambda: pipeline.source_evaluations(prog))
    work.start()
    assert work.before() is None  # computed in order instead
    evals = work.evaluations()
    assert evals is not None and len(evals) == 3
    work2 = SourceAhead(prog, "bgv", table("bgv"), None, False, lambda: 1.0, pipeline.summarize, None)
    work2.start()
    assert work2.before(ilp_allowed=False) is None  # the point of use has no time for an ILP: in order
    got = work2.before()
    assert got is not None and got[1] is True  # pow8 multiplies: placed by mgmt.manage


def test_no_thread_outlives_a_failed_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch run forks the next kernel's worker after a failure: the thread must be gone."""
    import threading
    import time

    from eqsat.egraph import guard

    prog = parse_mlir((EXAMPLES / "pow8.mlir").read_text())[0]

    real_summary = pipeline.summarize
    ran: list[float] = []

    def slow_summary(*args: object, **kwargs: object) -> dict[str, object]:
        time.sleep(0.3)
        ran.append(time.perf_counter())
        return real_summary(*args, **kwargs)  # type: ignore[arg-type]

    def failing_build(*args: object, beside: object = None, **kwargs: object) -> object:
        beside.start()  # type: ignore[attr-defined]
        raise RuntimeError("the stage failed")

    monkeypatch.setattr(pipeline, "summarize", slow_summary)
    monkeypatch.setattr(guard, "build", failing_build)
    with pytest.raises(RuntimeError, match="the stage failed"):
        pipeline.optimize(prog, "bgv")
    assert [t for t in threading.enumerate() if t.name == "eqsat-source-ahead"] == []
    assert len(ran) == 1  # the thread had started its work, and was waited for
