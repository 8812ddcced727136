"""Noisy scheme: extraction and reduce_noise placement as one ILP (the article's model on the e-graph).

In: an ``EGraphView``, root classes, the original ``Program`` and a ``CostTable``. Out: the
extracted program with its ``reduce_noise`` ops, checked legal, and the solver's info.
"""

from __future__ import annotations

from dataclasses import dataclass

from eqsat.egraph.view import EGraphView
from eqsat.extract.dag import Choice, emit_node, program_elem
from eqsat.extract.ilp import choice_of, egraph_problem, warm_map
from eqsat.ir import Builder, Program, Type
from eqsat.milp import Cand, Problem, solve, topo_order
from eqsat.models.cost import CostTable


# -- noisy: joint extraction and placement ------------------------------------------
@dataclass
class NoisyChoice:
    """A choice of e-node per class plus the classes whose value goes through reduce_noise."""

    choice: Choice
    reduce: set[int]


def ilp_extract_noisy(
    g: EGraphView,
    roots: list[int],
    costs: CostTable,
    *,
    time_limit: float = 10.0,
    plain_bits: int = 5,
    warm: Choice | None = None,
) -> tuple[NoisyChoice | None, dict[str, object]]:
    """Choose e-nodes and reduce_noise points together, minimising cost under the noise limit.

    Returns ``(None, info)`` when no solution is known (``info["status"]`` is
    ``"infeasible"`` when no placement fits, ``"time_limit"`` when none was found in time).
    """
    pb = egraph_problem(g, roots, costs, plain_bits=plain_bits)
    sol = solve(
        pb, with_noise=True, reduce_cost=costs["reduce_noise"], time_limit=time_limit,
        warm=warm_map(pb, warm) if warm else None,
    )
    info = dict(sol.info)
    if not sol.pick:
        return None, info
    info["reduce_noise"] = len(sol.reduce)
    return NoisyChoice(choice_of(pb, sol.pick, g), set(sol.reduce)), info


def build_noisy(g: EGraphView, nc: NoisyChoice, roots: list[int], original: Program) -> Program:
    """``to_program`` with a ``reduce_noise`` after every class in ``nc.reduce``."""
    b = Builder(original.name, style=original.style)
    b.meta.update(original.meta)
    elem_by_name: dict[str, Type] = {}
    for name, ty in original.args:
        b.arg(name, ty)
        elem_by_name[name] = ty
    elem = program_elem(original)
    built: dict[int, int] = {}

    def vec_type(n: int, secret: bool) -> Type:
        return Type(() if n == 1 else (n,), elem, secret)

    order = topo_order({c: i for c, i in enumerate(nc.choice.node) if i >= 0}, _node_problem(g, nc.choice))
    if order is None:
        from eqsat.extract.dag import ExtractionError

        raise ExtractionError("extracted program is cyclic")
    needed = _reachable(g, nc.choice, roots)
    for c in order:
        if c not in needed:
            continue
        n = g.nodes[nc.choice.node[c]]
        out = emit_node(b, n, [built[ch] for ch in n.children], vec_type, elem_by_name)
        if c in nc.reduce:
            out = b.unary("reduce_noise", out)
        built[c] = out
    return b.finish([built[r] for r in roots])


def _reachable(g: EGraphView, choice: Choice, roots: list[int]) -> set[int]:
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        c = stack.pop()
        if c not in seen:
            seen.add(c)
            stack.extend(g.nodes[choice.node[c]].children)
    return seen


def _node_problem(g: EGraphView, choice: Choice) -> Problem:
    """A Problem whose candidate ``i`` is e-node ``i`` (only used for ordering)."""
    cands = [Cand(n.cls, 0.0, n.children, "plain", 0.0, i) for i, n in enumerate(g.nodes)]
    return Problem(g.num_classes, list(choice.secret), cands, [])


