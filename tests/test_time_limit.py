"""The time limit bounds the whole optimizer call on big programs (issue 13).

A 20,000-op program with ``--time-limit 30`` took 39 s: after saturation stopped, the call
waited up to 10 s for the e-graph's checkpoint and then managed, reported and checked the
source with ILPs that took most of what was left. Now every stage after the e-graph keeps a
reserve for the source's own passes (``eqsat.pipeline.source_reserve``), an ILP without time
left takes its ILP-free answer, and the report names the stage that was cut.

Timing assertions use generous slack (the machine may be shared); the big case is ``slow``.
"""

from __future__ import annotations

import time

import pytest

from eqsat.egraph.session import Limits
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Builder, Type
from eqsat.mgmt import check, relinearize_points
from eqsat.mgmt.manage import manage
from eqsat.pipeline import OVERSHOOT_S, optimize
from eqsat.testing.programs import Shape, random_program


def _products_program():  # type: ignore[no-untyped-def]
    b = Builder("products")
    ty = Type((8,), "i16", True)
    x, y = b.arg("x", ty), b.arg("y", ty)
    return b.finish([b.add(b.mul(x, y), b.mul(y, y))])  # the ILP relinearizes the sum once


def test_relinearization_without_time_is_after_every_product() -> None:
    prog = _products_program()
    muls = {i for i in prog.live() if prog.nodes[i].op == "mul"}
    assert relinearize_points(prog, time_limit=0.0) == muls
    assert len(relinearize_points(prog, time_limit=5.0)) < len(muls)  # the ILP shares one
    managed = manage(prog, "bgv", time_limit=0.0)
    assert check(managed, "bgv", 1).legal
    assert sum(1 for i in managed.live() if managed.nodes[i].op == "relinearize") == len(muls)


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("limit", [5.0, 15.0])
def test_a_20k_op_program_returns_within_its_time_limit(limit: float) -> None:
    prog = random_program(1, 20_000, Shape(slots=8, elem="i16", inputs=4, window=30, max_depth=4, results=4))
    start = time.perf_counter()
    res = optimize(prog, limits=Limits(time_s=limit))
    wall = time.perf_counter() - start
    report = res.report
    assert report["stop_reason"] == "time_limit"
    assert report["stop_stage"] in ("load", "saturate", "extract", "place")
    # the documented overshoot, plus generous slack for a loaded machine (measured: 4.5 s for
    # a 5 s limit and 14.8 s for 15 s at load average 5 on 2 cores; before, 9.5 s and 23 s)
    assert wall <= limit + OVERSHOOT_S + 0.5 * limit, (wall, report["timings"])
    assert report["after"]["cost"] <= report["before"]["cost"]  # type: ignore[index, operator]
    inputs = random_inputs(prog, 0)
    assert results_equal(evaluate(prog, inputs), evaluate(res.program, inputs))
