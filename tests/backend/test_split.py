"""Vectors wider than one row (N/2 slots) split over several ciphertexts.

The ring dimension is forced to N = 64 (32 slots per row, insecure) so that a 64-slot
vector spans two ciphertexts, a 100-slot vector four (the last one partly padding), and
every result is compared with the cleartext interpreter, with measured noise below the
model's prediction.
"""

from __future__ import annotations

from typing import Any

import pytest

from eqsat.backend import run_program
from eqsat.backend.executor import choose_params
from eqsat.interp import random_inputs
from eqsat.ir import Builder, Program, Type

ELEM = {"bgv": "i16", "ckks": "f64"}


def _run(prog: Program, scheme: str, seed: int = 1) -> dict[str, Any]:
    params = choose_params(prog, scheme, insecure=True, ring_dims=(64,))
    inputs = random_inputs(prog, seed, bound=100)
    res = run_program(prog, inputs, scheme, params=params, insecure=True, seed=seed)
    assert res["params"]["N"] == 64
    assert res["match"], (res["outputs"], res["reference"])
    noise = res["noise"]
    for m, p in zip(noise["measured_bits_per_output"], noise["predicted_bits_per_output"], strict=True):
        if m is not None:
            assert m <= p, (m, p)
    return res


def _rotations(n: int, elem: str, steps: range) -> Program:
    b = Builder(f"rot{n}")
    x = b.arg("x", Type((n,), elem, True))
    return b.finish([b.rotate(x, k) for k in steps])


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
@pytest.mark.parametrize("n", [64, 100])
def test_rotation_by_every_step(scheme: str, n: int) -> None:
    res = _run(_rotations(n, ELEM[scheme], range(1, n)), scheme)
    counts = res["noise"]["ops_executed"]
    assert counts["encrypt"] == -(-n // 32)  # one ciphertext per chunk
    assert counts["decrypt"] == (n - 1) * -(-n // 32)


def test_full_chunk_rotations_are_free() -> None:
    res = _run(_rotations(128, "i16", range(32, 128, 32)), "bgv")
    assert "rotate" not in res["noise"]["ops_executed"]


def _kernels(n: int, elem: str) -> Program:
    """Sum by rotate-and-add, products, plaintext operands, slot access, splat, management."""
    b = Builder(f"kernels{n}")
    ty = Type((n,), elem, True)
    x, y = b.arg("x", ty), b.arg("y", ty)
    s = b.arg("s", Type((), elem, True))
    c = b.const(tuple(range(n)), ty.with_secret(False))
    total = x
    k = 1
    while k < n:
        total = b.add(total, b.rotate(total, k))
        k *= 2
    prod = b.unary("relinearize", b.mul(x, y))
    mixed = b.sub(b.add(b.mul(prod, c), b.neg(y)), b.sub(c, x))
    last = n - 1
    ins = b.insert(b.extract(x, last), b.insert(s, y, 33), 0)
    ins = b.insert(b.mul(b.extract(y, 40), s), ins, last)
    sp = b.add(b.splat(b.extract(x, 35), ty), b.unary("modswitch", x))
    fe = b.from_elements([b.extract(y, i % n) for i in range(n)], ty)
    return b.finish([b.extract(total, 0), total, mixed, ins, sp, b.mul(fe, x), b.extract(mixed, 37)])


@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
@pytest.mark.parametrize("n", [64, 80])
def test_elementwise_sums_products_and_slot_access(scheme: str, n: int) -> None:
    for seed in (1, 2):
        _run(_kernels(n, ELEM[scheme]), scheme, seed)


def test_larger_ring_preferred_over_splitting() -> None:
    prog = _rotations(64, "i16", range(1, 3))
    params = choose_params(prog, "bgv", insecure=True)
    assert params.N >= 128  # one row holds the whole vector
