"""The Python API in the shape of HEIR's frontend: typed secret and plaintext arguments,
plaintext weight vectors (lists, numpy arrays, ``eqsat.vector``), the compiled function
callable in the clear, encrypted step by step and end to end, early errors, a clean
``dir(eqsat)``."""

from __future__ import annotations

import numpy as np
import pytest

import eqsat
from eqsat import I16, Secret, Tensor


def test_compiled_dot_product_with_plaintext_weights() -> None:
    @eqsat.compile(scheme="bgv")
    def dot(x: eqsat.secret_vector(8), w: eqsat.plain_vector(8)):  # type: ignore[no-untyped-def, valid-type]
        return sum((x * w)[i] for i in range(8))

    x, w = [1, 2, 3, 4, 5, 6, 7, 8], list(range(8))
    want = sum(a * b for a, b in zip(x, w, strict=True))
    assert "not optimized" in repr(dot) and len(repr(dot)) < 200
    assert dot.original(np.array(x), np.array(w)) == want  # the Python function as written
    assert dot(x, w) == want  # the optimized program, in the clear
    assert dot.optimize() is dot
    assert "optimized: cost" in repr(dot)
    table = dot.stats()
    assert "rotate" in table and "cost" in table
    assert dot.report["after"]["cost"] <= dot.report["before"]["cost"]
    cx = dot.encrypt_x(x)
    out = dot.eval(cx, w)
    assert dot.decrypt_result(out) == want
    assert dot.encrypt_run_decrypt(np.array(x), np.array(w)) == want
    with pytest.raises(AttributeError):
        dot.encrypt_nothing  # noqa: B018


def test_weights_as_list_array_and_vector() -> None:
    W = np.arange(8)

    @eqsat.compile()
    def f(x: eqsat.secret_vector(8)):  # type: ignore[no-untyped-def, valid-type]
        return x * W + W * x + eqsat.vector(W) * x + [1] * 8 * (x * 0 + 1)

    xs = list(range(8))
    assert f(xs) == [3 * i * i + 1 for i in xs]
    with pytest.raises(ValueError, match="3 values"):
        eqsat.compile(x=eqsat.secret_vector(8))(lambda x: x * [1, 2, 3])


def test_bad_types_fail_early_and_dir_is_clean() -> None:
    with pytest.raises(ValueError, match="banana"):
        eqsat.secret_vector(8, "banana")
    with pytest.raises(ValueError, match="length"):
        eqsat.plain_vector(0)
    names = dir(eqsat)
    assert "Any" not in names and "annotations" not in names
    assert {"compile", "plain_vector", "secret_vector", "optimize", "program", "run"} <= set(names)


def test_old_program_api_unchanged() -> None:
    @eqsat.program(x=eqsat.secret_vector(8))
    def total(x):  # type: ignore[no-untyped-def]
        return sum(x[i] for i in range(8))

    res = eqsat.optimize(total)
    assert res.report["after"]["ops"].get("rotate") == 3


def test_heir_py_spelling_scalar_quickstart() -> None:
    """heir_py's README quickstart, typed and called the way heir_py writes it."""
    @eqsat.compile()  # defaults to scheme="bgv", as heir_py's
    def func(x: Secret[I16], y: Secret[I16]):  # type: ignore[no-untyped-def, valid-type]
        sum_ = x + y
        diff = x - y
        mul = x * y
        expression = sum_ * diff + mul
        deadcode = expression * mul  # noqa: F841 -- dead code, as in heir_py's example
        return expression

    func.setup()
    enc_x, enc_y = func.encrypt_x(7), func.encrypt_y(8)
    result = func.decrypt_result(func.eval(enc_x, enc_y))
    assert result == func.original(7, 8) == (7 + 8) * (7 - 8) + 7 * 8
    assert "mul" in func.stats()


def test_heir_py_spelling_tensor_with_plaintext_weights() -> None:
    @eqsat.compile(scheme="bgv")
    def dot(x: Secret[Tensor[[8], I16]], w: Tensor[[8], I16]):  # type: ignore[no-untyped-def, valid-type]
        return sum((x * w)[i] for i in range(8))

    assert [t.secret for _, t in dot.program.args] == [True, False]
    x, w = list(range(1, 9)), [3, 1, 4, 1, 5, 9, 2, 6]
    assert dot.encrypt_run_decrypt(x, w) == sum(a * b for a, b in zip(x, w, strict=True))
    assert repr(Secret[Tensor[[8], I16]]) == "Secret[Tensor[[8], I16]]"
    with pytest.raises(TypeError, match="element type"):
        Tensor[[8], int]  # type: ignore[misc]
    with pytest.raises(TypeError, match="Secret"):
        Secret[8]  # type: ignore[misc]
