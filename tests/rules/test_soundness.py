"""Every rule of every family is sound: checked from its own definition.

``check_sound`` instantiates a rule's own function with the concrete semantics on
random vectors (and random keys, offsets and slot counts) and compares both sides
wherever the rule's conditions hold.  Each rule must actually be exercised: a minimum
number of samples has to reach the comparison, so a test cannot pass vacuously.
"""

from __future__ import annotations

import random
import zlib

import pytest

from eqsat.rules import REGISTRY, SCHEDULES
from eqsat.rulespec import check_sound

ALL = [(fam.name, spec) for fam in REGISTRY.values() for spec in fam.specs]

# rules whose conditions random sampling rarely meets get pinned values or more samples
PINNED: dict[str, dict[str, object]] = {
    "lin-factor-0": {"p": "0..7/1*1"},
    # a 3x3 box over a 4-wide image (16 slots): two separable orders, not a progression
    "lin-factor-1": {"p": "-5*1,-4*1,-3*1,-1*1,0*1,1*1,3*1,4*1,5*1"},
    "prod-factor": {"p": "0..7/1*1"},
    "prod-factor-1": {"p": "0..7/1*1"},
    "lin-scaled-mono-neg": {"p": "1*-3"},
    "lin-neg-mono": {"p": "1*-1"},
    "lin-ext-invariant": {"p": "-2..4/2*1"},  # slots 0,2,4,6 of 8: invariant under even shifts
    "prod-ext-invariant": {"p": "-2..4/2*1"},
    "lin-complement": {"p": "-3..-1/1*-1,0*1,1..4/1*-1"},  # v0 - v1 - ... - v7 = 2 v0 - sum(v)
    "lin-complement-shifted": {"p": "-3..2/1*1,3*2"},  # slot 3 read twice, slot 4 never
    "lin-complement-result": {"p": "-7..-2/1*1,-1*2,0..3/1*1,5..8/1*1"},  # not canonical
}
SIZES: dict[str, tuple[int, ...]] = {name: (8,) for name in PINNED} | {
    "lin-factor-1": (16,), "lin-complement-result": (16,)}
# covered step by step, for every chain step of many constants, in tests/rules/test_rules_arith.py
DEDICATED = {"m2a-sub", "m2a-neg"}


def test_registry_keys_are_family_names() -> None:
    for key, fam in REGISTRY.items():
        assert key == fam.name
    for sched, names in SCHEDULES.items():
        assert all(n in REGISTRY for n in names), sched


def test_rule_names_unique_and_documented() -> None:
    names = [spec.name for _, spec in ALL]
    assert len(names) == len(set(names))
    for _, spec in ALL:
        assert spec.doc, f"rule {spec.name} has no one-line math docstring"


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_family_compiles_to_egglog(family: str) -> None:
    from egglog import EGraph

    from eqsat import term

    eg = EGraph()
    term.declare(eg)
    eg.run(REGISTRY[family].ruleset * 1)


@pytest.mark.parametrize(("family", "spec"), ALL, ids=[s.name for _, s in ALL])
def test_rule_is_sound(family: str, spec) -> None:  # type: ignore[no-untyped-def]
    if spec.name in DEDICATED:
        pytest.skip("checked step by step in tests/rules/test_rules_arith.py")
    res = check_sound(
        spec,
        # a seed stable across processes (``hash`` of a str changes with PYTHONHASHSEED: some runs
        # drew too few samples that reach the comparison for lm-term-ones)
        random.Random(zlib.crc32(spec.name.encode())),
        samples=300,
        sizes=SIZES.get(spec.name, (1, 2, 3, 4, 5, 8, 16)),
        fixed=PINNED.get(spec.name),
    )
    assert res.checked >= 5, f"{spec.name}: only {res.checked} samples reached the comparison"


def test_soundness_check_catches_a_wrong_rule() -> None:
    from eqsat.rulespec import RuleFamily, Term

    fam = RuleFamily("broken")

    @fam.rule("sub-comm")
    def _(L, a: Term, b: Term):  # type: ignore[no-untyped-def]
        """a - b = b - a (wrong)"""
        return L.Sub(a, b), L.Sub(b, a)

    with pytest.raises(AssertionError, match="unsound"):
        check_sound(fam.specs[0], random.Random(0))
