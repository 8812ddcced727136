"""Rules written once: the ``RuleSpec`` form, its egglog compiler and its executable semantics.

In: rule definitions ``fn(L, vars) -> (lhs, rhs, conds)`` from ``eqsat.rules``. Out: egglog
rulesets (``EggLang``) and soundness checks on random values (``SemLang``,
``check_sound``). The pure oracles the rules call live beside it (``slot_oracles``,
``arith_oracles``).
"""

from eqsat.rulespec.spec import Int, MapKey, N, Name, Poly, RInt, RuleFamily, SetKey, Term, check_sound

__all__ = ["Int", "MapKey", "N", "Name", "Poly", "RInt", "RuleFamily", "SetKey", "Term", "check_sound"]
