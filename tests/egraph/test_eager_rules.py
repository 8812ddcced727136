"""Eager rules (``RuleFamily.rule(..., eager=True)``): compiled into the family's second ruleset
and run to their fixpoint with the analyses after every rule step (``Session.analysis``), so what
they derive is matched by the other rules in the same iteration."""

from __future__ import annotations

from eqsat.algebra import rotpoly
from eqsat.egraph import compiled
from eqsat.egraph.session import Limits, Session
from eqsat.egraph.view import EGraphView
from eqsat.frontend.mlir import parse_mlir
from eqsat.rules import REGISTRY, SCHEDULES
from eqsat.rulespec import RuleFamily, Term

# a chain of source rotations that the loader does not summarize (its sum also adds %w)
CHAIN = """
func.func @chain(%v: tensor<8xi16>, %w: tensor<8xi16>) -> tensor<8xi16> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor_ext.rotate %v, %c1 : tensor<8xi16>, index
  %s = arith.addi %v, %a : tensor<8xi16>
  %b = tensor_ext.rotate %s, %c2 : tensor<8xi16>, index
  %t = arith.addi %s, %b : tensor<8xi16>
  %u = arith.addi %t, %w : tensor<8xi16>
  return %u : tensor<8xi16>
}
"""


def test_eager_rules_form_their_own_ruleset() -> None:
    fam = RuleFamily("eager-test")

    @fam.rule("neg-neg-x")
    def _(L, a: Term):  # type: ignore[no-untyped-def]
        """--a = a"""
        return L.Neg(L.Neg(a)), a

    assert fam.eager_ruleset is None
    count = len(fam.specs)

    @fam.rule("sub-self-x", eager=True)
    def _(L, a: Term):  # type: ignore[no-untyped-def]
        """a - a = -(a - a)  (both are 0)"""
        return L.Sub(a, a), L.Neg(L.Sub(a, a))

    assert len(fam.specs) == count + 1 and fam.specs[-1].eager
    eager = fam.eager_ruleset
    assert eager is not None and str(eager.ident).endswith("eager-test-eager")
    # the rules as egglog records them: each ruleset holds its own rule only
    normal = compiled._record(fam.ruleset)
    both = compiled._record(fam.ruleset, eager)
    assert "neg-neg-x" in normal.text and "sub-self-x" not in normal.text and not normal.eager
    assert both.eager == str(eager.ident) and f":ruleset {both.eager} :name \"sub-self-x\"" in both.text


def test_the_compiled_slots_section_declares_its_eager_ruleset() -> None:
    sec = compiled.section("slots")
    assert sec.eager and sec.eager != sec.ident
    assert f":ruleset {sec.eager} :name \"lin-rot\"" in sec.text
    assert ":name \"lin-rot-add\"" not in sec.text
    assert [s.name for s in REGISTRY["slots"].specs if s.eager] == ["rot-compose", "rot-cancel", "lin-rot", "prod-rot"]
    assert ":name \"prod-rot-merge\"" not in sec.text
    # a family without eager rules has none
    assert compiled.section("ring").eager == ""


def _lin_polys(s: Session) -> set[str]:
    return {str(n.lits[0]) for n in EGraphView(s.serialize()).nodes if n.op == "LinRot"}


def test_a_chain_of_source_rotations_grows_one_step_an_iteration() -> None:
    prog = parse_mlir(CHAIN, "chain.mlir")[0]
    names = list(SCHEDULES["default"])
    first = rotpoly.key({0: 1, 1: 1}, 8)  # %s = (1 + x) v
    whole = rotpoly.key({0: 1, 1: 1, 2: 1, 3: 1}, 8)  # %t = (1 + x)(1 + x^2) v
    found: dict[str, int] = {}
    for its in range(1, 8):
        s = Session(prog)
        s.saturate(names, Limits(iterations=its))
        for key in set(_lin_polys(s)) & {first, whole}:
            found.setdefault(key, its)
    # the iteration that adds v + rot(v, 1) (lin-add) also rotates it by 2, eagerly (lin-rot):
    # the next one adds the chain's last step. Without the eager run (lin-rot in one iteration,
    # lin-add in the next) it takes two.
    assert found[whole] == found[first] + 1
