"""One integer semantics: arithmetic mod t, the declared width a promise (issue 13, item 1).

Constant folding in the frontend, the rules, the interpreter, the printer and the executor
agree; a program whose meaning depends on wrapping at the declared width is refused (or,
when only the optimizer would need such a constant, left in its source form with a warning).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import eqsat
from eqsat.cli import main
from eqsat.frontend.mlir import parse_mlir, print_mlir
from eqsat.interp import PLAINTEXT_MODULUS, WidthError, evaluate, fits, results_equal, width_violations
from eqsat.ir import Builder, Type

PROGS = Path(__file__).resolve().parent / "programs"


def test_fold_wrap16_is_refused_at_the_folding_op(capsys: pytest.CaptureFixture[str]) -> None:
    path = PROGS / "fold_wrap16.mlir"
    assert main(["optimize", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"{path}:4:")
    assert "-65536" in err and "does not fit i16" in err


def test_fold_within_width_is_exact_and_round_trips() -> None:
    text = (PROGS / "fold_wrap16.mlir").read_text().replace("-32768", "-300")
    prog = parse_mlir(text)[0]
    res = eqsat.optimize(prog, scheme="bgv")
    again = parse_mlir(res.to_mlir())[0]
    for x in (0, 5, 123, 40000):
        ref = evaluate(prog, {"x": x}, PLAINTEXT_MODULUS)
        assert results_equal(ref, evaluate(again, {"x": x}, PLAINTEXT_MODULUS), PLAINTEXT_MODULUS)
        assert ref == [(x * -600) % PLAINTEXT_MODULUS]


def test_optimizer_never_prints_a_wrapped_constant() -> None:
    # (x * 20) * 20 in i8: folding would need 400, which i8 cannot hold
    prog = parse_mlir((PROGS / "assoc8.mlir").read_text())[0]
    res = eqsat.optimize(prog, scheme="bgv")
    assert "warnings" in res.report and "400" in res.report["warnings"][0]  # type: ignore[index]
    assert not width_violations(res.program)
    again = parse_mlir(res.to_mlir())[0]
    for x in (1, 3, 7):
        assert evaluate(again, {"x": x}, PLAINTEXT_MODULUS) == evaluate(prog, {"x": x}, PLAINTEXT_MODULUS)


def test_printer_refuses_instead_of_wrapping() -> None:
    b = Builder("f")
    x = b.arg("x", Type((), "i16", True))
    out = b.mul(x, b.const(-65536, Type((), "i16", False)))
    with pytest.raises(WidthError, match="-65536 does not fit i16"):
        print_mlir(b.finish([out]))


def test_width_promise_helpers() -> None:
    assert fits(-32768, "i16") and fits(32767, "i16") and not fits(32768, "i16") and not fits(-32769, "i16")
    assert fits(10**30, "f32") and fits(10**30, "index")
    b = Builder("g")
    x = b.arg("x", Type((4,), "i8", True))
    c = b.const((100, 2, 3, 4), Type((4,), "i8", False))
    cc = b.mul(c, c)  # 10000 does not fit i8
    prog = b.finish([b.mul(x, cc)])
    assert width_violations(prog) == [(cc, 10000)]
