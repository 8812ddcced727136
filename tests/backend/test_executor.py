"""The executor: every IR op encrypted (BGV and CKKS), layouts, errors, noise vs model."""

from __future__ import annotations

import math
from typing import Any

import pytest

from eqsat.backend import BackendError, choose_params, run_program
from eqsat.backend.noise import predict_bgv, predict_ckks
from eqsat.backend.noise_average import predict_bgv_average
from eqsat.backend.params import make_params
from eqsat.interp import random_inputs
from eqsat.ir import Builder, Program, Type
from eqsat.testing import programs


def check(res: dict[str, Any]) -> None:
    """match, and measured <= predicted for every output that was decrypted."""
    assert res["match"], (res["outputs"], res["reference"])
    noise = res["noise"]
    for m, p in zip(noise["measured_bits_per_output"], noise["predicted_bits_per_output"], strict=True):
        assert (m is None) == (p is None)
        if m is not None:
            assert m <= p, (m, p)
    assert set(res) == {"outputs", "reference", "match", "noise", "params", "time_s"}
    assert {"N", "log_q", "t", "security_bits"} <= set(res["params"])  # DESIGN.md keys, more may be added


def all_ops(elem: str = "i16", n: int = 8) -> Program:
    b = Builder("all_ops")
    sec, pub = Type((n,), elem, True), Type((n,), elem, False)
    x, y, p = b.arg("x", sec), b.arg("y", sec), b.arg("p", pub)
    s = b.arg("s", Type((), elem, True))
    c = b.const(tuple(range(1, n + 1)), pub)
    m = b.mul(x, y)
    r = b.rotate(b.add(m, x), 3)
    u = b.sub(b.mul(r, c), b.neg(y))
    v = b.add(b.mul(p, x), b.sub(c, y))
    e0, e5 = b.extract(u, 0), b.extract(v, n - 3)
    ins = b.insert(b.mul(e0, s), b.insert(e5, u, 1), 2)
    fe = b.from_elements([e5, b.extract(x, 1), b.const(4, Type((), elem, False)), s] * (n // 4), sec)
    sp = b.splat(b.add(e0, s), sec)
    mixed = b.add(b.add(ins, fe), b.mul(sp, b.empty(pub)))
    em = b.insert(e0, b.empty(pub), n - 1)
    return b.finish([mixed, b.mul(e0, e5), em, sp])


def management(elem: str = "i16") -> Program:
    b = Builder("mgmt")
    ty = Type((4,), elem, True)
    x, y = b.arg("x", ty), b.arg("y", ty)
    m = b.unary("relinearize", b.mul(x, y))
    ms = b.unary("modswitch", m)
    m2 = b.unary("relinearize", b.mul(ms, x))  # x is one level higher: aligned by the executor
    boot = b.unary("bootstrap", m2)
    rn = b.unary("reduce_noise", b.add(boot, b.unary("rescale", y)))
    return b.finish([rn, b.add(m2, b.mul(x, x))])


def noisy_scalars(elem: str = "i5") -> Program:
    b = Builder("noisy", style="noisy")
    pt = Type((), elem, False)
    a, c = b.arg("a", pt), b.arg("c", pt)
    ea, ec = b.unary("encode", a), b.unary("encode", c)
    p = b.mul(b.add(ea, ec), ea)
    q = b.unary("reduce_noise", b.mul(p, p))
    d = b.unary("decode", q)
    return b.finish([d, b.add(d, a), b.unary("decode", b.sub(ea, ec))])


def odd_sizes(elem: str = "i16", n: int = 6) -> Program:
    b = Builder("odd")
    ty = Type((n,), elem, True)
    x = b.arg("x", ty)
    r = b.rotate(x, 2)
    z = b.add(b.mul(r, x), b.rotate(x, n - 1))
    return b.finish([z, b.insert(b.extract(z, 4), x, 0), b.extract(b.rotate(z, 5), 3)])


PROGRAMS = {"all_ops": all_ops, "management": management, "noisy": noisy_scalars, "odd": odd_sizes}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("scheme", ["bgv", "ckks"])
def test_programs_match_encrypted(name: str, scheme: str) -> None:
    prog = PROGRAMS[name]("i16" if scheme == "bgv" else "f64")
    for seed in (1, 2):
        inputs = random_inputs(prog, seed, bound=100)
        res = run_program(prog, inputs, scheme, insecure=True, seed=seed)
        check(res)
        assert res["params"]["security_bits"] == 0  # small insecure N, and it says so


def test_noise_reported_and_model_consistent() -> None:
    prog = all_ops()
    params = choose_params(prog, "bgv", insecure=True)
    res = run_program(prog, random_inputs(prog, 3), "bgv", params=params, insecure=True, seed=3, noise_model="worst")
    check(res)
    pred = predict_bgv(prog, params)
    assert res["noise"]["model"] == "worst"
    assert res["noise"]["predicted_bits_per_output"][0] == round(pred[prog.results[0]], 3)
    avg = predict_bgv_average(prog, params)
    assert res["noise"]["models"]["average"]["predicted_bits_per_output"][0] == round(avg[prog.results[0]], 3)
    assert res["noise"]["models"]["worst"]["predicted_bits_per_output"][0] == round(pred[prog.results[0]], 3)
    assert res["noise"]["budget_bits"] > 0
    assert res["noise"]["ops_executed"]["rotate"] > 0
    assert res["params"]["t"] == params.t
    fprog = all_ops("f64")
    cparams = choose_params(fprog, "ckks", insecure=True)
    cpred = predict_ckks(fprog, cparams)
    assert all(v["error"] > 0 and v["level"] >= 1 for v in cpred.values())


def test_simulated_bootstraps_are_labelled() -> None:
    prog = management()
    res = run_program(prog, random_inputs(prog, 4), "bgv", insecure=True, seed=4)
    check(res)
    assert res["noise"]["bootstraps_simulated"] == 2
    assert res["noise"]["relinearize"] == "explicit"


def test_default_parameters_are_secure() -> None:
    b = Builder("small")
    ty = Type((4,), "i16", True)
    x, y = b.arg("x", ty), b.arg("y", ty)
    prog = b.finish([b.add(b.mul(x, y), b.rotate(x, 1))])
    res = run_program(prog, {"x": [1, 2, 3, 4], "y": [5, 6, 7, 8]}, "bgv")
    check(res)
    assert res["params"]["security_bits"] >= 128 and res["params"]["N"] >= 4096
    assert res["outputs"] == [[7, 15, 25, 33]]
    assert res["params"]["log_q"] <= {4096: 109, 8192: 218, 16384: 438}[res["params"]["N"]]


def test_errors_are_backend_errors() -> None:
    prog = management()
    inputs = random_inputs(prog, 5)
    small = make_params("bgv", 64, 1, insecure=True)
    with pytest.raises(BackendError, match="insecure"):
        run_program(prog, inputs, "bgv", params=small)
    with pytest.raises(BackendError, match=r"too few primes|budget"):
        run_program(prog, inputs, "bgv", params=make_params("bgv", 64, 0, insecure=True), insecure=True)
    b = Builder("wide")
    x = b.arg("x", Type((64,), "i16", True))
    wide = b.finish([b.add(x, x)])
    split = run_program(wide, {"x": list(range(64))}, "bgv", params=small, insecure=True)  # two chunks
    assert split["outputs"] == [[2 * v for v in range(64)]]
    with pytest.raises(BackendError, match="missing"):
        run_program(wide, {}, "bgv", insecure=True)
    with pytest.raises(BackendError, match="scheme"):
        run_program(wide, {"x": [1] * 64}, "tfhe", insecure=True)


def test_exhausted_budget_in_a_run_is_reported() -> None:
    b = Builder("deep")
    x = b.arg("x", Type((4,), "i16", True))
    for _ in range(3):
        x = b.mul(x, x)
    prog = b.finish([x])
    params = make_params("bgv", 64, 1, insecure=True)
    with pytest.raises(BackendError, match="noise budget exhausted"):
        run_program(prog, {"x": [3, 1, 4, 1]}, "bgv", params=params, insecure=True, seed=1)


def test_ckks_precision_is_reported() -> None:
    prog = all_ops("f64")
    res = run_program(prog, random_inputs(prog, 6), "ckks", insecure=True, seed=6)
    check(res)
    assert res["noise"]["precision_bits"] > 10
    assert all(math.isfinite(t) for t in res["noise"]["tolerance_per_output"] if t is not None)


def random_program(seed: int, elem: str) -> Program:
    """A random straight-line program over two secret 8-vectors (all op kinds, depth <= 2)."""
    shape = programs.Shape(slots=8, elem=elem, inputs=2, ops=dict.fromkeys(programs.ALL_OPS, 1.0), max_depth=2,
                           results=3, consts=tuple(range(-9, 9)), vector_consts=True)
    return programs.random_program(seed, 12, shape, name=f"rand{seed}")


@pytest.mark.parametrize("seed", range(8))
def test_random_programs_measured_below_predicted(seed: int) -> None:
    for scheme, elem in (("bgv", "i16"), ("ckks", "f64")):
        prog = random_program(seed, elem)
        res = run_program(prog, random_inputs(prog, seed, bound=1000), scheme, insecure=True, seed=seed)
        check(res)


def test_rotations_compose_when_the_key_budget_is_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    from eqsat.backend import lowering

    b = Builder("many_rots")
    ty = Type((16,), "i16", True)
    x = b.arg("x", ty)
    acc = x
    for k in range(1, 16):
        acc = b.add(acc, b.rotate(x, k))
    prog = b.finish([acc, b.extract(acc, 5)])
    params = make_params("bgv", 64, 2, insecure=True)
    key_bytes = 3 * 2 * 4 * 64 * 8
    monkeypatch.setattr(lowering, "GALOIS_KEY_BUDGET", key_bytes * (4 + 6))  # 4 direct keys, then compose
    res = run_program(prog, random_inputs(prog, 9), "bgv", params=params, insecure=True, seed=9)
    check(res)
    assert res["noise"]["ops_executed"]["rotate_composed"] >= 10
    assert res["noise"]["galois_keys"] <= 4 + 6
