"""The cyclotomic factorization against sympy's: the same content, factors and order whenever
it answers, and an answer for every product of cyclotomic polynomials."""

from __future__ import annotations

import random

import pytest

from eqsat.algebra.cyclotomic import cyclotomic, cyclotomic_factor_list, factor_list

sympy = pytest.importorskip("sympy")
X = sympy.Symbol("x")


def _sympy(q: dict[int, int]) -> tuple[int, list[tuple[dict[int, int], int]]]:
    content, fl = sympy.Poly({(k,): c for k, c in q.items()}, X, domain="ZZ").factor_list()
    return int(content), [({k[0]: int(c) for k, c in f.terms()}, m) for f, m in fl]


def _mul(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for i, x in a.items():
        for j, y in b.items():
            out[i + j] = out.get(i + j, 0) + x * y
    return {k: c for k, c in out.items() if c}


def test_cyclotomic_polynomials_are_sympys() -> None:
    for d in range(1, 60):
        want = sympy.Poly(sympy.cyclotomic_poly(d, X), X).all_coeffs()[::-1]
        assert list(cyclotomic(d)) == [int(c) for c in want]


def test_products_of_cyclotomics_factor_as_sympy_does() -> None:
    rng = random.Random(7)
    for _ in range(150):
        q = {0: rng.choice([1, 2, -1, -3])}
        for d in rng.sample(range(2, 40), rng.randint(1, 4)):
            phi = dict(enumerate(cyclotomic(d)))
            for _ in range(rng.randint(1, 2)):
                if max(_mul(q, phi)) <= 40:
                    q = _mul(q, phi)
        if max(q) == 0:
            continue
        got = cyclotomic_factor_list(q)
        assert got is not None, q
        assert got == _sympy(q), q


def test_other_polynomials_are_left_to_sympy_or_agree() -> None:
    rng = random.Random(3)
    answered = 0
    for _ in range(300):
        deg = rng.randint(1, 30)
        ks = {0, deg, *rng.sample(range(deg + 1), min(deg + 1, rng.randint(0, 8)))}
        q = {k: rng.choice([1, 1, -1, 2]) for k in ks}
        got = cyclotomic_factor_list(q)
        if got is not None:
            answered += 1
            assert got == _sympy(q), q
    # 1 + x + x^3 and the like are irreducible and not cyclotomic: left to sympy
    assert cyclotomic_factor_list({0: 1, 1: 1, 3: 1}) is None
    assert answered > 0


def test_factor_list_is_sympys_with_cyclotomic_factors_or_not() -> None:
    rng = random.Random(11)
    for _ in range(120):
        deg = rng.randint(1, 24)
        ks = {0, deg, *rng.sample(range(deg + 1), min(deg + 1, rng.randint(0, 6)))}
        q = {k: rng.choice([1, 1, -1, 2]) for k in ks}
        if rng.random() < 0.5:  # with cyclotomic factors beside the rest
            q = _mul(q, dict(enumerate(cyclotomic(rng.randint(2, 16)))))
        assert factor_list(q) == _sympy(q), q
    # HEIR's 32-slot product loop: x^4 - x^3 + 1 beside (x + 1)(x^2 + 1)(x^8 + 1)
    q = {0: 1, 1: 1, 2: 1, 7: 1, 8: 1, 9: 1, 10: 1, 15: 1}
    assert factor_list(q) == _sympy(q)
    assert cyclotomic_factor_list(q) is None
