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
* ``factorizations``: exact products ``P = F1 * F2 * ...`` (``F1`` applied to ``v`` first) that
  need fewer rotations than realizing ``P`` directly (one rotation per nonzero offset != 0),
  from arithmetic progressions (log-step), rank-1 2-D stencils and, for small inputs, sympy's
  factorization over Z;
* ``ap_plan`` / ``run_plan``: a straight-line binary-method plan for
  ``c * sum_{j<m} rho^(s + j*st)`` with ``floor(log2 m) + popcount(m) - 1`` rotations when the
  progression contains offset 0 (one more otherwise, which is unavoidable: with no term at
  offset 0 every offset needs its own rotated copy at the end of the chain).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

Poly = dict[int, int]
PlanOp = tuple[str, str, str, int | str]

_SYMPY_MAX_TERMS = 16
_SYMPY_MAX_DEGREE = 40
_SYMPY_MAX_FACTORS = 10
_RANK1_MAX_TERMS = 256
_RANK1_MAX_WIDTHS = 64
_RANK1_ALL_PAIRS_TERMS = 64
_AP_BRUTE_MAX_TERMS = 64
_DISTRIBUTE_MAX_WORK = 200_000


# --------------------------------------------------------------------------- ring arithmetic


def norm_offset(k: int, n: int) -> int:
    """``k mod n`` as a representative in ``(-n/2, n/2]``."""
    r = k % n
    return r - n if r > n // 2 else r


def normalize(p: Poly, n: int) -> Poly:
    """Reduce offsets into ``(-n/2, n/2]``, merge equal offsets, drop zero coefficients."""
    out: Poly = {}
    for k, c in p.items():
        r = norm_offset(k, n)
        out[r] = out.get(r, 0) + c
    return {k: out[k] for k in sorted(out) if out[k] != 0}


def add(a: Poly, b: Poly, n: int) -> Poly:
    merged = dict(normalize(a, n))
    for k, c in normalize(b, n).items():
        merged[k] = merged.get(k, 0) + c
    return normalize(merged, n)


def mul(a: Poly, b: Poly, n: int) -> Poly:
    """Product in ``Z[rho]/(rho^n - 1)``."""
    out: dict[int, int] = {}
    for ka, ca in a.items():
        for kb, cb in b.items():
            r = (ka + kb) % n
            out[r] = out.get(r, 0) + ca * cb
    return normalize(out, n)


def shift(p: Poly, s: int, n: int) -> Poly:
    """Multiply by ``rho^s``."""
    return normalize({k + s: c for k, c in p.items()}, n)


def product(factors: Sequence[Poly], n: int) -> Poly:
    acc: Poly = {0: 1}
    for f in factors:
        acc = mul(acc, f, n)
    return normalize(acc, n)


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
    """Rotations needed to realize ``p`` term by term: its nonzero offsets other than 0."""
    return sum(1 for k in normalize(p, n) if k != 0)


def factors_cost(factors: Sequence[Poly], n: int) -> int:
    return sum(direct_rotations(f, n) for f in factors)


# --------------------------------------------------------------------------- keys


def key(p: Poly, n: int) -> str:
    """Canonical compact string of ``normalize(p, n)``.

    Terms in ascending offset order, separated by ``,``: a single term ``k*c``, or a run of at
    least three consecutive terms with equal coefficient at a constant stride ``a..b/st*c``
    (greedy, left to right). The zero polynomial is ``"0"`` (no term lacks a ``*``).
    """
    q = normalize(p, n)
    offs = list(q)
    if not offs:
        return "0"
    parts: list[str] = []
    i, m = 0, len(offs)
    while i < m:
        c = q[offs[i]]
        if (
            i + 2 < m
            and q[offs[i + 1]] == c
            and q[offs[i + 2]] == c
            and (offs[i + 1] - offs[i] == offs[i + 2] - offs[i + 1])
        ):
            st = offs[i + 1] - offs[i]
            j = i + 2
            while j + 1 < m and q[offs[j + 1]] == c and offs[j + 1] - offs[j] == st:
                j += 1
            parts.append(f"{offs[i]}..{offs[j]}/{st}*{c}")
            i = j + 1
        else:
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
    return normalize(out, n)


# --------------------------------------------------------------------------- representatives


def _cyclic_support(p: Poly, n: int) -> tuple[list[int], list[int]]:
    """Support sorted in ``[0, n)`` and the gap before each element (cyclically)."""
    a = sorted(k % n for k in p)
    gaps = [a[i] - a[i - 1] if i else a[0] + n - a[-1] for i in range(len(a))]
    return a, gaps


def _least_rotation(seq: Sequence[tuple[int, int]]) -> int:
    """Start index of the lexicographically least rotation of ``seq`` (two-pointer, O(m))."""
    m = len(seq)
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


def shift_normal(p: Poly, n: int) -> tuple[int, Poly]:
    """``(s, q)`` with ``p == shift(q, s)`` and ``q`` the same for every shift of ``p``.

    Take the support in ``[0, n)`` in cyclic order, pair each element with (minus the gap
    before it, its coefficient) and start at the lexicographically least rotation of that cyclic
    sequence: the start (offset 0 of ``q``) follows the largest gap, so ``q``'s support read in
    ``[0, n)`` begins at 0 and has the smallest possible span; ties go to the least coefficient
    sequence. The sequence is a function of the shift orbit only, hence the invariance.
    """
    q0 = normalize(p, n)
    if not q0:
        return 0, {}
    a, gaps = _cyclic_support(q0, n)
    seq = [(-gaps[i], q0[norm_offset(a[i], n)]) for i in range(len(a))]
    start = a[_least_rotation(seq)]
    return norm_offset(start, n), shift(q0, -start, n)


def centered(p: Poly, n: int) -> tuple[int, Poly]:
    """``(s, q)`` with ``p == shift(q, s)`` and ``max |offset of q|`` minimal.

    The support is covered by the arc complementary to a largest cyclic gap; ``q`` puts that
    arc's midpoint at 0. Ties (several largest gaps, or an odd span) go to the smallest ``|s|``,
    then the smallest ``s``.
    """
    q0 = normalize(p, n)
    if not q0:
        return 0, {}
    a, gaps = _cyclic_support(q0, n)
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
    s = best[1]
    return s, shift(q0, -s, n)


# --------------------------------------------------------------------------- arithmetic progressions


def find_ap(p: Poly, n: int) -> tuple[int, int, int, int] | None:
    """``(s, st, m, c)`` with ``p == c * sum_{j<m} rho^(s + j*st)`` (distinct mod n), or None.

    Detects progressions whose cyclic gaps are all equal but at most one (including full cosets
    such as the whole ring, where ``s`` is 0 if present, else the offset nearest 0), and for up to
    64 terms also progressions that wrap around the ring several times.
    """
    q = normalize(p, n)
    m = len(q)
    if m < 2 or len(set(q.values())) != 1:
        return None
    c = next(iter(q.values()))
    a, gaps = _cyclic_support(q, n)
    g = min(gaps)
    odd = [i for i, x in enumerate(gaps) if x != g]
    if not odd:  # a full coset of the subgroup generated by g
        start = min(q, key=lambda k: (abs(k), k))
        return start, norm_offset(g, n), m, c
    if len(odd) == 1:
        return norm_offset(a[odd[0]], n), norm_offset(g, n), m, c
    if m > _AP_BRUTE_MAX_TERMS:
        return None
    support = {x % n for x in q}
    a0 = a[0]
    for d in sorted({(x - a0) % n for x in a[1:]}, key=lambda d: (abs(norm_offset(d, n)), d)):
        start, steps = a0, 0
        while (start - d) % n in support and steps < m:
            start, steps = (start - d) % n, steps + 1
        if steps >= m:
            continue
        run = {(start + j * d) % n for j in range(m)}
        if run == support:
            return norm_offset(start, n), norm_offset(d, n), m, c
    return None


def _prime_factors(m: int) -> list[int]:
    out: list[int] = []
    d = 2
    while d * d <= m:
        while m % d == 0:
            out.append(d)
            m //= d
        d += 1
    if m > 1:
        out.append(m)
    return out


def _distribute_shift(factors: list[Poly], s: int, n: int) -> list[Poly] | None:
    """Factors each containing offset 0 whose product is ``rho^s * product(factors)``.

    Shifting factor ``F_i`` by ``-e_i`` with ``e_i`` in its support keeps offset 0 in it, so
    this works iff ``-s`` is a sum of one support element per factor (mod n). Returns None if
    not possible (or too expensive to decide).
    """
    if s % n == 0:
        return list(factors)
    supports = [sorted(f, key=lambda k: (abs(k), k)) for f in factors]
    reach: list[set[int]] = [set() for _ in range(len(factors) + 1)]
    reach[-1] = {0}
    work = 0
    for i in range(len(factors) - 1, -1, -1):
        work += len(supports[i]) * len(reach[i + 1])
        if work > _DISTRIBUTE_MAX_WORK:
            return None
        reach[i] = {(e + x) % n for e in supports[i] for x in reach[i + 1]}
    target = (-s) % n
    if target not in reach[0]:
        return None
    out: list[Poly] = []
    for i, f in enumerate(factors):
        e = next(e for e in supports[i] if (target - e) % n in reach[i + 1])
        target = (target - e) % n
        out.append(shift(f, -e, n))
    return out


def _with_shift(factors: list[Poly], s: int, n: int) -> list[Poly]:
    """``rho^s * product(factors)`` as a factor list, preferring factors that contain offset 0.

    Two candidates: the factors as given, and the factors each moved onto offset 0 (its offset
    nearest 0 becomes 0, the move is added to ``s``); in both ``s`` is spread over factors that
    contain 0 if possible, else it becomes a shift factor ``{s: 1}`` at the end. The cheaper
    candidate wins, ties go to fewer factors, then to the factors as given.
    """
    fs = [normalize(f, n) for f in factors]
    moved: list[Poly] = []
    s_moved = s
    for f in fs:
        if f and 0 not in f:
            e = min(f, key=lambda k: (abs(k), k))
            f = shift(f, -e, n)
            s_moved += e
        moved.append(f)
    cands: list[list[Poly]] = []
    for group, t in ((fs, s), (moved, s_moved)):
        spread = _distribute_shift(group, t, n) if all(0 in f for f in group) else None
        if spread is None:
            spread = [*group, {norm_offset(t, n): 1}] if t % n else list(group)
        cands.append(spread)
    return min(cands, key=lambda c: (factors_cost(c, n), len(c)))


def _ap_factorizations(ap: tuple[int, int, int, int], n: int) -> list[list[Poly]]:
    s, st, m, c = ap
    primes = _prime_factors(m)
    if len(primes) < 2:
        return []
    out: list[list[Poly]] = []
    for radices in (primes, primes[::-1]):
        stride, base = st, []
        for r in radices:
            base.append(normalize({j * stride: 1 for j in range(r)}, n))
            stride *= r
        for order in (base, base[::-1]):
            fs = _with_shift(order, s, n)
            out.append([*fs, {0: c}] if c != 1 else fs)
    return out


# --------------------------------------------------------------------------- rank-1 (separable 2-D)


def _rank1_split(q: Poly, width: int) -> tuple[Poly, Poly] | None:
    """``(h, u)`` with ``q == h(rho) * u(rho^width)`` as Laurent polynomials, or None.

    Offsets are read as ``width*r + col`` with ``col`` in a window of ``width`` consecutive
    columns centered (cyclically, mod ``width``) on the occupied column residues; ``h`` holds the
    column profile (primitive, first coefficient positive unless that makes every row
    coefficient negative), ``u`` the row weights.
    """
    rows: dict[int, dict[int, int]] = {}
    mid, _ = centered({k % width: 1 for k in q}, width)
    for k, c in q.items():
        col = mid + norm_offset(k - mid, width)
        rows.setdefault((k - col) // width, {})[col] = c
    if len(rows) < 2:
        return None
    cols = {col for row in rows.values() for col in row}
    if len(cols) < 2:
        return None
    pivot = rows[min(rows)]
    g = 0
    for c in pivot.values():
        g = math.gcd(g, c)
    w = {col: c // g for col, c in pivot.items()}
    if w[min(w)] < 0:
        w = {col: -c for col, c in w.items()}
    c0 = min(w)
    u: dict[int, int] = {}
    for r, row in rows.items():
        if row.keys() != w.keys() or row[c0] % w[c0] != 0:
            return None
        ur = row[c0] // w[c0]
        if any(row[col] != ur * w[col] for col in w):
            return None
        u[r] = ur
    if all(x < 0 for x in u.values()):
        u = {r: -x for r, x in u.items()}
        w = {col: -x for col, x in w.items()}
    return w, u


def _candidate_widths(q: Poly, n: int) -> list[int]:
    """Row widths to try: all pairwise offset differences for small inputs, else the smallest
    differences to the first offset (a rank-1 split of a large support has its width among those)."""
    offs = sorted(q)
    if len(offs) <= _RANK1_ALL_PAIRS_TERMS:
        return sorted({b - a for a, b in itertools.combinations(offs, 2) if 2 <= b - a <= n // 2})
    return sorted({b - offs[0] for b in offs[1:] if 2 <= b - offs[0] <= n // 2})[:_RANK1_MAX_WIDTHS]


def _expand(f: Poly, n: int, depth: int) -> list[Poly]:
    sub = _factorizations(f, n, 1, depth + 1)
    if not sub:
        return [f]
    return [g for g in sub[0] if g != {0: 1}]


def _rank1_factorizations(p: Poly, n: int, depth: int) -> list[list[Poly]]:
    if len(p) > _RANK1_MAX_TERMS or len(p) < 4:
        return []
    s, q = centered(p, n)
    out: list[list[Poly]] = []
    seen: set[tuple[str, str]] = set()
    for width in _candidate_widths(q, n):
        split = _rank1_split(q, width)
        if split is None:
            continue
        h, u = split
        hp = normalize(h, n)
        vp = normalize({width * r: c for r, c in u.items()}, n)
        ident = (key(hp, n), key(vp, n))
        if ident in seen:
            continue
        seen.add(ident)
        hs, vs = _expand(hp, n, depth), _expand(vp, n, depth)
        out.append(_with_shift(hs + vs, s, n))
        out.append(_with_shift(vs + hs, s, n))
    return out


# --------------------------------------------------------------------------- sympy (optional)


def _sympy_factorizations(p: Poly, n: int) -> list[list[Poly]]:
    """Factor ``rho^-s * p`` over Z (small inputs only) and group irreducible factors so that
    the total rotation count is minimal (DP over subsets)."""
    if len(p) > _SYMPY_MAX_TERMS or len(p) < 3:
        return []
    s, q = shift_normal(p, n)
    q_int = {k % n: c for k, c in q.items()}  # shift_normal's support starts at 0 in [0, n)
    deg = max(q_int)
    if deg > _SYMPY_MAX_DEGREE or deg >= n:
        return []
    try:
        import sympy
    except ImportError:  # pragma: no cover - sympy is a dependency of the venv
        return []
    x = sympy.Symbol("x")
    poly = sympy.Poly({(k,): c for k, c in q_int.items()}, x, domain="ZZ")
    content, fl = poly.factor_list()
    items: list[Poly] = []
    for f, mult in fl:
        coeffs = {k[0]: int(c) for k, c in f.terms()}
        items.extend([coeffs] * mult)
    if len(items) < 2 or len(items) > _SYMPY_MAX_FACTORS:
        return []
    k = len(items)
    full = (1 << k) - 1
    group_poly: dict[int, Poly] = {}
    group_cost: dict[int, int] = {}
    for mask in range(1, full + 1):
        low = mask & -mask
        idx = low.bit_length() - 1
        rest = mask ^ low
        gp = items[idx] if rest == 0 else _laurent_mul(group_poly[rest], items[idx])
        group_poly[mask] = gp
        group_cost[mask] = direct_rotations(gp, n)
    best: dict[int, tuple[int, int]] = {0: (0, 0)}
    for mask in range(1, full + 1):
        low = mask & -mask
        rest = mask ^ low
        cand: tuple[int, int] | None = None
        sub = rest
        while True:  # groups containing the lowest item: low | sub for sub subset of rest
            g = low | sub
            c = group_cost[g] + best[mask ^ g][0]
            if cand is None or c < cand[0]:
                cand = (c, g)
            if sub == 0:
                break
            sub = (sub - 1) & rest
        assert cand is not None
        best[mask] = cand
    groups: list[Poly] = []
    mask = full
    while mask:
        g = best[mask][1]
        groups.append(normalize(group_poly[g], n))
        mask ^= g
    if len(groups) < 2:
        return []
    groups.sort(key=lambda f: (direct_rotations(f, n), key(f, n)))
    c = int(content)
    if c != 1:
        groups[0] = normalize({k: c * v for k, v in groups[0].items()}, n)
    return [_with_shift(groups, s, n), _with_shift(groups[::-1], s, n)]


def _laurent_mul(a: Poly, b: Poly) -> Poly:
    out: dict[int, int] = {}
    for ka, ca in a.items():
        for kb, cb in b.items():
            out[ka + kb] = out.get(ka + kb, 0) + ca * cb
    return {k: c for k, c in out.items() if c != 0}


# --------------------------------------------------------------------------- factorizations


def factorizations(p: Poly, n: int, max_results: int = 4) -> list[list[Poly]]:
    """Exact factorizations ``p == F1 * F2 * ...`` (``F1`` applied first), cheapest first.

    Every result has at least two factors, is verified with ``mul`` and needs strictly fewer
    rotations (sum of ``direct_rotations`` of the factors) than ``p`` itself. Factors contain
    offset 0 when possible; otherwise a pure shift ``{s: 1}`` is its own factor (last).

    Methods, first that applies: an equal-coefficient arithmetic progression (prime radices
    ascending and descending, each with increasing strides innermost and with decreasing strides
    innermost, so both halving orders of a full reduction are offered); separable 2-D (rank-1)
    splits for every candidate width, factors refined recursively, both orders; sympy's
    factorization over Z with an optimal grouping of irreducible factors (small inputs only).
    Ties keep that order of discovery.
    """
    return _factorizations(normalize(p, n), n, max_results, 0)


def _factorizations(q: Poly, n: int, max_results: int, depth: int) -> list[list[Poly]]:
    base = direct_rotations(q, n)
    if base < 3 or depth > 8:  # two rotations or fewer cannot be beaten by a product
        return []
    ap = find_ap(q, n)
    if ap is not None:
        return _select(q, n, _ap_factorizations(ap, n), base, max_results)
    cands = _rank1_factorizations(q, n, depth)
    if not cands:
        cands = _sympy_factorizations(q, n)
    return _select(q, n, cands, base, max_results)


def _select(q: Poly, n: int, cands: list[list[Poly]], base: int, max_results: int) -> list[list[Poly]]:
    """Keep verified, strictly cheaper, distinct candidates; sort stably by cost."""
    good: list[tuple[int, int, list[Poly]]] = []
    seen: set[tuple[str, ...]] = set()
    for i, fs in enumerate(cands):
        fs = [f for f in fs if f != {0: 1}]
        if len(fs) < 2:
            continue
        ident = tuple(key(f, n) for f in fs)
        if ident in seen:
            continue
        cost = factors_cost(fs, n)
        if cost >= base or product(fs, n) != q:
            continue
        seen.add(ident)
        good.append((cost, i, fs))
    good.sort(key=lambda t: (t[0], t[1]))
    return [fs for _, _, fs in good[:max_results]]


# --------------------------------------------------------------------------- binary-method plans


def ap_plan(p: Poly, n: int) -> list[PlanOp] | None:
    """Straight-line plan realizing ``p = c * sum_{j<m} rho^(s + j*st)`` (``m >= 2``), else None.

    Ops: ``("rot", dst, src, k)``, ``("add", dst, a, b)``, ``("mulc", dst, a, c)``; register ``"v"``
    is the input, the last ``dst`` the result. Binary method over the bits of ``m`` from the most
    significant: a doubling step adds a rotated copy of the running window sum, a one-bit step
    adds a rotation of ``v``. Every step may extend the window to the left or to the right; the
    sides are chosen so that the final window contains offset 0 at its place in the progression
    (every ``K < m`` is a subset sum of the step lengths), so no final shift is needed when 0 is
    one of the offsets. Rotations: ``floor(log2 m) + popcount(m) - 1``, plus 1 if 0 is not.
    """
    ap = find_ap(p, n)
    if ap is None:
        return None
    s, st, m, c = ap
    offs = [(s + j * st) % n for j in range(m)]
    if 0 in offs:
        k0 = offs.index(0)
        final_shift = 0
    else:
        k0, final_shift = 0, s
    steps: list[tuple[str, int]] = []
    length = 1
    for bit in bin(m)[3:]:
        steps.append(("dbl", length))
        length *= 2
        if bit == "1":
            steps.append(("inc", 1))
            length += 1
    left = [False] * len(steps)
    remaining = k0
    for i in range(len(steps) - 1, -1, -1):
        if remaining >= steps[i][1]:
            left[i] = True
            remaining -= steps[i][1]
    assert remaining == 0
    plan: list[PlanOp] = []
    counter = itertools.count()

    def fresh() -> str:
        return f"t{next(counter)}"

    cur, lo, length = "v", 0, 1
    for (kind, amount), to_left in zip(steps, left, strict=True):
        rot = fresh()
        if kind == "dbl":
            plan.append(("rot", rot, cur, norm_offset((-amount if to_left else amount) * st, n)))
            lo -= amount if to_left else 0
            length += amount
        else:
            t = lo - 1 if to_left else lo + length
            plan.append(("rot", rot, "v", norm_offset(t * st, n)))
            lo -= 1 if to_left else 0
            length += 1
        dst = fresh()
        plan.append(("add", dst, cur, rot))
        cur = dst
    if final_shift % n:
        dst = fresh()
        plan.append(("rot", dst, cur, norm_offset(final_shift, n)))
        cur = dst
    if c != 1:
        dst = fresh()
        plan.append(("mulc", dst, cur, c))
    return plan


def plan_rotations(plan: Sequence[PlanOp]) -> int:
    return sum(1 for op in plan if op[0] == "rot")


def run_plan(plan: Sequence[PlanOp], vec: Sequence[int], n: int) -> list[int]:
    """Execute a plan on a concrete list of ``n`` slots; returns the last register written."""
    if len(vec) != n:
        raise ValueError(f"vector has {len(vec)} slots, expected {n}")
    regs: dict[str, list[int]] = {"v": list(vec)}
    last = "v"
    for op, dst, a, b in plan:
        if op == "rot":
            assert isinstance(b, int)
            src = regs[a]
            regs[dst] = [src[(i + b) % n] for i in range(n)]
        elif op == "add":
            assert isinstance(b, str)
            regs[dst] = [x + y for x, y in zip(regs[a], regs[b], strict=True)]
        elif op == "mulc":
            assert isinstance(b, int)
            regs[dst] = [b * x for x in regs[a]]
        else:
            raise ValueError(f"unknown plan op {op!r}")
        last = dst
    return list(regs[last])
