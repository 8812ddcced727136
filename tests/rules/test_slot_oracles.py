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
