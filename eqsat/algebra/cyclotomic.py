"""Factoring integer polynomials with their cyclotomic factors divided out first, without sympy.

In: the coefficients of a polynomial over Z (``{exponent: coefficient}``, nonzero constant
term). Out: ``factor_list`` -- sympy's ``Poly.factor_list`` of it, the same content, factors
and order, with sympy called on the cofactor left after the cyclotomic factors only (none
when there is none); ``cyclotomic_factor_list`` -- ``(content, [(factor, multiplicity), ...])`` in
exactly the form and order of sympy's ``Poly.factor_list`` over ZZ (content signed so that the
factors are primitive with a positive leading coefficient; factors as ``{exponent:
coefficient}``, ordered by sympy's key: number of coefficients, multiplicity, dense
coefficients from the highest) -- when every irreducible factor is a cyclotomic polynomial
``Phi_d``; None otherwise (then the caller factors with sympy).

Why: the sets of rotation offsets that products over rotations of one vector build (``ProdRot``,
``eqsat.algebra.rotfactor``) are sums of powers such as ``1 + x + ... + x^(m-1)``, whose
factors are cyclotomic; sympy's Zassenhaus factorization took 5-6 ms for each of them (16 on
HEIR's 32-slot product loop: 0.08 s, a sixth of its compile time; 0.01 s now, sympy
factoring only what is left, e.g. ``x^4 - x^3 + 1`` beside ``(x + 1)(x^2 + 1)(x^8 + 1)``). Here each ``Phi_d`` with
``phi(d)`` at most the degree is tried at a primitive ``d``-th root of unity in floating point
(a filter only) and divided out exactly; irreducible factors are unique, so an exact
division down to 1 is the factorization sympy finds.
"""

from __future__ import annotations

import cmath
import math
from functools import cache

Poly = dict[int, int]


@cache
def _phi(d: int) -> int:
    """Euler's totient."""
    out, m, p = d, d, 2
    while p * p <= m:
        if m % p == 0:
            while m % p == 0:
                m //= p
            out -= out // p
        p += 1
    if m > 1:
        out -= out // m
    return out


@cache
def cyclotomic(d: int) -> tuple[int, ...]:
    """The coefficients of ``Phi_d``, lowest first: ``x^d - 1`` divided by ``Phi_e`` for every
    proper divisor ``e`` of ``d``."""
    num = [-1] + [0] * (d - 1) + [1]
    for e in range(1, d):
        if d % e == 0:
            q = _divide(num, list(cyclotomic(e)))
            assert q is not None
            num = q
    return tuple(num)


@cache
def _orders(degree: int) -> tuple[int, ...]:
    """Every ``d`` with ``phi(d) <= degree`` (``phi(d) >= sqrt(d / 2)`` bounds the search)."""
    return tuple(d for d in range(1, 2 * degree * degree + 3) if _phi(d) <= degree)


def _divide(num: list[int], den: list[int]) -> list[int] | None:
    """``num / den`` over Z (lowest coefficients first, ``den`` monic), or None if it leaves a
    remainder."""
    if len(den) > len(num):
        return None
    rem = list(num)
    dl = len(den) - 1
    out = [0] * (len(num) - dl)
    for i in range(len(out) - 1, -1, -1):
        c = rem[i + dl]
        out[i] = c
        if c:
            for j, dc in enumerate(den):
                rem[i + j] -= c * dc
    if any(rem[:dl]):
        return None
    return out


def _split(q: Poly) -> tuple[int, list[tuple[tuple[int, ...], int]], list[int]] | None:
    """(content, cyclotomic factors with multiplicities, the primitive cofactor left, lowest
    coefficient first) of ``q``; None for a zero constant term or an empty ``q``."""
    if not q or q.get(0, 0) == 0 or min(q) < 0:
        return None
    deg = max(q)
    coeffs = [q.get(k, 0) for k in range(deg + 1)]
    content = 0
    for c in coeffs:
        content = math.gcd(content, c)
    if coeffs[-1] < 0:
        content = -content
    g = [c // content for c in coeffs]
    found: list[tuple[tuple[int, ...], int]] = []
    for d in _orders(deg):
        if len(g) == 1:
            break
        phi = cyclotomic(d)
        if len(phi) > len(g):
            continue
        root = cmath.exp(2j * math.pi / d)
        value = 0j
        for c in reversed(g):
            value = value * root + c
        if abs(value) > 1e-6 * (1 + sum(abs(c) for c in g)):
            continue
        mult = 0
        while True:
            quo = _divide(g, list(phi))
            if quo is None:
                break
            g, mult = quo, mult + 1
        if mult:
            found.append((phi, mult))
    return content, found, g


def _sorted(content: int, found: list[tuple[tuple[int, ...], int]]) -> tuple[int, list[tuple[Poly, int]]]:
    # sympy's order (polyutils._sort_factors, multiple=True): length, multiplicity, then the
    # coefficients from the highest
    found.sort(key=lambda fm: (len(fm[0]), fm[1], list(reversed(fm[0]))))
    return content, [({k: c for k, c in enumerate(f) if c}, mult) for f, mult in found]


def cyclotomic_factor_list(q: Poly) -> tuple[int, list[tuple[Poly, int]]] | None:
    """See the module docstring."""
    got = _split(q)
    if got is None or got[2] != [1]:
        return None  # a factor that is not cyclotomic
    return _sorted(got[0], got[1])


def factor_list(q: Poly) -> tuple[int, list[tuple[Poly, int]]]:
    """sympy's ``Poly.factor_list`` of ``q`` over ZZ (same content, factors and order): the
    cyclotomic factors divided out here, sympy's factorization for the cofactor only (a
    smaller degree) when one is left. An irreducible factor of the cofactor is never
    cyclotomic (those are all out), so the two lists merge without repeats."""
    got = _split(q)
    if got is None:
        return _sympy(q)
    content, found, rest = got
    if rest != [1]:
        c, more = _sympy(dict(enumerate(rest)))
        assert c == 1  # the cofactor is primitive with a positive leading coefficient
        found += [(tuple(f.get(k, 0) for k in range(max(f) + 1)), m) for f, m in more]
    return _sorted(content, found)


def _sympy(q: Poly) -> tuple[int, list[tuple[Poly, int]]]:
    import sympy

    x = sympy.Symbol("x")
    content, fl = sympy.Poly({(k,): c for k, c in q.items() if c}, x, domain="ZZ").factor_list()
    return int(content), [({k[0]: int(c) for k, c in f.terms()}, m) for f, m in fl]
