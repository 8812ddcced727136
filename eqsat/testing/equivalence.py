"""Equality of two programs on random inputs, for tests that build programs by hand.

In: two ``Program`` s over the same arguments, how many seeds, the modulus (integers mod
65537, the tests' plaintext modulus).  Out: whether their results agree on every seed's
inputs (``eqsat.interp.random_inputs``, values below 50).
"""

from __future__ import annotations

from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Program

T = 65537


def equal_on_random_inputs(a: Program, b: Program, trials: int = 3, modulus: int = T) -> bool:
    for seed in range(trials):
        inputs = random_inputs(a, seed, bound=50)
        if not results_equal(evaluate(a, inputs, modulus), evaluate(b, inputs, modulus), modulus):
            return False
    return True
