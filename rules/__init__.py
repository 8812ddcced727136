"""Rule families, one per file, each exporting ``FAMILY`` (a ``RuleFamily``) whose
``.ruleset`` is the egglog ruleset of the same name.

``REGISTRY`` maps the CLI names (``--rules ring,slots``) to families; a meta-test
checks that every key equals its family's own name and every rule has a soundness test.
``SCHEDULES`` names the default rule selections.

``REGISTRY`` and the family modules are loaded on first use (PEP 562): defining the
families builds their egglog rules through egglog's Python layer, which a run does not need
(it reads the compiled rule text, ``eqsat.egraph.compiled``, by family name:
``resolve_names``).  ``FAMILY_NAMES`` lists the registry's keys without loading it (a test
keeps the two equal).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from eqsat.errors import UserError

if TYPE_CHECKING:
    from eqsat.rulespec import RuleFamily

    REGISTRY: dict[str, RuleFamily]  # module attribute, loaded on first use (``__getattr__``)

#: the module of each family, by its CLI name (``REGISTRY``'s keys, in its order)
_MODULES: dict[str, str] = {
    "ring": "ring", "slots": "slots", "mul-to-add": "mul_to_add", "factor": "factor", "depth": "depth",
    "fold-real": "fold_real", "linmap": "linmap", "select": "select"}
FAMILY_NAMES: tuple[str, ...] = tuple(_MODULES)

SCHEDULES: dict[str, tuple[str, ...]] = {
    # slot rewrites and ring identities: the vector kernels (rotate-and-reduce, stencils, chains)
    "default": ("ring", "slots", "mul-to-add", "fold-real", "linmap", "select"),
    # scalar arithmetic: mul-to-add chains, squaring, folding (the noisy dialect's programs)
    "arith": ("ring", "mul-to-add", "depth", "fold-real", "select"),
    # everything, including factoring (may need larger limits)
    "all": ("ring", "slots", "mul-to-add", "depth", "fold-real", "factor", "linmap", "select"),
    "none": (),
}

_REGISTRY: dict[str, RuleFamily] = {}


def registry() -> dict[str, RuleFamily]:
    """CLI name -> family (the families are defined on the first call)."""
    if not _REGISTRY:
        for name, module in _MODULES.items():
            _REGISTRY[name] = importlib.import_module(f"{__name__}.{module}").FAMILY
    return _REGISTRY


def resolve_names(names: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """Family names for a comma-separated list (or sequence) of names or one schedule name;
    an unknown name is a ``UserError``.  Loads no family (but knows the ones added to a
    loaded ``REGISTRY``)."""
    if names is None:
        names = SCHEDULES["default"]
    if isinstance(names, str):
        names = SCHEDULES[names] if names in SCHEDULES else tuple(x.strip() for x in names.split(",") if x.strip())
    out = []
    for nm in names:
        if nm not in _MODULES and nm not in _REGISTRY:  # (a family registered at run time: a test's)
            raise UserError(
                f"unknown rule family or schedule '{nm}' (families: {', '.join(sorted(_MODULES))}; "
                f"schedules: {', '.join(sorted(SCHEDULES))})"
            )
        out.append(nm)
    return out


def resolve(names: str | list[str] | tuple[str, ...] | None) -> list[RuleFamily]:
    """Families for a comma-separated list (or sequence) of names or one schedule name."""
    reg = registry()
    return [reg[nm] for nm in resolve_names(names)]


def __getattr__(name: str) -> Any:
    if name == "REGISTRY":
        return registry()
    if name in _MODULES.values():
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
