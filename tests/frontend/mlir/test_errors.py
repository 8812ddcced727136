"""Malformed or unsupported MLIR gives one located line (``MLIRError``), never a traceback."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mlir_testutil import BAD, EXAMPLES

import eqsat.frontend.mlir.to_ir as lower
from eqsat.frontend.mlir import MLIRError, parse_mlir

# file -> (line, col, a fragment of the message)
CASES: dict[str, tuple[int, int, str]] = {
    "unknown_op.mlir": (3, 8, "unknown operation 'foo.frobnicate'"),
    "unterminated_string.mlir": (2, 8, "unterminated string literal"),
    "unsupported_type.mlir": (3, 8, "unknown operation 'memref.load'"),
    "unsupported_op.mlir": (3, 8, "'arith.divsi' is only supported on index values"),
    "loop_body_unsupported.mlir": (3, 10, "'arith.divui'"),
    "bad_type.mlir": (2, 37, "shape"),
    "dynamic_tensor.mlir": (1, 1, "static"),
    "nonconstant_bound.mlir": (3, 8, "loop bound '%n' is not a compile-time constant"),
    "nonconstant_index.mlir": (3, 8, "not a compile-time constant"),
    "out_of_range.mlir": (4, 10, "index 8 is out of range"),
    "out_of_range_insert.mlir": (4, 8, "index 4 is out of range"),
    "empty.mlir": (1, 1, "empty input"),
    "only_comment.mlir": (1, 1, "empty input"),
    "garbage.bin": (1, 1, "not UTF-8"),
    "not_utf8.mlir": (1, 1, "not UTF-8"),
    "nul_bytes.mlir": (1, 1, "binary"),
    "syntax_error.mlir": (2, 23, "operand expected"),
    "undefined_value.mlir": (2, 8, "undefined value '%y'"),
    "type_mismatch.mlir": (2, 23, "type"),
    "rotate_scalar.mlir": (3, 8, "tensor_ext.rotate"),
    "no_function.mlir": (1, 7, "expected func.func"),
    "return_mismatch.mlir": (2, 3, "output types"),
    "linalg_batch.mlir": (4, 8, "batch 2 is not supported"),
    "linalg_secret_weight.mlir": (3, 8, "make the weight an arith.constant"),
}


def test_every_bad_file_has_a_case() -> None:
    assert sorted(p.name for p in BAD.iterdir()) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_located(name: str) -> None:
    path = BAD / name
    line, col, fragment = CASES[name]
    with pytest.raises(MLIRError) as info:
        parse_mlir(path.read_bytes(), str(path))
    err = info.value
    assert (err.path, err.line, err.col) == (str(path), line, col)
    assert fragment in err.message
    text = str(err)
    assert "\n" not in text
    assert text == f"{path}:{line}:{col}: error: {err.message}"


def test_text_and_bytes_agree() -> None:
    path = BAD / "unknown_op.mlir"
    with pytest.raises(MLIRError) as a:
        parse_mlir(path.read_text(), "x.mlir")
    with pytest.raises(MLIRError) as b:
        parse_mlir(path.read_bytes(), "x.mlir")
    assert str(a.value) == str(b.value)


def test_default_path() -> None:
    with pytest.raises(MLIRError, match=r"^<input>:1:1: error: "):
        parse_mlir("")


def _only_mlir_errors(data: str | bytes) -> None:
    try:
        with patch.object(lower, "MAX_UNROLLED_OPS", 20_000):  # a mutated bound may ask for millions
            parse_mlir(data, "fuzz.mlir")
    except MLIRError as err:
        assert "\n" not in str(err)
        assert err.line >= 1 and err.col >= 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200))
def test_random_bytes_raise_only_mlir_errors(data: bytes) -> None:
    _only_mlir_errors(data)


def test_unterminated_string_after_dollar_does_not_hang() -> None:
    text = SEED_TEXT[:172] + '$"' + SEED_TEXT[195:]
    with pytest.raises(MLIRError, match="unterminated string literal"):
        parse_mlir(text, "fuzz.mlir")


SEED_TEXT = (EXAMPLES / "secret_generic_sum.mlir").read_text() + (
    EXAMPLES / "noisy_branching.mlir"
).read_text()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(SEED_TEXT) - 1), st.integers(0, 40), st.text(max_size=6))
def test_mutated_examples_raise_only_mlir_errors(at: int, cut: int, insert: str) -> None:
    # this test found xDSL's exponential string-literal regex (see front.check_string_literals)
    _only_mlir_errors(SEED_TEXT[:at] + insert + SEED_TEXT[at + cut :])
