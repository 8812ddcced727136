"""Rule families, one per file, each exporting ``FAMILY`` (a ``RuleFamily``) whose
``.ruleset`` is the egglog ruleset of the same name.

``REGISTRY`` maps the CLI names (``--rules ring,slots``) to families; a meta-test
checks that every key equals its family's own name and every rule has a soundness test.
``SCHEDULES`` names the default rule selections.
"""

from __future__ import annotations

from eqsat.rules import depth, factor, fold_real, linmap, mul_to_add, ring, select, slots

from eqsat.errors import UserError
from eqsat.rulespec import RuleFamily

REGISTRY: dict[str, RuleFamily] = {f.name: f for f in (
    ring.FAMILY, slots.FAMILY, mul_to_add.FAMILY, factor.FAMILY, depth.FAMILY, fold_real.FAMILY,
    linmap.FAMILY, select.FAMILY)}

SCHEDULES: dict[str, tuple[str, ...]] = {
    # slot rewrites and ring identities: the vector kernels (rotate-and-reduce, stencils, chains)
    "default": ("ring", "slots", "mul-to-add", "fold-real", "linmap", "select"),
    # scalar arithmetic: mul-to-add chains, squaring, folding (the noisy dialect's programs)
    "arith": ("ring", "mul-to-add", "depth", "fold-real", "select"),
    # everything, including factoring (may need larger limits)
    "all": ("ring", "slots", "mul-to-add", "depth", "fold-real", "factor", "linmap", "select"),
    "none": (),
}


def resolve(names: str | list[str] | tuple[str, ...] | None) -> list[RuleFamily]:
    """Families for a comma-separated list (or sequence) of names or one schedule name."""
    if names is None:
        names = SCHEDULES["default"]
    if isinstance(names, str):
        names = SCHEDULES[names] if names in SCHEDULES else tuple(x.strip() for x in names.split(",") if x.strip())
    out = []
    for nm in names:
        if nm not in REGISTRY:
            raise UserError(
                f"unknown rule family or schedule '{nm}' (families: {', '.join(sorted(REGISTRY))}; "
                f"schedules: {', '.join(sorted(SCHEDULES))})"
            )
        out.append(REGISTRY[nm])
    return out
