"""Management placement: the ops a program needs to run under a scheme, placed optimally.

In: an extracted IR ``Program``. Out: the program with explicit management ops --
``relinearize``, ``modswitch`` (BGV) / ``rescale`` (CKKS), ``bootstrap`` (``manage``), or
``reduce_noise`` in the noisy scheme (``reduce_noise``) -- and the checkers that validate
them. HEIR's secret-insert-mgmt passes are the analogue; here each placement is an ILP.

Modules: ``edit`` (strip/insert ops), ``relinearize``, ``levels`` (modswitch, lazy rescale,
bootstraps), ``check`` (degrees, levels, scales), ``manage`` (all in order),
``reduce_noise`` (the noisy article's placement).
"""

from eqsat.mgmt.check import MgmtReport, check
from eqsat.mgmt.edit import PlacementError, count, insert_after, is_ct_mul, strip_mgmt
from eqsat.mgmt.levels import (
    bootstrap_points,
    level_cost,
    level_depths,
    levels_needed,
    place_modswitch,
    place_rescale,
    rescale_points,
)
from eqsat.mgmt.manage import manage
from eqsat.mgmt.relinearize import NEEDS_LINEAR, place_relinearize, relinearize_first, relinearize_points

__all__ = [
    "NEEDS_LINEAR", "MgmtReport", "PlacementError", "bootstrap_points", "check", "count", "insert_after",
    "is_ct_mul", "level_cost", "level_depths", "levels_needed", "manage", "place_modswitch", "place_relinearize",
    "place_rescale", "relinearize_first", "relinearize_points", "rescale_points", "strip_mgmt",
]
