"""Goals of issue 14: tensor kernels with plaintext weights reach (or beat) HEIR's rotation counts.

Each kernel is one ``linmap`` node (``eqsat.frontend.linalg``); the ``linmap`` rules realize
it and extraction picks the realization.  Counts are compared with HEIR's published ones
(``lib/Kernel/KernelCostTest.cpp``, ``conv2d.mlir``); results are checked in cleartext
against numpy and encrypted (BGV, CKKS) through the executor.
"""

from __future__ import annotations

import numpy as np
import pytest

from eqsat.backend import run_program
from eqsat.frontend import linalg
from eqsat.interp import evaluate
from eqsat.ir import Builder, Type, op_counts
from eqsat.models.cost import table
from eqsat.models.hoisting import program_cost
from eqsat.pipeline import optimize

HEIR_MATVEC = {4: 3, 16: 7, 100: 19, 256: 31}
T = 65537


def _matvec_prog(n: int, seed: int = 0) -> tuple[Builder, np.ndarray, int]:
    w = np.random.default_rng(seed).integers(-3, 4, size=(n, n))
    b = Builder(f"matvec{n}")
    x = b.arg("x", Type((n,), "i16", True))
    return b, w, linalg.matvec(b, w, x)


@pytest.mark.parametrize("n", [4, 16, 100, 256])
def test_matvec_rotations_at_most_heir(n: int) -> None:
    b, w, y = _matvec_prog(n)
    prog = b.finish([y])
    res = optimize(prog, "bgv")
    counts = op_counts(res.program)
    assert counts.get("rotate", 0) <= HEIR_MATVEC[n], counts
    v = np.random.default_rng(1).integers(0, 50, size=n)
    out = np.array(evaluate(res.program, {"x": v.tolist()}, T)[0])
    assert np.array_equal(out % T, (w @ v) % T)
    if n <= 16:
        enc = run_program(res.program, {"x": v.tolist()}, "bgv", insecure=True, seed=7)
        assert enc["match"], (enc["outputs"], enc["reference"])


def test_conv2d_5x5_3x3_four_rotations() -> None:
    f = np.array([[1, 2, 1], [2, 4, 3], [1, 2, 5]])  # rank 3: not separable
    b = Builder("conv")
    x = b.arg("img", Type((25,), "i16", True))
    res = optimize(b.finish([linalg.conv2d(b, x, 5, 5, f)]), "bgv")
    counts = op_counts(res.program)
    assert counts.get("rotate", 0) <= 4, counts  # HEIR: 13
    img = np.random.default_rng(2).integers(0, 9, size=(5, 5))
    out = evaluate(res.program, {"img": img.ravel().tolist()})[0]
    want = np.array([[np.sum(f * img[i:i + 3, j:j + 3]) for j in range(3)] for i in range(3)])
    assert np.array_equal(linalg.strided_view(out, 5, 3, 3), want)  # output strided in the 5x5 grid
    enc = run_program(res.program, {"img": img.ravel().tolist()}, "bgv", insecure=True, seed=7)
    assert enc["match"]


@pytest.mark.parametrize(("h", "w"), [(4, 4), (8, 8)])
def test_sum_pool_two_rotations_strided(h: int, w: int) -> None:
    b = Builder("pool")
    x = b.arg("img", Type((h * w,), "i16", True))
    res = optimize(b.finish([linalg.sum_pool(b, x, h, w, 2)]), "bgv")
    assert op_counts(res.program).get("rotate", 0) <= 2
    img = np.arange(h * w).reshape(h, w)
    out = evaluate(res.program, {"img": img.ravel().tolist()})[0]
    want = img.reshape(h // 2, 2, w // 2, 2).sum(axis=(1, 3))
    assert np.array_equal(linalg.strided_view(out, w, h // 2, w // 2, stride=2), want)


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
def test_two_layer_network_encrypted(scheme: str) -> None:
    n = 8
    rng = np.random.default_rng(5)
    w1, w2 = rng.integers(-2, 3, size=(n, n)), rng.integers(-2, 3, size=(n, n))
    b = Builder("net")
    elem = "f64" if scheme == "ckks" else "i16"
    x = b.arg("x", Type((n,), elem, True))
    h = linalg.matvec(b, w1, x)
    y = linalg.matvec(b, w2, b.mul(h, h))
    prog = b.finish([y])
    res = optimize(prog, scheme)
    # every rotation priced as a full key switch: two 8x8 maps take 2 + 2 rotations each
    flat = optimize(prog, scheme, costs={"rotate_hoisted": table(scheme)["rotate"]})
    assert op_counts(flat.program).get("rotate", 0) <= 2 * 4
    # hoisting priced (the default): CKKS takes each map's 7 diagonals as rotations of one
    # input, one decomposition each (measured 3.4x faster than the 8 rotations above at
    # equal parameters, and one level shallower); never costlier than the flat choice
    assert res.report["after"]["cost"] <= program_cost(flat.program, table(scheme))  # type: ignore[index]
    v = rng.integers(0, 4, size=n)
    inputs = {"x": [float(t) for t in v] if scheme == "ckks" else v.tolist()}
    enc = run_program(res.program, inputs, scheme, insecure=True, seed=7)
    assert enc["match"], (enc["outputs"], enc["reference"])
    want = w2 @ ((w1 @ v) ** 2)
    assert np.allclose(np.array(evaluate(prog, inputs)[0], dtype=float), want)


def test_unrolled_matvec_reaches_linalg_counts() -> None:
    n = 4
    w = np.random.default_rng(0).integers(1, 4, size=(n, n))
    b = Builder("unrolled")
    x = b.arg("x", Type((n,), "i16", True))
    outs = []
    for i in range(n):
        acc = None
        for j in range(n):
            t = b.mul(b.const(int(w[i, j]), Type((), "i16", False)), b.extract(x, j))
            acc = t if acc is None else b.add(acc, t)
        assert acc is not None
        outs.append(acc)
    unrolled = optimize(b.finish([b.from_elements(outs, Type((n,), "i16", True))]), "bgv")
    b2, _, y = _matvec_prog(n)
    packed = optimize(b2.finish([y]), "bgv")
    assert op_counts(unrolled.program).get("rotate", 0) <= op_counts(packed.program).get("rotate", 0)


HEIR_RECT = {(8, 4): 5, (4, 8): 4}


@pytest.mark.parametrize(("r", "c"), sorted(HEIR_RECT))
def test_rectangular_matvec_mlir_at_most_heir(r: int, c: int) -> None:
    """``linalg.matvec`` of an r x c plaintext matrix: a tall one reads a replicated input (4
    diagonals), a wide one sums partial products in both halves and folds them (HEIR: 5 / 4)."""
    from eqsat.frontend.mlir import parse_mlir

    w = np.random.default_rng(r * c).integers(-3, 4, size=(r, c))
    rows = ", ".join("[" + ", ".join(str(int(v)) for v in row) + "]" for row in w)
    text = f"""func.func @mv(%x: tensor<{c}xi16>) -> tensor<{r}xi16> {{
  %w = arith.constant dense<[{rows}]> : tensor<{r}x{c}xi16>
  %z = arith.constant dense<0> : tensor<{r}xi16>
  %y = linalg.matvec ins(%w, %x : tensor<{r}x{c}xi16>, tensor<{c}xi16>) outs(%z : tensor<{r}xi16>) -> tensor<{r}xi16>
  return %y : tensor<{r}xi16>
}}"""
    prog = parse_mlir(text, "rect.mlir")[0]
    res = optimize(prog, "bgv")
    assert op_counts(res.program).get("rotate", 0) <= HEIR_RECT[(r, c)], op_counts(res.program)
    v = np.random.default_rng(3).integers(0, 50, size=c)
    enc = run_program(res.program, {"x": v.tolist()}, "bgv", insecure=True, seed=7, layouts=prog.meta["layouts"])
    assert enc["match"] and np.array_equal(np.array(enc["outputs"][0]) % T, (w @ v) % T), enc["outputs"]


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
def test_two_layer_network_mlir_encrypted(scheme: str) -> None:
    """``examples/linalg_two_layer_net.mlir`` (and its f32 twin under CKKS) optimizes to at most
    two 8x8 maps' worth of rotations when rotations are priced flat, to nothing costlier with
    hoisting priced, and runs encrypted end to end with match."""
    from pathlib import Path

    from eqsat.frontend.mlir import parse_mlir
    from eqsat.ir import multiplicative_depth

    text = (Path(__file__).resolve().parents[2] / "examples" / "linalg_two_layer_net.mlir").read_text()
    if scheme == "ckks":
        text = text.replace("i16", "f32").replace("arith.muli", "arith.mulf").replace("arith.constant 0 : f32",
                                                                                     "arith.constant 0.0 : f32")
    prog = parse_mlir(text, "net.mlir")[0]
    res = optimize(prog, scheme)
    flat = optimize(prog, scheme, costs={"rotate_hoisted": table(scheme)["rotate"]})
    assert op_counts(flat.program).get("rotate", 0) <= 2 * 4  # rotations priced flat
    assert res.report["after"]["cost"] <= program_cost(flat.program, table(scheme))  # type: ignore[index]
    assert multiplicative_depth(res.program) == 1
    v = np.random.default_rng(9).integers(0, 4, size=8)
    inputs = {"x": [float(t) for t in v] if scheme == "ckks" else v.tolist()}
    enc = run_program(res.program, inputs, scheme, insecure=True, seed=7)
    assert enc["match"], (enc["outputs"], enc["reference"])
