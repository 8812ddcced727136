"""The faster rotation-polynomial functions and slot oracles equal their earlier, plain forms.

``rotpoly.normalize`` (a copy for a normalized input), ``rotpoly.direct_rotations`` (the
count of a normalized input's terms), ``rotpoly.add`` (one normalization),
``rotpoly.shift_normal_start`` and ``rotpoly.centered_shift`` (the shifts without the cores),
``slot_oracles.canonical`` (from those shifts), ``slot_oracles._complement`` (the counts from
the support) and the ``single*`` oracles (from a parsed pair) are checked against the earlier
code, kept here as the reference, on random polynomials of random slot counts.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat.algebra import rotpoly
from eqsat.rulespec import slot_oracles as o

Poly = dict[int, int]


# -- the earlier code (reference) ------------------------------------------------------------
def ref_normalize(p: Poly, n: int) -> Poly:
    out: Poly = {}
    for k, c in p.items():
        r = rotpoly.norm_offset(k, n)
        out[r] = out.get(r, 0) + c
    return {k: out[k] for k in sorted(out) if out[k] != 0}


def ref_direct_rotations(p: Poly, n: int) -> int:
    merged: dict[int, int] = {}
    for k, c in p.items():
        merged[k % n] = merged.get(k % n, 0) + c
    return sum(1 for r, c in merged.items() if c != 0 and r != 0)


def ref_add(a: Poly, b: Poly, n: int) -> Poly:
    merged = dict(ref_normalize(a, n))
    for k, c in ref_normalize(b, n).items():
        merged[k] = merged.get(k, 0) + c
    return ref_normalize(merged, n)


def ref_shift_normal(p: Poly, n: int) -> tuple[int, Poly]:
    q0 = ref_normalize(p, n)
    if not q0:
        return 0, {}
    a, gaps = rotpoly.cyclic_support(q0, n)
    seq = [(-gaps[i], q0[rotpoly.norm_offset(a[i], n)]) for i in range(len(a))]
    start = a[rotpoly._least_rotation(seq)]
    return rotpoly.norm_offset(start, n), ref_normalize({k - start: c for k, c in q0.items()}, n)


def ref_centered(p: Poly, n: int) -> tuple[int, Poly]:
    q0 = ref_normalize(p, n)
    if not q0:
        return 0, {}
    a, gaps = rotpoly.cyclic_support(q0, n)
    big = max(gaps)
    span = n - big
    best: tuple[int, int] | None = None
    for i, g in enumerate(gaps):
        if g != big:
            continue
        for h in {span // 2, span - span // 2}:
            s = rotpoly.norm_offset(a[i] + h, n)
            if best is None or (abs(s), s) < best:
                best = (abs(s), s)
    assert best is not None
    return best[1], ref_normalize({k - best[1]: c for k, c in q0.items()}, n)


def ref_canonical(a: str, n: int) -> str:
    p = rotpoly.parse_key(a, n)
    return "y" if ref_shift_normal(p, n)[0] % n == 0 or ref_centered(p, n)[0] % n == 0 else ""


def ref_complement(a: str, n: int) -> tuple[str, str]:
    p: Poly = {}
    for k, c in rotpoly.parse_key(a, n).items():
        p[k % n] = p.get(k % n, 0) + c
    counts: dict[int, int] = {}
    for k in range(n):
        c = p.get(k, 0)
        counts[c] = counts.get(c, 0) + 1
    c, cnt = max(counts.items(), key=lambda kv: (kv[1], -abs(kv[0])))
    if c == 0 or 2 * cnt <= n or cnt == n:
        return "", ""
    rest = {k: p.get(k, 0) - c for k in range(n) if p.get(k, 0) != c}
    return rotpoly.key(dict.fromkeys(range(n), c), n), rotpoly.key(rest, n)


def ref_single(a: str, n: int) -> str:
    p = rotpoly.parse_key(a, n)
    if len(p) != 1:
        return ""
    ((k, c),) = p.items()
    return f"{k % n} {c}"


# -- strategies ---------------------------------------------------------------------------------
slots = st.integers(1, 40)
coefs = st.integers(-3, 3)


@st.composite
def polys(draw: st.DrawFn, n: int | None = None) -> tuple[Poly, int]:
    """A polynomial with raw offsets (any integers, repeated mod ``n``, zero coefficients)."""
    n = draw(slots) if n is None else n
    p = draw(st.dictionaries(st.integers(-2 * n, 2 * n), coefs, max_size=n + 2))
    return p, n


@st.composite
def keys(draw: st.DrawFn) -> tuple[str, int]:
    """The key of a polynomial: mostly sparse, sometimes most offsets with one coefficient
    (where ``_complement`` answers), sometimes a shift of a small one (canonical or not)."""
    n = draw(slots)
    kind = draw(st.sampled_from(["sparse", "dense", "one"]))
    if kind == "dense":
        c = draw(st.sampled_from([1, -1, 2]))
        p = dict.fromkeys(range(n), c)
        for k in draw(st.lists(st.integers(0, n - 1), max_size=max(1, n // 3))):
            p[k] = draw(coefs)
    elif kind == "one":
        p = {draw(st.integers(0, n - 1)): draw(st.sampled_from([1, -1, 2, -3]))}
    else:
        p = draw(polys(n))[0]
    return rotpoly.key(p, n), n


# -- the properties -----------------------------------------------------------------------------
@settings(max_examples=400, deadline=None)
@given(polys())
def test_normalize_equals_the_reference_and_returns_a_copy(pn: tuple[Poly, int]) -> None:
    p, n = pn
    want = ref_normalize(p, n)
    got = rotpoly.normalize(p, n)
    assert got == want and list(got) == list(want)
    again = rotpoly.normalize(got, n)  # a normalized input: the copy
    assert again == want and list(again) == list(want) and again is not got


@settings(max_examples=400, deadline=None)
@given(polys())
def test_direct_rotations_equals_the_reference(pn: tuple[Poly, int]) -> None:
    p, n = pn
    for x in (p, ref_normalize(p, n)):
        assert rotpoly.direct_rotations(x, n) == ref_direct_rotations(x, n)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_add_equals_the_reference(data: st.DataObject) -> None:
    a, n = data.draw(polys())
    b, _ = data.draw(polys(n))
    got = rotpoly.add(a, b, n)
    want = ref_add(a, b, n)
    assert got == want and list(got) == list(want)


@settings(max_examples=400, deadline=None)
@given(polys())
def test_shift_normal_and_centered_equal_the_reference(pn: tuple[Poly, int]) -> None:
    p, n = pn
    assert rotpoly.shift_normal(p, n) == ref_shift_normal(p, n)
    assert rotpoly.centered(p, n) == ref_centered(p, n)
    start = rotpoly.shift_normal_start(p, n)
    assert (start is None) == (not ref_normalize(p, n))
    if start is not None:
        assert 0 <= start < n and rotpoly.norm_offset(start, n) == ref_shift_normal(p, n)[0]
    assert rotpoly.centered_shift(p, n) == ref_centered(p, n)[0]


@settings(max_examples=400, deadline=None)
@given(keys())
def test_slot_oracles_equal_the_reference(kn: tuple[str, int]) -> None:
    a, n = kn
    assert o.canonical(a, n) == ref_canonical(a, n)
    assert o._complement(a, n) == ref_complement(a, n)
    s = ref_single(a, n)
    assert o.single(a, n) == s
    k, c = (int(x) for x in s.split()) if s else (0, 0)
    assert o.single_offset(a, n) == k
    assert o.single_abs_coef(a, n) == abs(c)
    assert o.single_sign(a, n) == ("+" if s and c > 0 else "")
    for want in (-1, 1, 2):
        assert o.single_is(a, n, want) == ("y" if s and c == want else "")


def test_complement_of_a_sum_of_all_slots_but_a_few() -> None:
    n = 16
    p = dict.fromkeys(range(n), 1)
    p[3] = 0
    p[5] = 2
    a = rotpoly.key(p, n)
    full, rest = o._complement(a, n)
    assert rotpoly.parse_key(full, n) == rotpoly.normalize(dict.fromkeys(range(n), 1), n)
    assert rotpoly.parse_key(rest, n) == rotpoly.normalize({3: -1, 5: 1}, n)
    assert o._complement(rotpoly.key({0: 1, 1: 1}, n), n) == ("", "")


def ref_ap_factorizations(ap: tuple[int, int, int, int], n: int) -> list[list[Poly]]:
    """``rotfactor._ap_factorizations`` before it skipped a palindromic radix list's second pass."""
    from eqsat.algebra import rotfactor

    s, st_, m, c = ap
    primes = rotfactor._prime_factors(m)
    if len(primes) < 2:
        return []
    out: list[list[Poly]] = []
    for radices in (primes, primes[::-1]):
        stride, base = st_, []
        for r in radices:
            base.append(rotpoly.normalize({j * stride: 1 for j in range(r)}, n))
            stride *= r
        for order in (base, base[::-1]):
            fs = rotfactor._with_shift(order, s, n)
            out.append([*fs, {0: c}] if c != 1 else fs)
    return out


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 64), st.data())
def test_ap_factorizations_select_the_same(n: int, data: st.DataObject) -> None:
    """The factorizations of an arithmetic progression (what ``factorizations`` returns) are
    those the earlier candidate list gave, for palindromic radix lists (powers of a prime) and
    others."""
    from eqsat.algebra import rotfactor

    m = data.draw(st.sampled_from([d for d in range(2, n + 1) if n % d == 0] or [n]))
    st_ = n // m * data.draw(st.sampled_from([1, -1]))
    s = data.draw(st.integers(0, n - 1))
    c = data.draw(st.sampled_from([1, 2, -1]))
    q = rotpoly.normalize({s + j * st_: c for j in range(m)}, n)
    ap = rotfactor.find_ap(q, n)
    if ap is None:
        return
    base = rotpoly.direct_rotations(q, n)
    for k in (1, 4):
        want = rotfactor._select(q, n, ref_ap_factorizations(ap, n), base, k)
        assert rotfactor._select(q, n, rotfactor._ap_factorizations(ap, n), base, k) == want
    assert rotfactor.factorizations(q, n) == rotfactor._select(q, n, ref_ap_factorizations(ap, n), base, 4)


# -- ``key`` from the offsets' lists, ``mul`` reducing as it multiplies (helper 56) ---------------
def ref_key(p: Poly, n: int) -> str:
    """``rotpoly.key`` before it read the offsets and coefficients as lists."""
    q = ref_normalize(p, n)
    offs = list(q)
    if not offs:
        return "0"
    parts: list[str] = []
    i, m = 0, len(offs)
    while i < m:
        c = q[offs[i]]
        if i + 2 < m and q[offs[i + 1]] == c and q[offs[i + 2]] == c and (
                offs[i + 1] - offs[i] == offs[i + 2] - offs[i + 1]):
            stride = offs[i + 1] - offs[i]
            j = i + 2
            while j + 1 < m and q[offs[j + 1]] == c and offs[j + 1] - offs[j] == stride:
                j += 1
            parts.append(f"{offs[i]}..{offs[j]}/{stride}*{c}")
            i = j + 1
        else:
            parts.append(f"{offs[i]}*{c}")
            i += 1
    return ",".join(parts)


def ref_mul(a: Poly, b: Poly, n: int) -> Poly:
    out: Poly = {}
    for ka, ca in a.items():
        for kb, cb in b.items():
            out[(ka + kb) % n] = out.get((ka + kb) % n, 0) + ca * cb
    return ref_normalize(out, n)


@st.composite
def runs(draw: st.DrawFn) -> tuple[Poly, int]:
    """A polynomial made of runs (progressions with one coefficient), often one run: the keys'
    compact terms, and the one-run shortcut of ``rotpoly._key_of``."""
    n = draw(slots)
    p: Poly = {}
    for _ in range(draw(st.integers(1, 3))):
        start, stride, m = draw(st.integers(-n, n)), draw(st.integers(1, 4)), draw(st.integers(1, n))
        c = draw(st.sampled_from([1, 1, -1, 2]))
        for j in range(m):
            p[start + j * stride] = c
    return p, n


@st.composite
def forms(draw: st.DrawFn) -> tuple[Poly, int]:
    """Offsets in ``[0, n)``, in any order, nonzero coefficients (a rotation tree's forms)."""
    n = draw(slots)
    keys = draw(st.permutations(range(n)))[:draw(st.integers(1, n))]
    return {k: draw(st.sampled_from([1, 1, -1, 2])) for k in keys}, n


@settings(max_examples=500, deadline=None)
@given(st.one_of(polys(), runs(), forms()))
def test_key_equals_the_reference(pn: tuple[Poly, int]) -> None:
    p, n = pn
    want = ref_key(p, n)
    assert rotpoly.key(p, n) == want
    assert rotpoly.key(ref_normalize(p, n), n) == want  # a normalized input
    assert rotpoly.parse_key(want, n) == ref_normalize(p, n)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mul_and_product_equal_the_reference(data: st.DataObject) -> None:
    a, n = data.draw(polys())
    b, _ = data.draw(polys(n))
    got = rotpoly.mul(a, b, n)
    want = ref_mul(a, b, n)
    assert got == want and list(got) == list(want)
    fs = [a, b, data.draw(polys(n))[0]]
    prod = rotpoly.product(fs, n)
    want = ref_mul(ref_mul(ref_mul({0: 1}, fs[0], n), fs[1], n), fs[2], n)
    assert prod == want and list(prod) == list(want)
    assert rotpoly.product([], n) == ref_normalize({0: 1}, n)


def ref_with_shift(factors: list[Poly], s: int, n: int) -> list[Poly]:
    """``rotfactor._with_shift`` before it returned the factors when nothing moves or shifts."""
    from eqsat.algebra import rotfactor

    fs = [rotpoly.normalize(f, n) for f in factors]
    moved: list[Poly] = []
    s_moved = s
    for f in fs:
        if f and 0 not in f:
            e = min(f, key=lambda k: (abs(k), k))
            f = rotpoly.shift(f, -e, n)
            s_moved += e
        moved.append(f)
    cands: list[list[Poly]] = []
    for group, t in ((fs, s), (moved, s_moved)):
        spread = rotfactor._distribute_shift(group, t, n) if all(0 in f for f in group) else None
        if spread is None:
            spread = [*group, {rotpoly.norm_offset(t, n): 1}] if t % n else list(group)
        cands.append(spread)
    return min(cands, key=lambda c: (rotpoly.factors_cost(c, n), len(c)))


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_with_shift_equals_the_reference(data: st.DataObject) -> None:
    from eqsat.algebra import rotfactor

    _, n = data.draw(polys())
    factors = [data.draw(polys(n))[0] for _ in range(data.draw(st.integers(1, 4)))]
    if data.draw(st.booleans()):  # factors from offset 0 and no shift: the shortcut
        factors = [{**f, 0: 1} for f in factors]
    s = data.draw(st.sampled_from([0, 0, n, 1, -3, 2 * n + 1]))
    got = rotfactor._with_shift(factors, s, n)
    want = ref_with_shift(factors, s, n)
    assert got == want and [list(f) for f in got] == [list(f) for f in want]


def ref_half(a: str, n: int, which: int) -> str:
    """``slot_oracles.half`` before both halves came from one sort (``_halves``)."""
    p = rotpoly.parse_key(a, n)
    if not 2 <= len(p) <= o.MAX_DIRECT_TERMS:
        return ""
    items = sorted(p.items())
    m = len(items) // 2
    return rotpoly.key(dict(items[:m] if which == 0 else items[m:]), n)


@settings(max_examples=400, deadline=None)
@given(keys())
def test_half_and_splits_equal_the_reference(kn: tuple[str, int]) -> None:
    a, n = kn
    for which in (0, 1):
        assert o.half(a, n, which) == ref_half(a, n, which)
    p = rotpoly.parse_key(a, n)
    assert o.splits(a, n) == ("y" if ref_canonical(a, n) or any(k % n == 0 for k in p) else "")


def ref_least_rotation(seq: list[tuple[int, int]]) -> int:
    """The least rotation's start by brute force (the first of equal rotations: the two-pointer's
    answer is the least index among the minimal rotations)."""
    m = len(seq)
    if not m:
        return 0
    best = min(range(m), key=lambda i: (seq[i:] + seq[:i], i))
    return best


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 0), st.integers(1, 2)), max_size=12), st.booleans())
def test_least_rotation_equals_brute_force(seq: list[tuple[int, int]], constant: bool) -> None:
    if constant and seq:
        seq = [seq[0]] * len(seq)  # a progression's: the shortcut
    assert rotpoly._least_rotation(seq) == ref_least_rotation(seq)
