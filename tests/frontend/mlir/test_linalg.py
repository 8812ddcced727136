"""Tensor programs in MLIR (issue 14): every accepted ``linalg``/shape op parses, lowers to
packed slot vectors, optimizes, and computes what numpy computes.

Each case is a small function, its inputs, and the numpy result.  The program is evaluated
in the clear through the client's packing (``meta["layouts"]``: inputs packed, results
unpacked), before and after ``optimize``; the printed program (linear maps spelled out as
their plans) parses back to the same results.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from eqsat.egraph.session import Limits
from eqsat.frontend.mlir import MLIRError, parse_mlir, print_mlir
from eqsat.interp import evaluate
from eqsat.ir import Program, op_counts
from eqsat.layouts import Layout, pack_inputs, unpack_results
from eqsat.pipeline import optimize

RNG = np.random.default_rng(14)


def dense(a: np.ndarray) -> str:
    a = np.asarray(a)
    if a.ndim == 0:
        return str(a.item())
    if a.ndim == 1:
        return "[" + ", ".join(str(x) for x in a.tolist()) + "]"
    return "[" + ", ".join(dense(r) for r in a) + "]"


def ty(shape: tuple[int, ...], elem: str = "i32") -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{elem}>" if shape else f"tensor<{elem}>"


def run(prog: Program, inputs: dict[str, np.ndarray]) -> list[Any]:
    """The program's results as tensors (packed and unpacked by its layouts)."""
    lays = prog.meta.get("layouts")
    flat = {k: np.asarray(v).reshape(-1).tolist() for k, v in inputs.items()}
    if lays is None:
        return evaluate(prog, flat)
    args = {n: Layout.from_json(d) for n, d in lays["arguments"].items()}  # type: ignore[index]
    outs = evaluate(prog, pack_inputs(flat, args))
    return unpack_results(outs, [Layout.from_json(d) for d in lays["results"]])  # type: ignore[index]


def check(text: str, inputs: dict[str, np.ndarray], want: list[np.ndarray], opt: bool = True) -> Program:
    (prog,) = parse_mlir(text, "case.mlir")
    got = run(prog, inputs)
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(np.asarray(g).reshape(-1), np.asarray(w).reshape(-1)), (g, w)
    again = parse_mlir(print_mlir(prog), "printed.mlir")[0]
    for g, w in zip(run(again, inputs), want, strict=True):
        assert np.array_equal(np.asarray(g).reshape(-1), np.asarray(w).reshape(-1))
    if opt:
        res = optimize(prog, "bgv", limits=Limits(time_s=60.0))
        for g, w in zip(run(res.program, inputs), want, strict=True):
            assert np.array_equal(np.asarray(g).reshape(-1), np.asarray(w).reshape(-1))
    return prog


def fn(args: str, ret: str, body: str) -> str:
    return f"func.func @f({args}) -> {ret} {{\n{body}\n}}\n"


def test_matvec() -> None:
    w, x = RNG.integers(-3, 4, (4, 4)), RNG.integers(0, 9, 4)
    check(fn("%x: tensor<4xi32>", "tensor<4xi32>", f"""
  %w = arith.constant dense<{dense(w)}> : tensor<4x4xi32>
  %z = arith.constant dense<0> : tensor<4xi32>
  %y = linalg.matvec ins(%w, %x : tensor<4x4xi32>, tensor<4xi32>) outs(%z : tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>"""), {"x": x}, [w @ x])


@pytest.mark.parametrize(("r", "c"), [(8, 4), (4, 8), (3, 5)])
def test_rectangular_matvec_with_bias(r: int, c: int) -> None:
    w, x, bias = RNG.integers(-3, 4, (r, c)), RNG.integers(0, 9, c), RNG.integers(0, 5, r)
    check(fn(f"%x: tensor<{c}xi32>", f"tensor<{r}xi32>", f"""
  %w = arith.constant dense<{dense(w)}> : tensor<{r}x{c}xi32>
  %b = arith.constant dense<{dense(bias)}> : tensor<{r}xi32>
  %y = linalg.matvec ins(%w, %x : tensor<{r}x{c}xi32>, tensor<{c}xi32>) outs(%b : tensor<{r}xi32>) -> tensor<{r}xi32>
  return %y : tensor<{r}xi32>"""), {"x": x}, [w @ x + bias])


def test_vecmat_and_dot() -> None:
    w, x, a = RNG.integers(-3, 4, (4, 3)), RNG.integers(0, 9, 4), RNG.integers(-2, 3, 4)
    check(fn("%x: tensor<4xi32>", f"(tensor<3xi32>, {ty(())})", f"""
  %w = arith.constant dense<{dense(w)}> : tensor<4x3xi32>
  %a = arith.constant dense<{dense(a)}> : tensor<4xi32>
  %z = arith.constant dense<0> : tensor<3xi32>
  %s = arith.constant dense<0> : tensor<i32>
  %y = linalg.vecmat ins(%x, %w : tensor<4xi32>, tensor<4x3xi32>) outs(%z : tensor<3xi32>) -> tensor<3xi32>
  %d = linalg.dot ins(%a, %x : tensor<4xi32>, tensor<4xi32>) outs(%s : tensor<i32>) -> tensor<i32>
  return %y, %d : tensor<3xi32>, tensor<i32>"""), {"x": x}, [x @ w, np.array(a @ x)])


def test_secret_dot_is_unrolled_and_vectorized() -> None:
    x, y = RNG.integers(0, 9, 8), RNG.integers(0, 9, 8)
    prog = check(fn("%x: tensor<8xi32>, %y: tensor<8xi32>", "tensor<i32>", """
  %s = arith.constant dense<0> : tensor<i32>
  %d = linalg.dot ins(%x, %y : tensor<8xi32>, tensor<8xi32>) outs(%s : tensor<i32>) -> tensor<i32>
  return %d : tensor<i32>"""), {"x": x, "y": y}, [np.array(x @ y)], opt=False)
    res = optimize(prog, "bgv")
    assert op_counts(res.program).get("rotate", 0) <= 3  # one product, rotate-and-reduce


@pytest.mark.parametrize("side", ["plain_left", "plain_right", "both_secret"])
def test_matmul(side: str) -> None:
    a, b = RNG.integers(-3, 4, (2, 3)), RNG.integers(-3, 4, (3, 2))
    z = "%z = arith.constant dense<0> : tensor<2x2xi32>"
    mm = "linalg.matmul ins(%a, %b : tensor<2x3xi32>, tensor<3x2xi32>) outs(%z : tensor<2x2xi32>) -> tensor<2x2xi32>"
    tail = f"  {z}\n  %y = {mm}\n  return %y : tensor<2x2xi32>"
    if side == "plain_left":
        const = f"  %a = arith.constant dense<{dense(a)}> : tensor<2x3xi32>\n"
        text, inputs = fn("%b: tensor<3x2xi32>", "tensor<2x2xi32>", const + tail), {"b": b}
    elif side == "plain_right":
        const = f"  %b = arith.constant dense<{dense(b)}> : tensor<3x2xi32>\n"
        text, inputs = fn("%a: tensor<2x3xi32>", "tensor<2x2xi32>", const + tail), {"a": a}
    else:
        text, inputs = fn("%a: tensor<2x3xi32>, %b: tensor<3x2xi32>", "tensor<2x2xi32>", tail), {"a": a, "b": b}
    check(text, inputs, [a @ b])


def test_conv_1d() -> None:
    x, f = RNG.integers(0, 9, 8), np.array([1, -2, 3])
    check(fn("%x: tensor<8xi32>", "tensor<6xi32>", f"""
  %f = arith.constant dense<{dense(f)}> : tensor<3xi32>
  %z = arith.constant dense<0> : tensor<6xi32>
  %y = linalg.conv_1d ins(%x, %f : tensor<8xi32>, tensor<3xi32>) outs(%z : tensor<6xi32>) -> tensor<6xi32>
  return %y : tensor<6xi32>"""), {"x": x}, [np.correlate(x, f, "valid")])


def _corr2(img: np.ndarray, f: np.ndarray, s: int = 1) -> np.ndarray:
    kh, kw = f.shape
    oh, ow = (img.shape[0] - kh) // s + 1, (img.shape[1] - kw) // s + 1
    return np.array([[np.sum(f * img[i * s:i * s + kh, j * s:j * s + kw]) for j in range(ow)] for i in range(oh)])


def test_conv_2d_keeps_the_grid() -> None:
    img, f = RNG.integers(0, 9, (5, 5)), np.array([[1, 2, 1], [2, 4, 3], [1, 2, 5]])
    prog = check(fn("%img: tensor<5x5xi32>", "tensor<3x3xi32>", f"""
  %f = arith.constant dense<{dense(f)}> : tensor<3x3xi32>
  %z = arith.constant dense<0> : tensor<3x3xi32>
  %y = linalg.conv_2d ins(%img, %f : tensor<5x5xi32>, tensor<3x3xi32>) outs(%z : tensor<3x3xi32>) -> tensor<3x3xi32>
  return %y : tensor<3x3xi32>"""), {"img": img}, [_corr2(img, f)])
    res = prog.meta["layouts"]["results"][0]  # type: ignore[index]
    assert res["name"] == "strided" and res["slot_index"][3] == [5]  # (1, 0) at slot 5 of the 5x5 grid


def test_conv_2d_nchw_fchw_two_filters_two_channels() -> None:
    img, f = RNG.integers(0, 5, (1, 2, 4, 4)), RNG.integers(-2, 3, (2, 2, 3, 3))
    want = np.array([[sum(_corr2(img[0, c], f[o, c]) for c in range(2)) for o in range(2)]])
    check(fn("%img: tensor<1x2x4x4xi32>", "tensor<1x2x2x2xi32>", f"""
  %f = arith.constant dense<{dense(f)}> : tensor<2x2x3x3xi32>
  %z = arith.constant dense<0> : tensor<1x2x2x2xi32>
  %y = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
      ins(%img, %f : tensor<1x2x4x4xi32>, tensor<2x2x3x3xi32>)
      outs(%z : tensor<1x2x2x2xi32>) -> tensor<1x2x2x2xi32>
  return %y : tensor<1x2x2x2xi32>"""), {"img": img}, [want])


def test_conv_2d_nhwc_hwcf_strided() -> None:
    img, f = RNG.integers(0, 5, (1, 5, 5, 1)), RNG.integers(-2, 3, (3, 3, 1, 1))
    want = _corr2(img[0, :, :, 0], f[:, :, 0, 0], s=2)[None, :, :, None]
    check(fn("%img: tensor<1x5x5x1xi32>", "tensor<1x2x2x1xi32>", f"""
  %f = arith.constant dense<{dense(f)}> : tensor<3x3x1x1xi32>
  %z = arith.constant dense<0> : tensor<1x2x2x1xi32>
  %y = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}}
      ins(%img, %f : tensor<1x5x5x1xi32>, tensor<3x3x1x1xi32>)
      outs(%z : tensor<1x2x2x1xi32>) -> tensor<1x2x2x1xi32>
  return %y : tensor<1x2x2x1xi32>"""), {"img": img}, [want])


def test_pooling_nchw_sum() -> None:
    img = RNG.integers(0, 9, (1, 1, 4, 4))
    want = img.reshape(1, 1, 2, 2, 2, 2).sum(axis=(3, 5))
    prog = check(fn("%img: tensor<1x1x4x4xi32>", "tensor<1x1x2x2xi32>", """
  %w = tensor.empty() : tensor<2x2xi32>
  %z = arith.constant dense<0> : tensor<1x1x2x2xi32>
  %y = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%img, %w : tensor<1x1x4x4xi32>, tensor<2x2xi32>)
      outs(%z : tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32>
  return %y : tensor<1x1x2x2xi32>"""), {"img": img}, [want])
    assert prog.meta["layouts"]["results"][0]["slot_index"] == [[0], [2], [8], [10]]  # type: ignore[index]


def test_generic_elementwise_and_named_elementwise() -> None:
    x, y = RNG.integers(-5, 5, (2, 4)), RNG.integers(-5, 5, (2, 4))
    c = RNG.integers(-3, 4, (2, 4))
    check(fn("%x: tensor<2x4xi32>, %y: tensor<2x4xi32>", "tensor<2x4xi32>", f"""
  %c = arith.constant dense<{dense(c)}> : tensor<2x4xi32>
  %three = arith.constant 3 : i32
  %e = tensor.empty() : tensor<2x4xi32>
  %0 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
      affine_map<(d0, d1) -> (d0, d1)>,
      affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}}
      ins(%x, %y : tensor<2x4xi32>, tensor<2x4xi32>)
      outs(%e : tensor<2x4xi32>) {{
  ^bb0(%a: i32, %b: i32, %o: i32):
    %m = arith.muli %a, %b : i32
    %s = arith.addi %m, %three : i32
    linalg.yield %s : i32
  }} -> tensor<2x4xi32>
  %1 = linalg.sub ins(%0, %c : tensor<2x4xi32>, tensor<2x4xi32>) outs(%e : tensor<2x4xi32>) -> tensor<2x4xi32>
  %2 = linalg.mul ins(%1, %x : tensor<2x4xi32>, tensor<2x4xi32>) outs(%e : tensor<2x4xi32>) -> tensor<2x4xi32>
  return %2 : tensor<2x4xi32>"""), {"x": x, "y": y}, [(x * y + 3 - c) * x])


def test_generic_reduction_row_sums() -> None:
    x = RNG.integers(0, 9, (4, 4))
    check(fn("%x: tensor<4x4xi32>", "tensor<4xi32>", """
  %z = arith.constant dense<0> : tensor<4xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
      affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4xi32>)
      outs(%z : tensor<4xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %acc, %a : i32
    linalg.yield %s : i32
  } -> tensor<4xi32>
  return %0 : tensor<4xi32>"""), {"x": x}, [x.sum(axis=1)])


def test_fill_transpose_reshape_and_slices() -> None:
    x = RNG.integers(0, 9, (4, 4))
    t = x.T
    s = t[1:3, 0:2]
    r = x.copy()
    r[0:2, 2:4] = s + 7
    check(fn("%x: tensor<4x4xi32>", "tensor<4x4xi32>", """
  %c7 = arith.constant 7 : i32
  %e = tensor.empty() : tensor<4x4xi32>
  %e4 = tensor.empty() : tensor<4xi32>
  %t = linalg.transpose ins(%x : tensor<4x4xi32>) outs(%e : tensor<4x4xi32>) permutation = [1, 0]
  %s = tensor.extract_slice %t[1, 0] [2, 2] [1, 1] : tensor<4x4xi32> to tensor<2x2xi32>
  %flat = tensor.collapse_shape %s [[0, 1]] : tensor<2x2xi32> into tensor<4xi32>
  %sevens = linalg.fill ins(%c7 : i32) outs(%e4 : tensor<4xi32>) -> tensor<4xi32>
  %p = arith.addi %flat, %sevens : tensor<4xi32>
  %sq = tensor.expand_shape %p [[0, 1]] output_shape [2, 2] : tensor<4xi32> into tensor<2x2xi32>
  %r = tensor.insert_slice %sq into %x[0, 2] [2, 2] [1, 1] : tensor<2x2xi32> into tensor<4x4xi32>
  return %r : tensor<4x4xi32>"""), {"x": x}, [r])


def test_plaintext_weight_argument_in_secret_style() -> None:
    w, x = RNG.integers(-3, 4, (4, 4)), RNG.integers(0, 9, 4)
    prog = check(fn("%w: tensor<4x4xi32>, %x: !secret.secret<tensor<4xi32>>", "!secret.secret<tensor<4xi32>>", """
  %z = arith.constant dense<0> : tensor<4xi32>
  %0 = secret.generic(%x: !secret.secret<tensor<4xi32>>) {
  ^body(%v: tensor<4xi32>):
    %y = linalg.matvec ins(%w, %v : tensor<4x4xi32>, tensor<4xi32>) outs(%z : tensor<4xi32>) -> tensor<4xi32>
    secret.yield %y : tensor<4xi32>
  } -> !secret.secret<tensor<4xi32>>
  return %0 : !secret.secret<tensor<4xi32>>"""), {"w": w, "x": x}, [w @ x])
    assert [t.secret for _, t in prog.args] == [False, True]


def test_hand_unrolled_and_linalg_matvec_reach_the_same_counts() -> None:
    n = 4
    w = np.random.default_rng(0).integers(1, 4, size=(n, n))
    rows = []
    for i in range(n):
        terms = [f"%p{i}_{j}" for j in range(n)]
        body = [f"  %x{i}_{j} = tensor.extract %x[%c{j}] : tensor<{n}xi32>\n"
                f"  %w{i}_{j} = arith.constant {w[i, j]} : i32\n"
                f"  %p{i}_{j} = arith.muli %w{i}_{j}, %x{i}_{j} : i32" for j in range(n)]
        acc = terms[0]
        for j in range(1, n):
            body.append(f"  %s{i}_{j} = arith.addi {acc}, {terms[j]} : i32")
            acc = f"%s{i}_{j}"
        rows.append(("\n".join(body), acc))
    idx = "\n".join(f"  %c{j} = arith.constant {j} : index" for j in range(n))
    unrolled = fn(f"%x: tensor<{n}xi32>", f"tensor<{n}xi32>", idx + "\n" + "\n".join(b for b, _ in rows) + f"""
  %y = tensor.from_elements {", ".join(a for _, a in rows)} : tensor<{n}xi32>
  return %y : tensor<{n}xi32>""")
    packed = fn(f"%x: tensor<{n}xi32>", f"tensor<{n}xi32>", f"""
  %w = arith.constant dense<{dense(w)}> : tensor<{n}x{n}xi32>
  %z = arith.constant dense<0> : tensor<{n}xi32>
  %y = linalg.matvec ins(%w, %x : tensor<{n}x{n}xi32>, tensor<{n}xi32>) outs(%z : tensor<{n}xi32>) -> tensor<{n}xi32>
  return %y : tensor<{n}xi32>""")
    a = optimize(parse_mlir(unrolled)[0], "bgv")
    b = optimize(parse_mlir(packed)[0], "bgv")
    assert op_counts(a.program).get("rotate", 0) == op_counts(b.program).get("rotate", 0) <= 3  # HEIR: 3


BAD = [
    ("dynamic", "%x: tensor<?xi32>", "tensor<4xi32>", """
  %w = arith.constant dense<1> : tensor<4x4xi32>
  %z = arith.constant dense<0> : tensor<4xi32>
  %y = linalg.matvec ins(%w, %x : tensor<4x4xi32>, tensor<?xi32>) outs(%z : tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>""", (1, 1), "static"),
    ("batch", "%x: tensor<2x1x4x4xi32>", "tensor<2x1x2x2xi32>", """
  %f = arith.constant dense<1> : tensor<1x1x3x3xi32>
  %z = arith.constant dense<0> : tensor<2x1x2x2xi32>
  %y = linalg.conv_2d_nchw_fchw
      ins(%x, %f : tensor<2x1x4x4xi32>, tensor<1x1x3x3xi32>)
      outs(%z : tensor<2x1x2x2xi32>) -> tensor<2x1x2x2xi32>
  return %y : tensor<2x1x2x2xi32>""", (5, 8), "batch 2"),
    ("shape", "%x: tensor<3xi32>", "tensor<4xi32>", """
  %w = arith.constant dense<1> : tensor<4x4xi32>
  %z = arith.constant dense<0> : tensor<4xi32>
  %y = linalg.matvec ins(%w, %x : tensor<4x4xi32>, tensor<3xi32>) outs(%z : tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>""", (5, 8), "expected MxK, K -> M"),
    ("dynamic_slice", "%x: tensor<4xi32>, %i: index", "tensor<2xi32>", """
  %s = tensor.extract_slice %x[%i] [2] [1] : tensor<4xi32> to tensor<2xi32>
  return %s : tensor<2xi32>""", (3, 8), "dynamic offsets"),
    ("too_large", "%a: tensor<64x64xi32>, %b: tensor<64x64xi32>", "tensor<64x64xi32>", """
  %z = arith.constant dense<0> : tensor<64x64xi32>
  %y = linalg.matmul
      ins(%a, %b : tensor<64x64xi32>, tensor<64x64xi32>)
      outs(%z : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %y : tensor<64x64xi32>""", (4, 8), "arith.constant"),
    ("unknown", "%x: tensor<4xi32>", "tensor<2x4xi32>", """
  %e = tensor.empty() : tensor<2x4xi32>
  %y = linalg.broadcast ins(%x : tensor<4xi32>) outs(%e : tensor<2x4xi32>) dimensions = [0]
  return %y : tensor<2x4xi32>""", (4, 8), "unknown operation 'linalg.broadcast'"),
]


@pytest.mark.parametrize(("name", "args", "ret", "body", "where", "text"), BAD, ids=[b[0] for b in BAD])
def test_bad_tensor_programs_are_located(name: str, args: str, ret: str, body: str, where: tuple[int, int],
                                         text: str) -> None:
    with pytest.raises(MLIRError) as exc:
        parse_mlir(fn(args, ret, body), f"{name}.mlir")
    msg = str(exc.value)
    assert "\n" not in msg and text in msg, msg
    assert msg.startswith(f"{name}.mlir:{where[0]}:{where[1]}: error: "), msg


def test_constant_tensor_program_folds() -> None:
    prog = check(fn("", "tensor<4xi32>", """
  %a = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %e = tensor.empty() : tensor<4xi32>
  %y = linalg.add ins(%a, %a : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>"""), {}, [np.array([2, 4, 6, 8])], opt=False)
    assert [n.op for n in prog.nodes] == ["const"]


def test_single_row_argument_keeps_its_shape() -> None:
    w, x = RNG.integers(-3, 4, (4, 4)), RNG.integers(0, 9, (1, 4))
    prog = check(fn("%x: tensor<1x4xi32>", "tensor<1x4xi32>", f"""
  %w = arith.constant dense<{dense(w)}> : tensor<4x4xi32>
  %z = arith.constant dense<0> : tensor<1x4xi32>
  %y = linalg.matmul ins(%x, %w : tensor<1x4xi32>, tensor<4x4xi32>) outs(%z : tensor<1x4xi32>) -> tensor<1x4xi32>
  return %y : tensor<1x4xi32>"""), {"x": x}, [x @ w])
    assert prog.args[0][1].shape == (1, 4) and "layouts" not in prog.meta


def test_generic_contraction_is_one_linear_map() -> None:
    """A matvec written as linalg.generic (``out + w * x``) lowers as linalg.matvec does."""
    w, x = RNG.integers(-3, 4, (8, 8)), RNG.integers(0, 9, 8)
    prog = check(fn("%x: tensor<8xi32>", "tensor<8xi32>", f"""
  %w = arith.constant dense<{dense(w)}> : tensor<8x8xi32>
  %z = arith.constant dense<0> : tensor<8xi32>
  %y = linalg.generic {{indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>,
      affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}}
      ins(%w, %x : tensor<8x8xi32>, tensor<8xi32>) outs(%z : tensor<8xi32>) {{
  ^bb0(%a: i32, %b: i32, %acc: i32):
    %m = arith.muli %a, %b : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  }} -> tensor<8xi32>
  return %y : tensor<8xi32>"""), {"x": x}, [w @ x])
    assert [n.op for n in prog.nodes if n.op != "const"] == ["input", "linmap"]
