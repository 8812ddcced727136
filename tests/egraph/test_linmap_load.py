"""The load-time realization of a ``linmap`` (``eqsat.egraph.linmap_load``): the ``linmap`` rules'
closure, in the e-graph before saturation starts, with HEIR's rotation counts (issue 14).

HEIR's Halevi-Shoup kernel with baby-step/giant-step (``lib/Kernel/KernelCostTest.cpp``):
3 / 19 / 31 / 45 / 63 / 127 rotations for n = 4 / 100 / 256 / 512 / 1024 / 4096.
"""

from __future__ import annotations

import numpy as np
import pytest

from eqsat.algebra import linmap
from eqsat.egraph import linmap_load
from eqsat.egraph.tables import Tables
from eqsat.frontend import linalg
from eqsat.interp import evaluate
from eqsat.ir import Builder, Type, op_counts
from eqsat.pipeline import optimize

HEIR_MATVEC = {4: 3, 100: 19, 256: 31, 512: 45, 1024: 63, 4096: 127}
T = 65537


def _realized(m: linmap.LinearMap) -> Tables:
    t = Tables(first_id=1)
    assert linmap_load.realize(t, 0, linmap.register(m), m.n) is not None
    return t


@pytest.mark.parametrize("n", [4, 100, 256, 1024, 4096])
def test_matvec_realized_at_load_within_heir_rotations(n: int) -> None:
    w = np.random.default_rng(n).integers(-3, 4, size=(n, n))
    t = _realized(linmap.from_matrix(w, n))
    rotations = {(child, k) for _, child, k, *_facts in t.rows["Rot"]}  # equal terms are one e-node
    assert len(rotations) <= HEIR_MATVEC[n]
    assert len(t.rows["Mul"]) == n  # one plaintext product per diagonal
    assert not t.rows["LinMap"]  # the summary is taken apart, not loaded


def test_uniform_map_also_loads_its_rotation_polynomial() -> None:
    t = _realized(linmap.from_diagonals({0: 1, 1: 1, 8: 1, 9: 1}, 64))  # a 2x2 sum pool on 8 x 8
    assert len(t.rows["LinRot"]) == 1 and t.unions


def test_matvec_1024_default_limits() -> None:
    """Default limits suffice: the realization exists from the start (no ExtractionError)."""
    n = 1024
    w = np.random.default_rng(0).integers(-3, 4, size=(n, n))
    b = Builder("matvec")
    x = b.arg("x", Type((n,), "i16", True))
    res = optimize(b.finish([linalg.matvec(b, w, x)]), "bgv")
    assert res.report["stop_reason"] == "saturated"
    assert op_counts(res.program).get("rotate", 0) <= HEIR_MATVEC[n]
    v = np.random.default_rng(1).integers(0, 50, size=n)
    assert np.array_equal(np.array(evaluate(res.program, {"x": v.tolist()}, T)[0]) % T, (w @ v) % T)


@pytest.mark.slow
def test_matvec_4096_default_limits() -> None:
    n = 4096
    w = np.random.default_rng(0).integers(-3, 4, size=(n, n))
    b = Builder("matvec")
    x = b.arg("x", Type((n,), "i16", True))
    res = optimize(b.finish([linalg.matvec(b, w, x)]), "bgv")
    assert op_counts(res.program).get("rotate", 0) <= HEIR_MATVEC[n]
