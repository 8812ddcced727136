"""BGV/CKKS: extraction under a level budget, bootstraps chosen with the e-nodes.

In: an ``EGraphView``, root classes, a ``CostTable``, the scheme and ``max_level``. Out: a
``Choice`` whose every path fits the levels (or ``None`` with the solver's info).
"""

from __future__ import annotations

from eqsat.egraph.view import EGraphView
from eqsat.extract.dag import Choice
from eqsat.extract.ilp import choice_of, egraph_problem, warm_map
from eqsat.milp import Cand, Problem, solve
from eqsat.models.cost import CostTable


# -- BGV/CKKS: extraction under a level budget ----------------------------------------
def level_problem(g: EGraphView, roots: list[int], costs: CostTable, scheme: str) -> Problem:
    """``egraph_problem`` with levels for noise: +1 per ct x ct product (BGV) or per secret
    product (CKKS: every product is rescaled), fresh inputs at 0."""
    pb = egraph_problem(g, roots, costs)
    cands: list[Cand] = []
    for cd in pb.cands:
        if cd.kind in ("plain", "fresh"):
            cands.append(Cand(cd.cls, cd.cost, cd.children, cd.kind, 0.0, cd.ref))
            continue
        n = g.nodes[cd.ref]
        both = all(pb.secret[ch] for ch in n.children)
        inc = 1.0 if n.op == "Mul" and (both or scheme == "ckks") else 0.0
        cands.append(Cand(cd.cls, cd.cost, cd.children, "max", inc, cd.ref))
    return Problem(pb.num_classes, pb.secret, cands, pb.roots, pb.setups)


def ilp_extract_levels(
    g: EGraphView,
    roots: list[int],
    costs: CostTable,
    scheme: str,
    max_level: int,
    *,
    bootstrap: bool = False,
    time_limit: float = 10.0,
    warm: Choice | None = None,
) -> tuple[Choice | None, dict[str, object]]:
    """Cheapest program whose every path fits ``max_level`` levels, choosing bootstraps
    (cost ``costs["bootstrap"]``, only if ``bootstrap``) together with the e-nodes.

    Returns ``(None, info)`` when no program of the e-graph fits (``info["status"] ==
    "infeasible"``) or none was found in time.  ``info["bootstrap"]`` counts the
    bootstraps of the chosen solution (``eqsat.mgmt.placement`` re-places them optimally on
    the extracted program).
    """
    pb = level_problem(g, roots, costs, scheme)
    sol = solve(
        pb, with_noise=True, reduce_cost=costs["bootstrap"], time_limit=time_limit,
        warm=warm_map(pb, warm) if warm else None, bounds=(0.0, float(max_level)), allow_reduce=bootstrap,
    )
    info = dict(sol.info)
    if not sol.pick:
        return None, info
    info["bootstrap"] = len(sol.reduce)
    return choice_of(pb, sol.pick, g), info
