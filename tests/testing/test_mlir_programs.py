"""The MLIR text generator (eqsat.testing.mlir_programs): every kind parses, and the parsed
program computes what the generator's own Python reference says (the frontend's check)."""

from __future__ import annotations

import pytest

import eqsat
from eqsat.errors import UserError
from eqsat.interp import PLAINTEXT_MODULUS, evaluate, random_inputs, results_equal
from eqsat.testing.mlir_programs import KINDS, random_text_program


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("elem", ["i16", "f32"])
def test_text_programs_parse_and_match_their_reference(kind: str, elem: str) -> None:
    generic_seen = set()
    for seed in range(6):
        tp = random_text_program(seed, kind=kind, elem=elem)
        prog = eqsat.parse_mlir(tp.text, f"<{tp.name}>")[0]
        generic_seen.add(prog.style)
        modulus = None if elem.startswith("f") else PLAINTEXT_MODULUS
        inputs = random_inputs(prog, seed, bound=50)
        want = tp.reference(dict(inputs))
        if modulus is not None:
            want = [[v % modulus for v in w] if isinstance(w, list) else w % modulus for w in want]  # type: ignore[operator, union-attr]
        assert results_equal(want, evaluate(prog, inputs, modulus), modulus), tp.text  # type: ignore[arg-type]
        assert tp.scheme == "ckks" if elem == "f32" else tp.scheme in ("bgv", "ckks")
    assert generic_seen == {"plain", "secret"}  # both plain functions and secret.generic bodies


def test_reference_catches_a_wrong_frontend() -> None:
    # the reference is computed without the frontend: a program whose text is changed
    # (a stencil's wrap-around offset) no longer matches it
    tp = next(t for t in (random_text_program(s, kind="stencil", elem="i32", generic=False) for s in range(50))
              if "arith.remui" in t.text)
    good = eqsat.parse_mlir(tp.text)[0]
    inputs = random_inputs(good, 0, bound=50)
    want = [[v % PLAINTEXT_MODULUS for v in w] for w in tp.reference(dict(inputs))]  # type: ignore[union-attr]
    assert results_equal(want, evaluate(good, inputs, PLAINTEXT_MODULUS), PLAINTEXT_MODULUS)  # type: ignore[arg-type]
    # remui -> divui: the neighbour index changes (or leaves the image: a located error)
    bad = tp.text.replace("arith.remui", "arith.divui")
    try:
        got = evaluate(eqsat.parse_mlir(bad)[0], inputs, PLAINTEXT_MODULUS)
    except UserError:
        return
    assert not results_equal(want, got, PLAINTEXT_MODULUS)  # type: ignore[arg-type]


def test_kinds_cover_the_subset() -> None:
    texts = "\n".join(random_text_program(s).text for s in range(120))
    for construct in ("affine.for", "iter_args", "step 2", "arith.remui", "secret.generic", "tensor_ext.rotate",
                      "tensor.from_elements", "tensor.insert", "tensor.splat", "dense<[", "arith.mulf",
                      "arith.negf", "f32", "i16", "i32", ":2 = "):
        assert construct in texts, construct


def test_noisy_text_programs_parse_and_match_their_reference() -> None:
    texts = []
    for seed in range(30):
        tp = random_text_program(seed, kind="noisy")
        assert (tp.kind, tp.scheme) == ("noisy", "noisy")
        prog = eqsat.parse_mlir(tp.text, f"<{tp.name}>")[0]
        assert prog.style == "noisy"
        inputs = random_inputs(prog, seed, bound=50)
        want = [w % PLAINTEXT_MODULUS for w in tp.reference(dict(inputs))]  # type: ignore[operator]
        assert results_equal(want, evaluate(prog, inputs, PLAINTEXT_MODULUS), PLAINTEXT_MODULUS), tp.text  # type: ignore[arg-type]
        texts.append(tp.text)
    joined = "\n".join(texts)
    for construct in ("noisy.encode", "noisy.add", "noisy.sub", "noisy.mul", "noisy.reduce_noise", "noisy.decode",
                      "arith.addi", "arith.muli", ": !noisy.i32, %w", "-> (", "-> !noisy.i32 {"):
        assert construct in joined, construct
