"""Pure functions that rules call through ``L.call``/``L.call_int`` (egglog ``PyObject``).

Every function is total (egglog may evaluate a call before the guard that makes its
answer meaningful), deterministic and memoized.

In: primitive values (ints, key strings).  Out: key strings or non-negative ints;
``""`` means "no result" and rules test for it.  Every function is deterministic and
memoized, so repeated matches cost a dictionary lookup.  Polynomial keys are those of
``eqsat.algebra.rotpoly``; slot-set keys those of ``eqsat.algebra.slot_keys``.
"""

from __future__ import annotations

from functools import cache

from eqsat.algebra import rotfactor, rotpoly
from eqsat.algebra.slot_keys import parse_set_key, set_key

MAX_DIRECT_TERMS = 16  # a LinRot/ProdRot with more terms is only realized through factors


@cache
def _poly(key: str, n: int) -> dict[int, int]:
    return rotpoly.parse_key(key, n)


def _key(p: dict[int, int], n: int) -> str:
    return rotpoly.key(p, n)  # which normalizes ``p`` itself


@cache
def mono(k: int, c: int, n: int) -> str:
    """The key of ``c * rho^k``."""
    return _key({k % n: c}, n)


#: the key of 1 (``rho^0``, the set {0}) for every slot count: ``mono(0, 1, n)``, a literal in
#: the rules that compare with it (``lin-one``, ``prod-one``), so no oracle is called for it
ONE = "0*1"


@cache
def poly_add(a: str, b: str, n: int) -> str:
    """Key of a + b; ``"0"`` spelled as ``""`` never happens: the zero polynomial is ``"zero"``."""
    s = rotpoly.add(_poly(a, n), _poly(b, n), n)
    return _key(s, n) if s else "zero"


@cache
def poly_sub(a: str, b: str, n: int) -> str:
    s = rotpoly.add(_poly(a, n), {k: -c for k, c in _poly(b, n).items()}, n)
    return _key(s, n) if s else "zero"


@cache
def poly_scale(a: str, c: int, n: int) -> str:
    if c == 0:
        return "zero"
    return _key({k: v * c for k, v in _poly(a, n).items()}, n)


@cache
def poly_shift(a: str, s: int, n: int) -> str:
    return _key(rotpoly.shift(_poly(a, n), s, n), n)


@cache
def _shift_normal(a: str, n: int) -> tuple[int, str]:
    s, q = rotpoly.shift_normal(_poly(a, n), n)
    return s % n, _key(q, n)


def normal_shift(a: str, n: int) -> int:
    """s in [0, n) with a = rho^s * normal_core(a)."""
    return _shift_normal(a, n)[0]


def normal_core(a: str, n: int) -> str:
    return _shift_normal(a, n)[1]


@cache
def _centered(a: str, n: int) -> tuple[int, str]:
    s, q = rotpoly.centered(_poly(a, n), n)
    return s % n, _key(q, n)


def centered_shift(a: str, n: int) -> int:
    return _centered(a, n)[0]


def centered_core(a: str, n: int) -> str:
    return _centered(a, n)[1]


@cache
def canonical(a: str, n: int) -> str:
    """``"y"`` when ``a`` is its own shift-normal core or its own centered core.

    Realization rules (split, factor) only fire on canonical keys: every other shift of
    a polynomial is one rotation of a canonical one, which keeps the e-graph small.
    (Only the two shifts are computed, not the cores' keys: most keys asked are never asked
    for their cores, ``normal_core``/``centered_core``.)
    """
    return "y" if rotpoly.own_core(_poly(a, n), n) else ""


@cache
def splits(a: str, n: int) -> str:
    """``"y"`` when ``a`` is canonical or has a term at offset 0.

    ``lin-split`` fires on these keys. A polynomial with
    a term at offset 0 reads its base in place, so realizing it term by term can take one
    rotation fewer than rotating its canonical core: ``v - rot(v, -2)`` is one rotation,
    ``rot(rot(v, 2) - v, -2)`` two. At most one shift per term has a term at 0, so the
    e-graph gains at most that many realizations per polynomial (and only within
    ``MAX_DIRECT_TERMS``: ``half`` refuses bigger ones). Not for ``prod-split``: product sets
    merge into many sets that hold offset 0 (``rr_product_loop_32``: 1,205 -> 2,382 e-nodes).
    """
    if canonical(a, n):
        return "y"
    return "y" if any(k % n == 0 for k in _poly(a, n)) else ""


@cache
def progression(a: str, n: int) -> str:
    """``"y"`` when ``a`` is an equal-coefficient arithmetic progression (a reduction)."""
    return "y" if rotfactor.find_ap(_poly(a, n), n) is not None else ""


@cache
def nterms(a: str, n: int) -> int:
    return len(_poly(a, n))


@cache
def _single(a: str, n: int) -> tuple[int, int] | None:
    """``(k mod n, c)`` when ``a`` is one term ``c * rho^k``, else None (``single`` and the
    oracles reading it, without parsing its text at every call)."""
    p = _poly(a, n)
    if len(p) != 1:
        return None
    ((k, c),) = p.items()
    return k % n, c


@cache
def single(a: str, n: int) -> str:
    """``"k c"`` when ``a`` is one term ``c * rho^k``, else ``""``."""
    t = _single(a, n)
    return "" if t is None else f"{t[0]} {t[1]}"


def single_offset(a: str, n: int) -> int:
    """Offset in [0, n) of a single-term key (0 for any other key: rules guard with single_is)."""
    t = _single(a, n)
    return 0 if t is None else t[0]


def single_abs_coef(a: str, n: int) -> int:
    """|c| of a single-term key ``c * rho^k`` (0 for any other key)."""
    t = _single(a, n)
    return 0 if t is None else abs(t[1])


def single_sign(a: str, n: int) -> str:
    """``"+"`` for a single term with a positive coefficient, else ``""``."""
    t = _single(a, n)
    return "+" if t is not None and t[1] > 0 else ""


def single_is(a: str, n: int, c: int) -> str:
    """``"y"`` when ``a`` is a single term with coefficient ``c``."""
    t = _single(a, n)
    return "y" if t is not None and t[1] == c else ""


def half(a: str, n: int, which: int) -> str:
    """Split a polynomial of 2..MAX_DIRECT_TERMS terms in two halves (by offset)."""
    return _halves(a, n)[which]


@cache
def _halves(a: str, n: int) -> tuple[str, str]:
    """Both halves of ``half`` from one sort (the rules and the loader ask for both)."""
    p = _poly(a, n)
    if not 2 <= len(p) <= MAX_DIRECT_TERMS:
        return "", ""
    items = sorted(p.items())
    m = len(items) // 2
    return _key(dict(items[:m]), n), _key(dict(items[m:]), n)


@cache
def _complement(a: str, n: int) -> tuple[str, str]:
    """``(c * J, p - c * J)`` for ``J`` the sum of all ``n`` rotations and ``c`` the coefficient
    that more than half of the ``n`` offsets share (zero offsets included), when ``c != 0`` and
    ``p != c * J``; else ``("", "")``. The remainder has fewer terms than ``p`` and ``c * J``
    is a full reduction (``log2 n`` rotations): a sum of all slots but a few, or a chain of
    subtractions ``v0 - v1 - ... = 2 v0 - sum(v)``."""
    p = _poly(a, n)  # normalized: one term per offset, offsets ascending in (n/2 - n, n/2]
    # the coefficients' counts over all n offsets, from the support (the zeros: the rest); only
    # a count above n/2 matters, and at most one coefficient has one, so their order does not
    counts: dict[int, int] = {}
    for c in p.values():
        counts[c] = counts.get(c, 0) + 1
    counts[0] = counts.get(0, 0) + n - len(p)
    c, cnt = max(counts.items(), key=lambda kv: (kv[1], -abs(kv[0])))
    if c == 0 or 2 * cnt <= n or cnt == n:
        return "", ""
    # the remainder over the offsets in their normalized order (its key needs no normalization)
    get = p.get
    rest = {k: get(k, 0) - c for k in range(n // 2 - n + 1, n // 2 + 1) if get(k, 0) != c}
    return _full(n, c), _key(rest, n)


@cache
def _full(n: int, c: int) -> str:
    """The key of ``c * J``, ``J`` the sum of all ``n`` rotations."""
    return _key(dict.fromkeys(range(n), c), n)


def complement(a: str, n: int, which: int) -> str:
    """Part ``which`` of ``_complement``: 0 the full reduction ``c * J``, 1 the remainder."""
    return _complement(a, n)[which]


@cache
def _factor_pairs(a: str, n: int) -> tuple[tuple[str, str], ...]:
    p = _poly(a, n)
    out: list[tuple[str, str]] = []
    for fs in rotfactor.factorizations(p, n):
        inner = fs[0]
        outer = rotpoly.product(fs[1:], n)
        # an inner factor with no term at offset 0 (r^3 + 2r^4 + r^5 of a 3x3 stencil on a
        # 4-wide image) has no realization of its own outside a Place or Gather: it is
        # centered and its shift moved to the outer factor (the product is the same); one with
        # a term at 0 splits as it is (a reduction's 1 + r^k)
        if 0 not in inner:
            s, inner = rotpoly.centered(inner, n)
            outer = rotpoly.shift(outer, s, n)
        pair = (_key(inner, n), _key(outer, n))
        if pair not in out:
            out.append(pair)
    return tuple(out)


def factor_inner(a: str, n: int, j: int) -> str:
    """Inner factor of the j-th factorization of ``a`` (applied first), or ``""``.

    Only canonical keys are factored (the rules' own guard, checked here first: egglog
    evaluates this call before the guard, and factoring the 2,800 shifted partial-stencil
    keys of a 16x16 box blur took 9 of its 14 seconds)."""
    if not canonical(a, n):
        return ""
    fp = _factor_pairs(a, n)
    return fp[j][0] if j < len(fp) else ""


def factor_outer(a: str, n: int, j: int) -> str:
    if not canonical(a, n):
        return ""
    fp = _factor_pairs(a, n)
    return fp[j][1] if j < len(fp) else ""


@cache
def set_union(a: str, b: str) -> str:
    """Key of a ∪ b when disjoint, else ``""``."""
    sa, sb = set(parse_set_key(a)), set(parse_set_key(b))
    if sa & sb:
        return ""
    return set_key(sa | sb)


@cache
def is_full(a: str, n: int) -> str:
    return "y" if a == set_key(range(n)) else ""


def singleton(i: int) -> str:
    return set_key([i])


@cache
def ones_poly(a: str, n: int) -> str:
    """``"y"`` when every coefficient of ``a`` is 1 (a set of offsets, for ProdRot)."""
    return "y" if all(c == 1 for c in _poly(a, n).values()) else ""


@cache
def set_poly_union(a: str, b: str, n: int) -> str:
    """Union of two all-ones polynomials with disjoint supports, else ``""``."""
    pa, pb = _poly(a, n), _poly(b, n)
    if set(pa) & set(pb):
        return ""
    return _key({**pa, **pb}, n)


@cache
def _ones_factor_pairs(a: str, n: int) -> tuple[tuple[str, str], ...]:
    """Factorizations whose factors (and their products) keep all coefficients 1."""
    out = []
    for inner, outer in _factor_pairs(a, n):
        if ones_poly(inner, n) and ones_poly(outer, n):
            out.append((inner, outer))
    return tuple(out)


def ones_factor_inner(a: str, n: int, j: int) -> str:
    """Inner factor of the j-th all-ones factorization of ``a``, or ``""``; only canonical
    keys are factored, as ``factor_inner`` (the rules' guard: egglog evaluates this call
    first, and factoring the non-canonical offset sets of the 32-slot sum-and-product took a
    quarter of its saturation)."""
    if not canonical(a, n):
        return ""
    fp = _ones_factor_pairs(a, n)
    return fp[j][0] if j < len(fp) else ""


def ones_factor_outer(a: str, n: int, j: int) -> str:
    if not canonical(a, n):
        return ""
    fp = _ones_factor_pairs(a, n)
    return fp[j][1] if j < len(fp) else ""
