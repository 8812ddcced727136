"""Exact extraction with a MILP (HiGHS): DAG cost, optionally under the noisy model.

In: an ``EGraphView`` (``eqsat.extract``), the root classes and a ``CostTable``; for
the noisy variants also the original ``Program`` (argument and element types).
Out: a ``Choice`` (one e-node per class) and an info dict ``{"status":
"optimal"|"time_limit"|"infeasible", "objective", "time_s", "gap", ...}``;
``ilp_extract_noisy`` adds the classes followed by a ``reduce_noise`` (``NoisyChoice``)
and ``build_noisy`` turns that into an IR program.  ``place_noisy_ilp`` is the
article's placement-only model on a fixed program.  ``ilp_extract_levels`` is the same
model for BGV/CKKS levels: the cheapest program whose paths fit ``max_level`` levels,
with bootstraps (priced from the table) chosen together with the e-nodes.

The model (one binary ``x_j`` per extractable e-node, ``y_c`` per class):

* ``sum_{j in c} x_j = y_c``; ``x_j <= y_ch`` for every child class; roots have ``y = 1``
  (a class with one candidate outside the cyclic components is one column, ``x_j = y_c``);
* acyclicity only where cycles are possible: inside each strongly connected component
  of the class graph, an order variable ``t_c`` in ``[0, |SCC| - 1]`` with
  ``t_c >= t_ch + 1 - |SCC| (1 - x_j)`` for every edge of the component;
* up to ``eqsat.milp.HITTING_MAX_CLASSES`` classes, the hitting-set rows of
  ``eqsat.milp_hitting`` (``sum_S y >= y_d`` when every program of ``d`` holds a class of
  ``S``) that the LP relaxation violates; a relaxation whose bound meets the greedy start
  proves it without a search (``solver`` "lp"), and the search counts only cheaper programs;
  where it does not, a second start (the greedy DAG under unit prices, ``unit_costs``,
  refined under the real ones) restarts the solve when it is cheaper;
* objective ``sum_j cost_j x_j`` with the cost of a node given its children's secrecy;
  hoisting (``eqsat.extract.hoisting``): a rotation of a secret input class costs its
  price minus ``hoisted_saving``, and a "first rotation" binary ``f_s >= x_j`` per input
  class ``s`` (over its rotation candidates) pays ``hoisted_saving`` once, so the
  objective is the DAG cost with hoisted rotations, as ``dag_cost`` computes it.
  Secrecy is per class: a class is plaintext iff it holds a node computed from
  constants alone (or a ``Decode``); plaintext classes only choose plaintext nodes.

The noisy model (the article's, generalised to an e-graph): for every secret class a
pre-reduction bound ``P_c <= 26``, a post-reduction bound ``N_c in [12, 26]`` and a
binary ``r_c`` (``reduce_noise`` after the class, cost from the table):
``N_c >= P_c - M r_c``; for the chosen node ``P_c >= f(N_children) - M (1 - x_j)`` with
``f`` = max + 1 (add/sub), the sum (ct x ct mul), + ceil(log2|c|) (scaling), max
(other ops).  Only lower bounds on noise are needed (any feasible ``N`` bounds the
real noise from above), so the article's ``Z`` penalty trick is unnecessary.

Small models (``eqsat.milp.BNB_MAX_CLASSES``) are solved by the exact branch and bound of
``eqsat.milp_bnb`` instead of HiGHS (the same optimum, proven; ties to fewer classes), the
MILP only where its node budget runs out.

On a time limit the best solution found is returned (or the warm start / a greedy
fallback), and the info says so. With a warm start, the proof stops once the best program
has not improved for ``eqsat.milp.PROOF_STALL_S`` CPU seconds: the info then has ``status``
``"stalled"``, ``proven`` False and the ``gap`` left (``proven`` is True when optimal).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Collection, Container, Mapping

from eqsat.algebra.slot_keys import parse_dense_key, parse_set_key
from eqsat.egraph.view import EGraphView, ENode
from eqsat.extract import hoisting
from eqsat.extract.dag import Choice, greedy_dag, node_cost
from eqsat.milp import Cand, Problem, solve
from eqsat.models import noisy as noise
from eqsat.models.cost import CostTable

CONST_OPS = frozenset({"Num", "NumF", "Dense", "Mask"})


# -- e-graph front end ----------------------------------------------------------
def class_secrecy(g: EGraphView) -> list[bool]:
    """Per class: secret unless it holds a node computed from constants (or a Decode)."""
    plain = [False] * g.num_classes
    nodes = g.nodes
    missing = [-1] * len(nodes)  # per e-node: child classes not yet known plaintext (-1: never)
    users: list[list[int]] = [[] for _ in range(g.num_classes)]
    stack: list[int] = []
    for idx, n in enumerate(nodes):
        op = n.op
        if not n.extractable or op in ("In", "Encode"):
            continue
        kids = set(n.children)
        if n.cls in kids:
            continue
        if op in CONST_OPS or op in ("Decode", "PlainIn"):
            missing[idx] = 0
            stack.append(idx)
            continue
        missing[idx] = len(kids)
        for ch in kids:
            users[ch].append(idx)
        if not kids:
            stack.append(idx)
    # the plaintext classes: a least fixpoint, the same whatever the order of the worklist
    while stack:
        c = nodes[stack.pop()].cls
        if plain[c]:
            continue
        plain[c] = True
        for u in users[c]:
            missing[u] -= 1
            if missing[u] == 0:
                stack.append(u)
    return [not p for p in plain]


def _plain_producing(n_op: str, child_secret: list[bool]) -> bool:
    if n_op in ("In", "Encode"):
        return False
    if n_op in CONST_OPS or n_op in ("Decode", "PlainIn"):
        return True
    return not any(child_secret)


def class_values(g: EGraphView, secret: list[bool]) -> list[list[float] | None]:
    """The exact slot values of plaintext classes computable from constants, else None."""
    vals: list[list[float] | None] = [None] * g.num_classes
    changed = True
    while changed:
        changed = False
        for n in g.nodes:
            if secret[n.cls] or vals[n.cls] is not None or not n.extractable or n.op == "Decode":
                continue
            if any(vals[ch] is None for ch in n.children):
                continue
            v = _eval_enode(n.op, [vals[ch] for ch in n.children], n.lits)  # type: ignore[misc]
            if v is not None:
                vals[n.cls] = v
                changed = True
    return vals


def _eval_enode(op: str, a: list[list[float]], lits: tuple[object, ...]) -> list[float] | None:
    if op in ("Num", "NumF"):
        return [float(lits[0])] * int(lits[1])  # type: ignore[arg-type,call-overload]
    if op == "Dense":
        return [float(x) for x in parse_dense_key(str(lits[0]))]
    if op == "Mask":
        sel = set(parse_set_key(str(lits[0])))
        return [1.0 if p in sel else 0.0 for p in range(int(lits[1]))]  # type: ignore[call-overload]
    if op in ("Add", "Sub", "Mul") and len(a[0]) == len(a[1]):
        f = {"Add": lambda x, y: x + y, "Sub": lambda x, y: x - y, "Mul": lambda x, y: x * y}[op]
        return [f(x, y) for x, y in zip(a[0], a[1], strict=True)]
    if op == "Neg":
        return [-x for x in a[0]]
    if op == "Rot":
        k = int(lits[0]) % len(a[0])  # type: ignore[call-overload]
        return a[0][k:] + a[0][:k]
    if op == "Ext":
        return [a[0][int(lits[0])]]  # type: ignore[call-overload]
    if op == "Ins":
        out = list(a[1])
        out[int(lits[0])] = a[0][0]  # type: ignore[call-overload]
        return out
    if op == "Place":
        out = [0.0] * int(lits[1])  # type: ignore[call-overload]
        out[int(lits[0])] = a[0][0]  # type: ignore[call-overload]
        return out
    if op == "Splat":
        return [a[0][0]] * int(lits[0])  # type: ignore[call-overload]
    return None


def egraph_problem(g: EGraphView, roots: list[int], costs: CostTable, *, plain_bits: int = 16) -> Problem:
    """The extraction problem of an e-graph (noise kinds filled in for the noisy model).

    ``plain_bits`` bounds plaintexts of unknown value (2^plain_bits) when they scale a
    ciphertext.
    """
    secret = class_secrecy(g)
    vals = class_values(g, secret)
    cands: list[Cand] = []
    rotations: dict[int, list[int]] = {}  # input class -> its rotation candidates
    ragged = hoisting.ragged_surcharge(costs)
    saving = costs.hoisted_saving  # a property that reads the table: once, not per e-node
    widths = hoisting.class_slots(g) if ragged else []
    isfinite = math.isfinite
    # ``node_cost`` depends on the op, whether any and whether all children are secret and, for
    # an extraction, whether it is of slot 0: remembered per such key (rr_reduce_add_and_mul_32:
    # 546 extractable e-nodes, a handful of keys)
    priced: dict[tuple[str, bool, bool, bool], float] = {}
    for idx, n in enumerate(g.nodes):
        if not n.extractable:
            continue
        kids = n.children
        # whether any and whether all children are secret (one or two children: read directly)
        nk = len(kids)
        if nk == 1:
            any_s = all_s = secret[kids[0]]
        elif nk == 2:
            s0 = secret[kids[0]]
            s1 = secret[kids[1]]
            any_s = s0 or s1
            all_s = s0 and s1
        else:
            csec = [secret[ch] for ch in kids]
            any_s = True in csec
            all_s = False not in csec
        c = n.cls
        op = n.op
        sec_c = secret[c]
        if not sec_c:
            # _plain_producing(op, child secrecy)
            if op in ("In", "Encode") or not (op in CONST_OPS or op in ("Decode", "PlainIn") or not any_s):
                continue
            if vals[c] is not None and any(vals[ch] is None for ch in kids):
                continue  # keep known constants foldable, as the checker sees them
            kind, inc = "plain", 0.0
        elif op in ("In", "Encode"):
            kind, inc = "fresh", 0.0
        elif op in ("Add", "Sub", "Neg"):  # noisy has no negation: 0 - x
            kind, inc = "max", 1.0
        elif op == "Mul" and all_s:
            kind, inc = "sum", 0.0
        elif op == "Mul":
            pc = kids[0] if not secret[kids[0]] else kids[1]
            v = vals[pc]
            mag = max((abs(x) for x in v), default=0.0) if v is not None else 2.0**plain_bits
            kind, inc = "max", noise.plain_operand_bits(mag)
        else:
            kind, inc = "max", 0.0
        key = (op, any_s, all_s, op == "Ext" and n.lits[0] == 0)
        w = priced.get(key)
        if w is None:
            w = priced[key] = node_cost(n, [secret[ch] for ch in kids], costs)[0]
        if op == "Rot" and sec_c and ragged and hoisting.is_ragged(widths[kids[0]]):
            w += ragged
        if isfinite(w):
            if sec_c and saving and (op == "Rot" or (op == "Ext" and n.lits[0] != 0)):
                src = kids[0]  # hoisting.rotation_input(n)
                if secret[src]:
                    rotations.setdefault(src, []).append(len(cands))
            cands.append(Cand(c, w, kids, kind, inc, idx))
    return Problem(g.num_classes, secret, cands, list(roots), _hoisting_setups(cands, rotations, costs))


def _hoisting_setups(
    cands: list[Cand], rotations: dict[int, list[int]], costs: CostTable
) -> list[tuple[float, tuple[int, ...]]]:
    """Per input class with two or more rotation candidates: each candidate's cost drops by
    the saving (in place) and a shared cost of the saving is paid once if any is chosen.
    The saving is capped by the cheapest member so that no cost turns negative."""
    setups: list[tuple[float, tuple[int, ...]]] = []
    saving = costs.hoisted_saving  # a property that reads the table: once, not per group
    for members in rotations.values():
        if len(members) < 2:
            continue
        s = min([saving] + [cands[j].cost for j in members])
        if s <= 0:
            continue
        for j in members:
            cd = cands[j]
            cands[j] = Cand(cd.cls, cd.cost - s, cd.children, cd.kind, cd.inc, cd.ref)
        setups.append((s, tuple(members)))
    return setups


def choice_of(pb: Problem, pick: Mapping[int, int], g: EGraphView) -> Choice:
    node = [-1] * g.num_classes
    for c, j in pick.items():
        node[c] = pb.cands[j].ref
    return Choice(node, list(pb.secret))


def warm_map(pb: Problem, warm: Choice) -> dict[int, int]:
    by_ref = {cd.ref: j for j, cd in enumerate(pb.cands)}
    return {c: by_ref[i] for c, i in enumerate(warm.node) if i >= 0 and i in by_ref}


def _restricted(g: EGraphView, refs: Container[int]) -> EGraphView:
    """A shallow copy of ``g`` where only the e-nodes in ``refs`` are extractable."""
    view = copy.copy(g)
    view.nodes = [n if not n.extractable or i in refs else ENode(n.op, n.cls, n.children, n.lits, False)
                  for i, n in enumerate(g.nodes)]
    hoisting.share_slots(g, view)  # slot counts do not depend on which e-nodes are extractable
    return view


def unit_costs(costs: CostTable) -> CostTable:
    """``costs`` with every priced term at 1 (the fewest operations): the prices of the second
    start of ``ilp_extract``. The greedy DAG pass's sharing estimate is a heuristic whose local
    optima depend on the prices; one run under other prices, refined under the real ones
    (``eqsat.extract.dag.refine``), escapes some of them (``rr_rotation_duplicated``: three
    rotations of one input at 68, against two of different inputs at 64 after the refinement,
    optimum 63)."""
    return CostTable(costs.scheme, {k: (1.0 if v > 0 else 0.0) for k, v in costs.costs.items()})


def ilp_extract(
    g: EGraphView,
    roots: list[int],
    costs: CostTable,
    *,
    time_limit: float = 10.0,
    warm: Choice | None = None,
    proof_stall_s: float | None = None,
) -> tuple[Choice, dict[str, object]]:
    """Exact minimum-DAG-cost extraction; on a time limit the best found (or the warm start).
    ``proof_stall_s``: the proof budget (``eqsat.milp.solve``; None: the default, ``math.inf``:
    none)."""
    pb = egraph_problem(g, roots, costs)
    starts = [warm] if warm is not None else []

    def second_start(kept: Collection[int]) -> dict[int, int] | None:
        # asked for only where the start is not proven without a search (eqsat.milp.solve), over
        # the candidates its reductions kept: the e-graph without the others is smaller
        from eqsat.extract.dag import refine

        view = _restricted(g, {pb.cands[j].ref for j in kept})
        starts.append(refine(view, greedy_dag(view, unit_costs(costs)), roots, costs))  # g's e-node indices
        return warm_map(pb, starts[-1])

    sol = solve(pb, with_noise=False, time_limit=time_limit, warm=warm_map(pb, warm) if warm else None,
                proof_stall_s=proof_stall_s, second_start=second_start if warm is not None else None)
    info = dict(sol.info)
    if sol.pick:
        if starts and sol.status in ("optimal", "stalled"):
            from eqsat.extract.dag import dag_cost

            objective = info.get("objective")
            for start in starts:
                if isinstance(objective, int | float) and dag_cost(g, start, roots, costs) <= objective + 1e-6:
                    # a tie: keep the warm start, whose ties went to the candidate sharing more
                    # (fewer classes: x^4 = x^2 * x^2 rather than x^3 * x, one level less)
                    return start, info
        return choice_of(pb, sol.pick, g), info
    if sol.status == "infeasible":
        from eqsat.extract.dag import ExtractionError

        raise ExtractionError("the e-graph holds no finite program for a root")
    info["fallback"] = "warm" if warm is not None else "greedy"
    return (warm if warm is not None else greedy_dag(g, costs)), info


