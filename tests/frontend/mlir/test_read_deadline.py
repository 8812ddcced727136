"""--time-limit bounds reading the input too (issue 13): xDSL's parser, the verifier and the
lowering stop at the deadline with a located ``ReadTimeLimit``; the CLI turns it into one
line naming the stop stage, exit 2.  No timed assertions: the deadlines are already past or
far shorter than reading the generated program can take."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from eqsat.cli import main
from eqsat.frontend.mlir import MLIRError, ReadTimeLimit, parse_mlir
from eqsat.frontend.mlir.parse import parse_module
from eqsat.frontend.mlir.to_ir import lower_module


def chain(n: int) -> str:
    """A straight-line program of ``n`` scalar ops."""
    lines = ["func.func @big(%x: i16, %y: i16) -> i16 {"]
    prev, other = "%x", "%y"
    for i in range(n):
        op = ("arith.addi", "arith.muli", "arith.subi")[i % 3]
        lines.append(f"  %v{i} = {op} {prev}, {other} : i16")
        prev, other = f"%v{i}", prev
    lines += [f"  return {prev} : i16", "}"]
    return "\n".join(lines) + "\n"


def test_parsing_stops_at_a_past_deadline() -> None:
    with pytest.raises(ReadTimeLimit) as exc:
        parse_mlir(chain(50), "big.mlir", deadline=time.perf_counter())
    e = exc.value
    assert isinstance(e, MLIRError) and e.phase == "parse"
    assert (e.line, e.lines) == (1, 53)
    assert "while reading the input (parsing, line 1 of 53)" in e.message


def test_lowering_stops_at_the_deadline() -> None:
    parsed = parse_module(chain(20), "p.mlir")
    parsed.deadline = 0.0  # passed once parsing and verifying are done
    with pytest.raises(ReadTimeLimit) as exc:
        lower_module(parsed)
    assert exc.value.phase == "lower"
    assert "(lowering, line 2 of 23)" in exc.value.message


def test_no_deadline_reads_everything() -> None:
    prog = parse_mlir(chain(30), "p.mlir")[0]
    assert len(prog.live()) >= 30


def test_cli_time_limit_stops_a_large_input_while_parsing(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    # 5,000 ops take seconds in xDSL's parser; the limit is a millisecond
    src = tmp_path / "big.mlir"
    src.write_text(chain(5000))
    code = main(["optimize", str(src), "--time-limit", "0.001", "--json"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{src}:")
    assert ": error: --time-limit 0.001 s ran out while reading the input" in lines[0]
    assert "stop stage: parse" in lines[0] and "of 5003)" in lines[0]


def test_the_command_counts_its_budget_from_process_start() -> None:
    from eqsat.cli import _process_start

    started = _process_start()
    assert started is None or started <= time.perf_counter()
