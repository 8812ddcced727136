"""Rules written once: the ``RuleSpec`` form, its egglog compiler and its executable semantics.

In: rule definitions ``fn(L, vars) -> (lhs, rhs, conds)`` from ``eqsat.rules``. Out: egglog
rulesets (``EggLang``) and soundness checks on random values (``SemLang``,
``check_sound``). The pure oracles the rules call live beside it (``slot_oracles``,
``arith_oracles``).

The names of ``spec`` are loaded on first use (PEP 562): a saturation that calls an oracle
imports ``eqsat.rulespec.slot_oracles`` and with it this package, and must not pay for
``spec`` and egglog's Python layer, which only building the compiled rule text needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eqsat.rulespec.spec import Int, MapKey, N, Name, Poly, RInt, RuleFamily, SetKey, Term, check_sound

__all__ = ["Int", "MapKey", "N", "Name", "Poly", "RInt", "RuleFamily", "SetKey", "Term", "check_sound"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from eqsat.rulespec import spec

        return getattr(spec, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
