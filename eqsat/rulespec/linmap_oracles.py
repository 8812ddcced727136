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


def _resolve(h: str, n: int) -> tuple[linmap.LinearMap, str] | None:
    """The map of ``h`` and its pin (``""``: unpinned), or None (unknown handle, malformed pin,
    other slot count). The pinned plan itself is computed only where a step needs it
    (``_plan``): planning every part of a 4096 x 4096 map re-rolled all its diagonals per level."""
    base, pin = linmap.split_handle(h)
    try:
        m = linmap.lookup(base)
    except KeyError:
        return None
    if pin and _pin_step(pin) is None:
        return None
    return (m, pin) if m.n == n else None


def _pin_step(pin: str) -> tuple[int, bool] | None:
    """``(step, centered)`` of a pin (step 0: direct), None when malformed (as ``linmap.resolve``)."""
    if pin == "@d":
        return 0, False
    if pin.startswith("@b") and pin[-1:] in ("c", "f") and pin[2:-1].isdigit() and int(pin[2:-1]) >= 1:
        return int(pin[2:-1]), pin[-1] == "c"
    return None


def _plan(h: str) -> linmap.Plan:
    plan = linmap.resolve(h)[1]
    assert plan is not None  # only called on pinned handles
    return plan


@cache
def plan_handle(h: str, n: int, j: int) -> str:
    """The j-th pinned plan (``eqsat.algebra.linmap.pinned_candidates``) of an unpinned handle
    with two or more diagonals, else ``""``."""
    r = _resolve(h, n)
    if r is None or r[1] or len(r[0].diags) < 2:
        return ""
    cands = linmap.pinned_candidates(h)
    return cands[j] if j < len(cands) else ""


def _register_pinned(m: linmap.LinearMap, pin: str) -> str:
    return linmap.register(m) + pin


@cache
def _halves(h: str, n: int) -> tuple[str, str]:
    r = _resolve(h, n)
    if r is None or not r[1]:
        return "", ""
    m, pin = r
    step, centered = _pin_step(pin)  # type: ignore[misc]
    gs = linmap.giant_steps(m, step, centered) if step else np.zeros(len(m.offsets), dtype=np.int64)
    giants = sorted(set(gs.tolist()))
    if len(giants) >= 2:
        first = set(giants[: len(giants) // 2])
        a = [d for d, g in zip(m.offsets, gs.tolist(), strict=True) if g in first]
    elif len(m.offsets) >= 2 and giants == [0]:
        a = m.offsets[: len(m.offsets) // 2]
    else:
        return "", ""
    in_a = set(a)
    b = [d for d in m.offsets if d not in in_a]
    base = linmap.split_handle(h)[0]
    return linmap.register_part(base, a) + pin, linmap.register_part(base, b) + pin


def half(h: str, n: int, which: int) -> str:
    """One of two pinned maps summing to ``h`` (split by giant step, else by term), or ``""``."""
    return _halves(h, n)[which]


@cache
def _giant(h: str, n: int) -> tuple[int, str]:
    r = _resolve(h, n)
    if r is None or not r[1]:
        return 0, ""
    step, centered = _pin_step(r[1])  # type: ignore[misc]
    if not step or len(set(linmap.giant_steps(r[0], step, centered).tolist()) - {0}) != 1:
        return 0, ""  # direct plans have the one giant step 0; plan only single-giant parts
    plan = _plan(h)
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
    if r is None or r[1] or not r[0].diags:
        return ""
    p = linmap.uniform_poly(r[0])
    if p is None:
        return ""
    return rotpoly.key(rotpoly.normalize(p, n), n)
