"""Oracles of the ``linmap`` rules: how a linear slot map is realized, one step per rule.

In: a linear-map handle (``eqsat.algebra.linmap``; possibly pinned to a plan) and the slot
count.  Out: handles of the parts (strings, ``""``: no result) and offsets (non-negative
ints).  Every function is total and memoized; a handle of another slot count than ``n``
gives no result.

A pinned plan ``y = sum_g rot(sum_s P_(g,s) * rot(v, s), g)`` is taken apart as:
``halves`` (two maps, each with half of the giant steps, same pin; or, with one giant
step 0, half of the terms), ``giant`` (one giant step g != 0: ``rot(inner, g)`` with the
inner map's diagonals pre-rotated by g, pinned direct), and ``single`` (one diagonal:
``P * rot(v, s)``, ``P`` a plaintext vector handle or ``"ones"``).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from eqsat.algebra import linmap, rotpoly


def _resolve(h: str, n: int) -> tuple[linmap.LinearMap, linmap.Plan | None] | None:
    try:
        m, plan = linmap.resolve(h)
    except KeyError:
        return None
    return (m, plan) if m.n == n else None


@cache
def plan_handle(h: str, n: int, j: int) -> str:
    """The j-th pinned plan (``eqsat.algebra.linmap.pinned_candidates``) of an unpinned handle
    with two or more diagonals, else ``""``."""
    r = _resolve(h, n)
    if r is None or r[1] is not None or len(r[0].diags) < 2:
        return ""
    cands = linmap.pinned_candidates(h)
    return cands[j] if j < len(cands) else ""


def _register_pinned(m: linmap.LinearMap, pin: str) -> str:
    return linmap.register(m) + pin


@cache
def _halves(h: str, n: int) -> tuple[str, str]:
    r = _resolve(h, n)
    if r is None or r[1] is None:
        return "", ""
    m, plan = r[0], r[1]
    pin = linmap.split_handle(h)[1]
    if plan.kind == "bsgs":
        gs = linmap.giant_steps(m, plan.step, pin.endswith("c"))
    else:
        gs = np.zeros(len(m.offsets), dtype=np.int64)
    giants = sorted(set(gs.tolist()))
    if len(giants) >= 2:
        first = set(giants[: len(giants) // 2])
        a = [d for d, g in zip(m.offsets, gs.tolist(), strict=True) if g in first]
    elif len(m.offsets) >= 2 and giants == [0]:
        a = m.offsets[: len(m.offsets) // 2]
    else:
        return "", ""
    b = [d for d in m.offsets if d not in set(a)]
    return _register_pinned(linmap.restrict(m, a), pin), _register_pinned(linmap.restrict(m, b), pin)


def half(h: str, n: int, which: int) -> str:
    """One of two pinned maps summing to ``h`` (split by giant step, else by term), or ``""``."""
    return _halves(h, n)[which]


@cache
def _giant(h: str, n: int) -> tuple[int, str]:
    r = _resolve(h, n)
    if r is None or r[1] is None:
        return 0, ""
    plan = r[1]
    if len(plan.giants) != 1 or plan.giants[0][0] == 0:
        return 0, ""
    g, terms = plan.giants[0]
    inner = {s: (np.ones(n, dtype=np.int64) if p is None else p) for s, p in terms}
    return g, _register_pinned(linmap.from_diagonals(inner, n), "@d")


def giant_offset(h: str, n: int) -> int:
    """g when ``h`` is one giant step g != 0 of its plan (0 otherwise)."""
    return _giant(h, n)[0]


def giant_inner(h: str, n: int) -> str:
    """The inner map of one giant step (pre-rotated diagonals), pinned direct, or ``""``."""
    return _giant(h, n)[1]


@cache
def _single(h: str, n: int) -> tuple[int, str]:
    r = _resolve(h, n)
    if r is None or len(r[0].diags) != 1:
        return 0, ""
    ((s, vec),) = r[0].diags.items()
    return s, ("ones" if np.all(vec == 1) else linmap.register_vector(vec))


def single_offset(h: str, n: int) -> int:
    """The offset of a one-diagonal map (0 otherwise: rules guard with ``single_coef``)."""
    return _single(h, n)[0]


def single_coef(h: str, n: int) -> str:
    """``"ones"`` or the plaintext-vector handle of a one-diagonal map's coefficients, else ``""``."""
    return _single(h, n)[1]


def single_at(h: str, n: int, zero: int) -> str:
    """``"y"`` when ``h`` is one diagonal at offset 0 (``zero`` = 1) / at an offset != 0 (``zero`` = 0)."""
    s, c = _single(h, n)
    return "y" if c and ((s == 0) == bool(zero)) else ""


@cache
def uniform_key(h: str, n: int) -> str:
    """The rotation-polynomial key of an unpinned map whose every diagonal is one integer
    repeated (shift-invariant: a ``LinRot``), else ``""``."""
    r = _resolve(h, n)
    if r is None or r[1] is not None or not r[0].diags:
        return ""
    p = linmap.uniform_poly(r[0])
    if p is None:
        return ""
    return rotpoly.key(rotpoly.normalize(p, n), n)
