"""Rotation polynomials: the algebra behind the slot rewrite rules (pure Python).

A linear combination of rotations of ONE vector ``v`` with ``n`` slots,
``L = sum_k c_k * rot(v, k)`` with ``rot(v, k)[i] = v[(i + k) mod n]``, is the polynomial
``P(rho) = sum_k c_k rho^k`` of the ring ``Z[rho] / (rho^n - 1)`` applied to ``v``.

In: polynomials as ``dict[int, int]`` (offset -> nonzero coefficient) and the slot count ``n``.
Out:
* ring arithmetic (``normalize``, ``add``, ``mul``, ``shift``) with offsets always in
  ``(-n/2, n/2]``, ``apply`` on concrete lists;
* a canonical, injective and parseable string ``key`` (``parse_key`` inverts it);
* representatives up to a shift: ``shift_normal`` (shift-invariant) and ``centered``;
* factorizations and binary-method plans live in ``eqsat.algebra.rotfactor``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

Poly = dict[int, int]



# --------------------------------------------------------------------------- ring arithmetic


def norm_offset(k: int, n: int) -> int:
    """``k mod n`` as a representative in ``(-n/2, n/2]``."""
    r = k % n
    return r - n if r > n // 2 else r


def normalize(p: Poly, n: int) -> Poly:
    """Reduce offsets into ``(-n/2, n/2]``, merge equal offsets, drop zero coefficients.
    (``norm_offset`` inline: this runs for every key the rules' oracles and the loader make,
    ~1,900 calls in one request of a 32-slot sum-and-product; most get a normalized polynomial
    -- a parsed key, a product's factor --, copied after ``is_normal``'s one pass.)"""
    if is_normal(p, n):
        return dict(p)
    return _sorted_nonzero(_reduced(p, n))


def _reduced(p: Poly, n: int) -> Poly:
    """``p`` with its offsets reduced into ``(-n/2, n/2]`` and equal ones merged, in no order
    and with zero coefficients kept (``normalize`` without its sort and filter). The offset of
    ``k`` is ``(k + b) % n - b`` with ``b = n - n // 2 - 1``: one expression for ``norm_offset``."""
    b = n - n // 2 - 1
    if p and max(p) - min(p) < n:  # no two offsets are equal mod n: nothing merges
        return {(k + b) % n - b: c for k, c in p.items()}
    out: Poly = {}
    get = out.get
    for k, c in p.items():
        r = (k + b) % n - b
        out[r] = get(r, 0) + c
    return out


def _sorted_nonzero(q: Poly) -> Poly:
    """``q`` (offsets reduced, ``_reduced``) with its offsets ascending and zero terms dropped."""
    return {k: q[k] for k in sorted(q) if q[k] != 0}


def is_normal(p: Poly, n: int) -> bool:
    """Whether ``p`` is ``normalize(p, n)`` already, with its offsets in the same (ascending)
    order: one pass, no copy (a fifth of ``normalize``'s time on a 32-term polynomial)."""
    half = n // 2
    prev = half - n  # offsets lie in (half - n, half], strictly ascending
    for k, c in p.items():
        if k <= prev or k > half or c == 0:
            return False
        prev = k
    return True


def add(a: Poly, b: Poly, n: int) -> Poly:
    """``a + b`` (one ``normalize`` of the merged terms: it reduces offsets and merges them itself)."""
    merged = dict(a)
    get = merged.get
    for k, c in b.items():
        merged[k] = get(k, 0) + c
    return normalize(merged, n)


def mul(a: Poly, b: Poly, n: int) -> Poly:
    """Product in ``Z[rho]/(rho^n - 1)`` (each offset reduced as ``_reduced`` does, so the
    products need no second pass of ``normalize``)."""
    m = n - n // 2 - 1
    out: dict[int, int] = {}
    get = out.get
    for ka, ca in a.items():
        for kb, cb in b.items():
            r = (ka + kb + m) % n - m
            out[r] = get(r, 0) + ca * cb
    return _sorted_nonzero(out)


def shift(p: Poly, s: int, n: int) -> Poly:
    """Multiply by ``rho^s``."""
    return normalize({k + s: c for k, c in p.items()}, n)


def product(factors: Sequence[Poly], n: int) -> Poly:
    if not factors:
        return normalize({0: 1}, n)
    acc = normalize(factors[0], n)  # ``mul({0: 1}, factors[0], n)``
    for f in factors[1:]:
        acc = mul(acc, f, n)
    return acc


def apply(p: Poly, vec: Sequence[int], n: int) -> list[int]:
    """``sum_k c_k * rot(vec, k)`` on a concrete list of ``n`` slots."""
    if len(vec) != n:
        raise ValueError(f"vector has {len(vec)} slots, expected {n}")
    out = [0] * n
    for k, c in normalize(p, n).items():
        for i in range(n):
            out[i] += c * vec[(i + k) % n]
    return out


def direct_rotations(p: Poly, n: int) -> int:
    """Rotations needed to realize ``p`` term by term: its nonzero offsets other than 0.
    (Offsets merged mod ``n`` without ``normalize``'s sorted copy: only the count is needed; a
    normalized ``p``, as most are -- the factor lists of ``eqsat.algebra.rotfactor`` --, has one
    nonzero term per offset already.)"""
    if is_normal(p, n):
        return len(p) - (0 in p)
    merged: dict[int, int] = {}
    get = merged.get
    for k, c in p.items():
        r = k % n
        merged[r] = get(r, 0) + c
    return sum(1 for r, c in merged.items() if c != 0 and r != 0)


def factors_cost(factors: Sequence[Poly], n: int) -> int:
    return sum(direct_rotations(f, n) for f in factors)


# --------------------------------------------------------------------------- keys


def key(p: Poly, n: int) -> str:
    """Canonical compact string of ``normalize(p, n)``.

    Terms in ascending offset order, separated by ``,``: a single term ``k*c``, or a run of at
    least three consecutive terms with equal coefficient at a constant stride ``a..b/st*c``
    (greedy, left to right). The zero polynomial is ``"0"`` (no term lacks a ``*``).
    (Read from the offsets' and coefficients' lists, most keys are of normalized polynomials:
    the loader asks ~90 keys of the 16-46-term interior forms of a 32-slot sum-and-product.)
    """
    if is_normal(p, n):
        return _key_of(list(p), list(p.values()))
    ks = sorted(p)
    if ks and ks[0] >= 0 and ks[-1] < n and 0 not in p.values():
        # offsets in [0, n) (a rotation tree's forms): sorted, those above n/2 moved first
        i = bisect_right(ks, n // 2)
        cs = list(map(p.__getitem__, ks))
        return _key_of([*map((-n).__add__, ks[i:]), *ks[:i]], cs[i:] + cs[:i])
    q = _reduced(p, n)
    offs = sorted([k for k, c in q.items() if c])
    return _key_of(offs, [q[k] for k in offs])


def _key_of(offs: list[int], cs: list[int]) -> str:
    """``key`` of the normalized polynomial with offsets ``offs`` (ascending) and coefficients ``cs``."""
    m = len(offs)
    if not m:
        return "0"
    if m > 2 and offs[-1] - offs[0] == (m - 1) * (offs[1] - offs[0]) and cs.count(cs[0]) == m and (
            offs == list(range(offs[0], offs[-1] + 1, offs[1] - offs[0]))):
        return f"{offs[0]}..{offs[-1]}/{offs[1] - offs[0]}*{cs[0]}"  # one run: a progression (a reduction's)
    parts: list[str] = []
    i = 0
    while i < m:
        c = cs[i]
        if i + 2 < m and cs[i + 1] == c and cs[i + 2] == c:
            st = offs[i + 1] - offs[i]
            if offs[i + 2] - offs[i + 1] == st:
                j = i + 2
                while j + 1 < m and cs[j + 1] == c and offs[j + 1] - offs[j] == st:
                    j += 1
                parts.append(f"{offs[i]}..{offs[j]}/{st}*{c}")
                i = j + 1
                continue
        parts.append(f"{offs[i]}*{c}")
        i += 1
    return ",".join(parts)


def parse_key(s: str, n: int) -> Poly:
    """Inverse of ``key`` (also accepts any well-formed, non-greedy term list); ``ValueError`` otherwise."""
    if s == "0":
        return {}
    out: Poly = {}
    for part in s.split(","):
        left, star, coef = part.rpartition("*")
        if not star:
            raise ValueError(f"bad term {part!r} in key {s!r}")
        c = int(coef)
        if "/" in left:
            rng, _, st_s = left.partition("/")
            a_s, dots, b_s = rng.partition("..")
            if not dots:
                raise ValueError(f"bad run {part!r} in key {s!r}")
            a, b, st = int(a_s), int(b_s), int(st_s)
            if st <= 0 or (b - a) % st != 0 or b < a:
                raise ValueError(f"bad run {part!r} in key {s!r}")
            offsets = range(a, b + 1, st)
        else:
            offsets = range(int(left), int(left) + 1)
        for k in offsets:
            if k in out:
                raise ValueError(f"offset {k} repeated in key {s!r}")
            out[k] = c
    return out if is_normal(out, n) else normalize(out, n)  # a key's own terms: most are normalized


# --------------------------------------------------------------------------- representatives


def cyclic_support(p: Poly, n: int) -> tuple[list[int], list[int]]:
    """Support sorted in ``[0, n)`` and the gap before each element (cyclically)."""
    a = sorted([k % n for k in p])
    gaps = [a[i] - a[i - 1] if i else a[0] + n - a[-1] for i in range(len(a))]
    return a, gaps


def _least_rotation(seq: Sequence[tuple[int, int]]) -> int:
    """Start index of the lexicographically least rotation of ``seq`` (two-pointer, O(m)); 0 for
    a constant ``seq`` (a progression's gaps and coefficients: the loop below answers 0 too)."""
    m = len(seq)
    if not m or seq.count(seq[0]) == m:
        return 0
    i, j, k = 0, 1, 0
    while i < m and j < m and k < m:
        x, y = seq[(i + k) % m], seq[(j + k) % m]
        if x == y:
            k += 1
            continue
        if x > y:
            i += k + 1
        else:
            j += k + 1
        if i == j:
            j += 1
        k = 0
    return min(i, j)


def shift_normal_start(p: Poly, n: int) -> int | None:
    """The offset in ``[0, n)`` of ``p`` that ``shift_normal`` moves to 0 (``p``'s shift is
    ``norm_offset`` of it); None for the zero polynomial. Without the shifted copy: whether a
    key is its own shift-normal core (``slot_oracles.canonical``) needs only this."""
    q0 = normalize(p, n)
    if not q0:
        return None
    return _shift_normal_start_of(q0, *cyclic_support(q0, n), n)


def _shift_normal_start_of(q0: Poly, a: list[int], gaps: list[int], n: int) -> int:
    """``shift_normal_start`` of the nonzero normalized ``q0`` with its ``cyclic_support`` ``a``, ``gaps``."""
    half = n // 2  # ``norm_offset`` inline: a[i] is in [0, n)
    seq = [(-g, q0[x - n if x > half else x]) for x, g in zip(a, gaps, strict=True)]
    return a[_least_rotation(seq)]


def own_core(p: Poly, n: int) -> bool:
    """Whether ``p`` is its own shift-normal core or its own centered core (``shift_normal_start``
    is 0 or ``centered_shift`` is 0 mod ``n``; the zero polynomial is), from one normalization
    and one ``cyclic_support`` (``slot_oracles.canonical``)."""
    q0 = p if is_normal(p, n) else normalize(p, n)  # read only: no copy
    if not q0:
        return True
    a, gaps = cyclic_support(q0, n)
    return not _shift_normal_start_of(q0, a, gaps, n) or _centered_shift_of(a, gaps, n) % n == 0


def shift_normal(p: Poly, n: int) -> tuple[int, Poly]:
    """``(s, q)`` with ``p == shift(q, s)`` and ``q`` the same for every shift of ``p``.

    Take the support in ``[0, n)`` in cyclic order, pair each element with (minus the gap
    before it, its coefficient) and start at the lexicographically least rotation of that cyclic
    sequence: the start (offset 0 of ``q``) follows the largest gap, so ``q``'s support read in
    ``[0, n)`` begins at 0 and has the smallest possible span; ties go to the least coefficient
    sequence. The sequence is a function of the shift orbit only, hence the invariance.
    """
    start = shift_normal_start(p, n)
    if start is None:
        return 0, {}
    return norm_offset(start, n), shift(p, -start, n)


def centered_shift(p: Poly, n: int) -> int:
    """The shift ``s`` of ``centered(p, n)`` (0 for the zero polynomial), without the shifted copy."""
    q0 = normalize(p, n)
    if not q0:
        return 0
    return _centered_shift_of(*cyclic_support(q0, n), n)


def _centered_shift_of(a: list[int], gaps: list[int], n: int) -> int:
    """``centered_shift`` of a nonzero polynomial with ``cyclic_support`` ``a``, ``gaps``."""
    big = max(gaps)
    span = n - big
    best: tuple[int, int] | None = None
    for i, g in enumerate(gaps):
        if g != big:
            continue
        centers = {span // 2, span - span // 2}
        for h in centers:
            s = norm_offset(a[i] + h, n)
            cand = (abs(s), s)
            if best is None or cand < best:
                best = cand
    assert best is not None
    return best[1]


def centered(p: Poly, n: int) -> tuple[int, Poly]:
    """``(s, q)`` with ``p == shift(q, s)`` and ``max |offset of q|`` minimal.

    The support is covered by the arc complementary to a largest cyclic gap; ``q`` puts that
    arc's midpoint at 0. Ties (several largest gaps, or an odd span) go to the smallest ``|s|``,
    then the smallest ``s``.
    """
    q0 = normalize(p, n)
    if not q0:
        return 0, {}
    s = centered_shift(q0, n)
    return s, shift(q0, -s, n)


# --------------------------------------------------------------------------- arithmetic progressions


# --------------------------------------------------------------------------- rank-1 (separable 2-D)


# --------------------------------------------------------------------------- sympy (optional)


# --------------------------------------------------------------------------- factorizations


# --------------------------------------------------------------------------- binary-method plans


