"""Parameter selection: smallest N, then fewest primes, smaller BGV primes when 30-bit
ones are insecure at a ring dimension, and the average model's smaller parameters.

In: example programs (model only, nothing is encrypted except one tiny run).  Out:
assertions on ``choose_params``, ``slack_bits`` and the run report's ``params``.
"""

from __future__ import annotations

import math
from pathlib import Path

from eqsat.backend import run_program
from eqsat.backend.executor import choose_params, slack_bits
from eqsat.backend.params import HE_STANDARD, make_params
from eqsat.frontend.mlir import parse_mlir
from eqsat.interp import random_inputs
from eqsat.ir import Program

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example(name: str) -> Program:
    path = EXAMPLES / f"{name}.mlir"
    return parse_mlir(path.read_text(), str(path))[0]


def test_smaller_primes_keep_a_program_at_the_smaller_ring() -> None:
    prog = _example("dot_product_8")
    params = choose_params(prog, "bgv", noise_model="worst")
    assert params.N == 4096 and params.security_bits >= 128
    assert params.log_qp <= HE_STANDARD[4096][0]
    # three 30-bit primes (and P) are above the HE Standard bound at N = 4096
    assert HE_STANDARD[4096][0] < 4 * 30
    assert max(params.moduli) < 2**30
    slack = slack_bits(prog, params, 1.0, "worst")
    assert slack is not None and slack >= 0.0
    # one prime fewer does not fit: the chain is the shortest
    fewer = make_params("bgv", 4096, len(params.moduli) - 2, prime_bits=round(math.log2(params.moduli[0])))
    bad = slack_bits(prog, fewer, 1.0, "worst")
    assert bad is None or bad < 0.0


def test_average_model_moves_hamming_distance_to_a_smaller_ring() -> None:
    prog = _example("hamming_distance_1024")
    worst = choose_params(prog, "bgv", noise_model="worst")
    avg = choose_params(prog, "bgv", noise_model="average")
    assert (avg.N, len(avg.moduli)) < (worst.N, len(worst.moduli))
    assert avg.security_bits >= 128


def test_run_reports_primes_model_and_slack() -> None:
    prog = _example("sum_8")
    res = run_program(prog, random_inputs(prog, 1), "bgv", insecure=True, seed=1, noise_model="average")
    par = res["params"]
    assert par["noise_model"] == "average" and par["primes"] >= 1
    assert par["slack_bits"] is not None and par["slack_bits"] >= 0.0
