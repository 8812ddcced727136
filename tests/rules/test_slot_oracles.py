"""The slot oracles that guard realization rules (``eqsat.rulespec.slot_oracles``)."""

from __future__ import annotations

from eqsat.rulespec import slot_oracles as o


def _poly(terms: dict[int, int], n: int) -> str:
    key = "zero"
    for k, c in terms.items():
        m = o.mono(k, c, n)
        key = m if key == "zero" else o.poly_add(key, m, n)
    return key


def test_splits_takes_canonical_keys_and_those_that_read_in_place() -> None:
    n = 128
    core = _poly({0: -1, 2: 1}, n)  # rot(v, 2) - v: its own shift-normal core
    assert o.canonical(core, n) and o.splits(core, n)
    in_place = _poly({0: 1, 126: -1}, n)  # v - rot(v, -2): the core shifted by -2
    assert not o.canonical(in_place, n)
    assert o.splits(in_place, n) == "y"
    assert o.poly_shift(core, 126, n) == o.poly_shift(in_place, 0, n)
    away = _poly({1: 1, 3: -1}, n)  # no term at 0 and not a core: realized as rot(core, 1)
    assert not o.canonical(away, n) and o.splits(away, n) == ""


def test_factors_with_no_term_at_offset_0_come_centered() -> None:
    """The 3x3 vertical Sobel on a 4-wide wrapped image (16 slots) factors as a centered row
    pass times a column pass: an inner factor shifted off offset 0 (r^3 + 2r^4 + r^5) had no
    realization outside a Place or Gather, and the kernel took 6 rotations instead of 4.
    Factors with a term at 0 (a reduction's 1 + r) keep their form."""
    from eqsat.algebra import rotpoly

    n = 16
    gy = "-5*-1,-4*-2,-3*-1,3*1,4*2,5*1"
    pairs = [(o.factor_inner(gy, n, j), o.factor_outer(gy, n, j)) for j in (0, 1)]
    assert ("-1*1,0*2,1*1", "-4*-1,4*1") in pairs
    for inner, outer in pairs:
        assert 0 in o._poly(inner, n) or rotpoly.centered(o._poly(inner, n), n)[0] == 0
        product = rotpoly.mul(o._poly(inner, n), o._poly(outer, n), n)
        assert rotpoly.normalize(product, n) == rotpoly.normalize(o._poly(gy, n), n)
    reduction = "0*1,1*1,2*1,3*1"  # 1 + r + r^2 + r^3 = (1 + r)(1 + r^2)
    assert all(0 in o._poly(o.factor_inner(reduction, 8, j), 8) for j in (0, 1) if o.factor_inner(reduction, 8, j))


def test_the_key_of_one_is_the_same_for_every_slot_count() -> None:
    # lin-one and prod-one compare with the literal o.ONE instead of calling mono(0, 1, n)
    assert {o.mono(0, 1, n) for n in range(1, 130)} == {o.ONE}
    assert {o.mono(n, 1, n) for n in range(1, 130)} == {o.ONE}
