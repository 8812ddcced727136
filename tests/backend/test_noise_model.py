"""The noise model bounds the measured noise after the optimizer's own management placement.

Regression for issue 6: after ``eqsat.pipeline.optimize`` places ``modswitch`` on a
degree-3 ciphertext (before its ``relinearize``), the old model under-predicted by several
bits at N >= 4096 (it bounded the rounding term r_0 + r_1 s and forgot r_2 s^2, and
treated products with s as one Gaussian).  The ring dimension is fixed at 4096 (insecure
chain length, so the tests stay fast) because the missing terms grow with N: at the
insecure N = 64 the old model happened to hold.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eqsat.backend import run_program
from eqsat.backend.executor import choose_params
from eqsat.egraph.session import Limits
from eqsat.frontend.mlir import parse_mlir
from eqsat.interp import random_inputs
from eqsat.ir import Builder, Program, Type

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
N = 4096
SEEDS = (1, 2, 3)
FAST = ("pow8", "horner", "mul_by_9", "dot_product_8", "pairwise_products", "sum_8")
SLOW = ("mul_by_255", "sum_loop", "secret_generic_sum", "noisy_squarings", "noisy_branching")


def _assert_bounded(res: dict[str, Any], encrypted: bool) -> None:
    assert res["match"], (res["outputs"], res["reference"])
    noise = res["noise"]
    pairs = list(zip(noise["measured_bits_per_output"], noise["predicted_bits_per_output"], strict=True))
    assert any(m is not None for m, _ in pairs) == encrypted
    for m, p in pairs:
        if m is not None:
            assert m <= p, (m, p)


def _optimized(prog: Program, scheme: str) -> Program:
    from eqsat.pipeline import optimize

    return optimize(prog, scheme=scheme, limits=Limits(iterations=8, nodes=20000, time_s=5.0)).program


def _secret(prog: Program, r: int) -> bool:
    node = prog.nodes[r]
    return node.type.secret or (node.op == "decode" and prog.nodes[node.args[0]].type.secret)


def _run_seeds(prog: Program, scheme: str) -> None:
    params = choose_params(prog, scheme, insecure=True, ring_dims=(N,))
    # the optimizer may fold a program on constants down to plaintext: nothing to measure
    encrypted = any(_secret(prog, r) for r in prog.results)
    for seed in SEEDS:
        inputs = random_inputs(prog, seed, bound=50) if scheme == "bgv" else random_inputs(prog, seed)
        _assert_bounded(run_program(prog, inputs, scheme, params=params, insecure=True, seed=seed), encrypted)


def _example_params(names: tuple[str, ...], slow: bool) -> list[Any]:
    marks = pytest.mark.slow if slow else ()
    return [pytest.param(n, id=n, marks=marks) for n in names]


@pytest.mark.parametrize("name", _example_params(FAST, False) + _example_params(SLOW, True))
def test_optimized_examples_bgv_measured_below_predicted(name: str) -> None:
    path = EXAMPLES / f"{name}.mlir"
    for prog in parse_mlir(path.read_text(), str(path)):
        # a noisy-dialect example optimizes as such (the pipeline refuses another scheme for
        # it) and its result runs under BGV, as test_examples does
        _run_seeds(_optimized(prog, "noisy" if prog.style == "noisy" else "bgv"), "bgv")


def _degree3_modswitch(elem: str) -> Program:
    """x^8 by squaring with each modswitch placed on the unrelinearized product."""
    b = Builder("deg3_modswitch")
    x = b.arg("x", Type((8,), elem, True))
    v = b.unary("modswitch", x)
    for _ in range(3):
        v = b.unary("relinearize", b.unary("modswitch", b.mul(v, v)))
    return b.finish([v])


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
def test_modswitch_of_a_degree3_ciphertext_is_bounded(scheme: str) -> None:
    _run_seeds(_degree3_modswitch("i16" if scheme == "bgv" else "f64"), scheme)


def _real_kernels() -> list[Program]:
    """Real-valued counterparts of the small examples (no example is real-valued)."""
    out = []
    b = Builder("pow8_f")
    x = b.arg("x", Type((), "f64", True))
    v = x
    for _ in range(7):
        v = b.mul(v, x)
    out.append(b.finish([v]))
    b = Builder("dot_f")
    ty = Type((8,), "f64", True)
    x, y = b.arg("x", ty), b.arg("y", ty)
    p = b.mul(x, y)
    s = p
    for k in (4, 2, 1):
        s = b.add(s, b.rotate(s, k))
    out.append(b.finish([b.extract(s, 0)]))
    b = Builder("horner_f")
    x = b.arg("x", Type((4,), "f64", True))
    acc = b.const(0.5, Type((4,), "f64", False))
    for c in (0.25, -1.5, 2.0, 0.75):
        acc = b.add(b.mul(acc, x), b.const(c, Type((4,), "f64", False)))
    out.append(b.finish([acc]))
    return out


@pytest.mark.parametrize("index", range(3))
def test_optimized_real_kernels_ckks_error_below_prediction(index: int) -> None:
    _run_seeds(_optimized(_real_kernels()[index], "ckks"), "ckks")
