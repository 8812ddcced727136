"""BGV/CKKS management in order: bootstraps, levels, relinearization, then the checker.

In: an IR ``Program`` (management ops, if any, are stripped first) and the scheme. Out: the
program with explicit ``relinearize`` / ``modswitch`` / ``rescale`` / ``bootstrap`` ops,
checked legal.
"""

from __future__ import annotations

from eqsat.ir import Program
from eqsat.mgmt.check import check
from eqsat.mgmt.edit import PlacementError, insert_after, strip_mgmt
from eqsat.mgmt.levels import levels_needed, place_modswitch, place_rescale
from eqsat.mgmt.relinearize import relinearize_first, relinearize_points


def manage(prog: Program, scheme: str, max_level: int | None = None, *, bootstrap: bool = False,
           lazy_rescale: bool = True, time_limit: float = 10.0) -> Program:
    """Bootstraps (ILP, only if allowed and needed), levels (modswitch or lazy/eager
    rescale), then optimal relinearization; checked before returning."""
    if scheme not in ("bgv", "ckks"):
        raise ValueError(f"manage() is for bgv/ckks, not '{scheme}'")
    base = strip_mgmt(prog)
    if not any(base.nodes[i].op == "mul" and base.nodes[i].type.secret for i in base.live()):
        # no ciphertext multiplication: no level is used, no degree grows, no scale changes,
        # so nothing is placed and the checker has nothing to find (a pass over a big source
        # each, for sums and stencils of thousands of slots)
        return base
    lv = levels_needed(base, scheme) if max_level is None else max_level
    if scheme == "bgv":
        leveled = place_modswitch(base, lv, bootstrap=bootstrap, time_limit=time_limit)
    else:
        leveled = place_rescale(base, lv, bootstrap=bootstrap, lazy=lazy_rescale, time_limit=time_limit)
    out = relinearize_first(insert_after(leveled, relinearize_points(leveled, time_limit=time_limit), "relinearize"))
    rep = check(out, scheme, lv)
    if not rep.legal:
        raise PlacementError(f"management placement failed its own check: {rep.errors[0]}")
    return out
