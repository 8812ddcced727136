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

* ``sum_{j in c} x_j = y_c``; ``x_j <= y_ch`` for every child class; roots have ``y = 1``;
* acyclicity only where cycles are possible: inside each strongly connected component
  of the class graph, an order variable ``t_c`` in ``[0, |SCC| - 1]`` with
  ``t_c >= t_ch + 1 - |SCC| (1 - x_j)`` for every edge of the component;
* objective ``sum_j cost_j x_j`` with the cost of a node given its children's secrecy.
  Secrecy is per class: a class is plaintext iff it holds a node computed from
  constants alone (or a ``Decode``); plaintext classes only choose plaintext nodes.

The noisy model (the article's, generalised to an e-graph): for every secret class a
pre-reduction bound ``P_c <= 26``, a post-reduction bound ``N_c in [12, 26]`` and a
binary ``r_c`` (``reduce_noise`` after the class, cost from the table):
``N_c >= P_c - M r_c``; for the chosen node ``P_c >= f(N_children) - M (1 - x_j)`` with
``f`` = max + 1 (add/sub), the sum (ct x ct mul), + ceil(log2|c|) (scaling), max
(other ops).  Only lower bounds on noise are needed (any feasible ``N`` bounds the
real noise from above), so the article's ``Z`` penalty trick is unnecessary.

On a time limit the best solution found is returned (or the warm start / a greedy
fallback), and the info says so.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import highspy
import numpy as np

from eqsat.algebra.slot_keys import parse_dense_key, parse_set_key
from eqsat.extract.dag import Choice, EGraphView, _emit, _program_elem, greedy_dag, node_cost, to_program
from eqsat.ir import Builder, Program, Type
from eqsat.models import noisy as noise
from eqsat.models.cost import CostTable

CONST_OPS = frozenset({"Num", "NumF", "Dense", "Mask"})


# -- the abstract problem ---------------------------------------------------------
@dataclass(frozen=True)
class Cand:
    """One alternative for a class: its cost, children and noise behaviour.

    ``kind``: ``"plain"`` (no noise), ``"fresh"`` (12 bits), ``"max"`` (max of the
    secret children's bounds + ``inc``), ``"sum"`` (sum of the secret children + ``inc``).
    ``ref`` is the e-node index (or IR node id) it stands for.
    """

    cls: int
    cost: float
    children: tuple[int, ...]
    kind: str
    inc: float
    ref: int


@dataclass
class Problem:
    num_classes: int
    secret: list[bool]
    cands: list[Cand]
    roots: list[int]


@dataclass
class Solution:
    status: str
    pick: dict[int, int]  # class -> index into Problem.cands
    reduce: set[int]
    info: dict[str, object] = field(default_factory=dict)


class _Milp:
    """Columns and rows for HiGHS, added one by one."""

    def __init__(self) -> None:
        self.lb: list[float] = []
        self.ub: list[float] = []
        self.cost: list[float] = []
        self.integer: list[bool] = []
        self.row_lo: list[float] = []
        self.row_hi: list[float] = []
        self.starts: list[int] = [0]
        self.index: list[int] = []
        self.value: list[float] = []

    def var(self, lb: float, ub: float, cost: float = 0.0, integer: bool = False) -> int:
        self.lb.append(lb)
        self.ub.append(ub)
        self.cost.append(cost)
        self.integer.append(integer)
        return len(self.lb) - 1

    def row(self, coefs: Mapping[int, float], lo: float, hi: float) -> None:
        for k, v in coefs.items():
            if v:
                self.index.append(k)
                self.value.append(v)
        self.starts.append(len(self.index))
        self.row_lo.append(lo)
        self.row_hi.append(hi)

    def solve(
        self, time_limit: float, warm: list[float] | None
    ) -> tuple[str, list[float] | None, float, float]:
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("time_limit", float(max(time_limit, 0.01)))
        h.setOptionValue("mip_rel_gap", 1e-6)
        h.setOptionValue("threads", 1)
        lp = highspy.HighsLp()
        lp.num_col_ = len(self.lb)
        lp.num_row_ = len(self.row_lo)
        lp.col_cost_ = np.array(self.cost, dtype=float)
        lp.col_lower_ = np.array(self.lb, dtype=float)
        lp.col_upper_ = np.array(self.ub, dtype=float)
        lp.row_lower_ = np.array(self.row_lo, dtype=float)
        lp.row_upper_ = np.array(self.row_hi, dtype=float)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.array(self.starts, dtype=np.int32)
        lp.a_matrix_.index_ = np.array(self.index, dtype=np.int32)
        lp.a_matrix_.value_ = np.array(self.value, dtype=float)
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in self.integer]
        h.passModel(lp)
        if warm is not None:
            sol = highspy.HighsSolution()
            sol.col_value = warm
            sol.value_valid = True
            h.setSolution(sol)
        h.run()
        st = h.getModelStatus()
        info = h.getInfo()
        has_sol = info.primal_solution_status == 2
        x = list(h.getSolution().col_value) if has_sol else None
        if st == highspy.HighsModelStatus.kOptimal:
            status = "optimal"
        elif st == highspy.HighsModelStatus.kTimeLimit:
            status = "time_limit"
        elif st == highspy.HighsModelStatus.kInfeasible:
            status = "infeasible"
        else:
            status = h.modelStatusToString(st).lower().replace(" ", "_")
        gap = float(info.mip_gap) if has_sol and math.isfinite(info.mip_gap) else math.inf
        obj = float(info.objective_function_value) if has_sol else math.inf
        return status, x, obj, (0.0 if status == "optimal" else gap)


def _prune(pb: Problem) -> tuple[list[list[int]], list[int]] | None:
    """Per-class usable candidates and the reachable classes; None if a root has no program."""
    k = pb.num_classes
    by_class: list[list[int]] = [[] for _ in range(k)]
    for j, cd in enumerate(pb.cands):
        if math.isfinite(cd.cost) and cd.cls not in cd.children:
            by_class[cd.cls].append(j)
    # productive classes: those with a finite program (worklist over missing children)
    missing = [len(set(cd.children)) for cd in pb.cands]
    users: list[list[int]] = [[] for _ in range(k)]
    for c in range(k):
        for j in by_class[c]:
            for ch in set(pb.cands[j].children):
                users[ch].append(j)
    productive = [False] * k
    stack = [j for c in range(k) for j in by_class[c] if missing[j] == 0]
    while stack:
        j = stack.pop()
        c = pb.cands[j].cls
        if productive[c]:
            continue
        productive[c] = True
        for u in users[c]:
            missing[u] -= 1
            if missing[u] == 0:
                stack.append(u)
    if not all(productive[r] for r in pb.roots):
        return None
    usable = [
        [j for j in by_class[c] if all(productive[ch] for ch in pb.cands[j].children)] for c in range(k)
    ]
    seen: set[int] = set()
    order: list[int] = []
    stack = list(pb.roots)
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        order.append(c)
        for j in usable[c]:
            stack.extend(pb.cands[j].children)
    return usable, sorted(seen)


def _sccs(classes: list[int], usable: list[list[int]], pb: Problem) -> dict[int, int]:
    """Class -> component id for classes in a non-trivial SCC (iterative Tarjan)."""
    succ = {c: sorted({ch for j in usable[c] for ch in pb.cands[j].children}) for c in classes}
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on: set[int] = set()
    st: list[int] = []
    comp: dict[int, int] = {}
    ncomp = 0
    counter = 0
    for root in classes:
        if root in index:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        st.append(root)
        on.add(root)
        while work:
            v, i = work[-1]
            if i < len(succ[v]):
                work[-1] = (v, i + 1)
                w = succ[v][i]
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    st.append(w)
                    on.add(w)
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                members = []
                while True:
                    w = st.pop()
                    on.discard(w)
                    members.append(w)
                    if w == v:
                        break
                if len(members) > 1:
                    for w in members:
                        comp[w] = ncomp
                    ncomp += 1
    return comp


def solve(
    pb: Problem,
    *,
    with_noise: bool,
    reduce_cost: float = 1.0,
    time_limit: float = 10.0,
    warm: Mapping[int, int] | None = None,
    bounds: tuple[float, float] = (float(noise.FRESH), float(noise.LIMIT)),
    allow_reduce: bool = True,
) -> Solution:
    """Solve the extraction (and, ``with_noise``, reduce_noise placement) MILP.

    ``bounds`` = (fresh, limit): the value after a reduction (and of a ``fresh``
    candidate) and the largest legal value.  The noisy model is (12, 26); the same
    model with (0, L), ``inc`` 1 per multiplication and ``max`` everywhere places
    bootstraps under a budget of L levels (``eqsat.mgmt.placement``).  ``allow_reduce=False``
    forbids the reduction (the program must fit as it is).
    """
    start = time.perf_counter()
    pr = _prune(pb)
    if pr is None:
        why = {"status": "infeasible", "reason": "a root has no finite program"}
        return Solution("infeasible", {}, set(), dict(why))
    usable, classes = pr
    comp = _sccs(classes, usable, pb)
    comp_size: dict[int, int] = {}
    for cid in comp.values():
        comp_size[cid] = comp_size.get(cid, 0) + 1
    m = _Milp()
    roots = set(pb.roots)
    xv: dict[int, int] = {}
    yv: dict[int, int] = {}
    tv: dict[int, int] = {}
    for c in classes:
        yv[c] = m.var(1.0 if c in roots else 0.0, 1.0, 0.0, True)
        for j in usable[c]:
            xv[j] = m.var(0.0, 1.0, pb.cands[j].cost, True)
        if c in comp:
            tv[c] = m.var(0.0, comp_size[comp[c]] - 1.0)
    for c in classes:
        row = {xv[j]: 1.0 for j in usable[c]}
        row[yv[c]] = -1.0
        m.row(row, 0.0, 0.0)
        for j in usable[c]:
            for ch in set(pb.cands[j].children):
                m.row({xv[j]: 1.0, yv[ch]: -1.0}, -math.inf, 0.0)
                if c in comp and comp.get(ch) == comp[c]:
                    big = float(comp_size[comp[c]])
                    m.row({tv[c]: 1.0, tv[ch]: -1.0, xv[j]: -big}, 1.0 - big, math.inf)
    nv: dict[int, int] = {}
    pv: dict[int, int] = {}
    rv: dict[int, int] = {}
    if with_noise:
        sec = [c for c in classes if pb.secret[c]]
        lo, hi = bounds
        for c in sec:
            nv[c] = m.var(lo, hi)
            pv[c] = m.var(lo, hi)
            rv[c] = m.var(0.0, 1.0 if allow_reduce else 0.0, reduce_cost, True)
        for c in sec:
            # tight big-Ms: every bound lies in [12, 26]
            m.row({nv[c]: 1.0, pv[c]: -1.0, rv[c]: hi - lo}, 0.0, math.inf)
            m.row({rv[c]: 1.0, yv[c]: -1.0}, -math.inf, 0.0)
            for j in usable[c]:
                cd = pb.cands[j]
                sch = [ch for ch in cd.children if pb.secret[ch]]
                if cd.kind == "sum":
                    big = len(sch) * hi + cd.inc - lo
                    row = {pv[c]: 1.0, xv[j]: -big}
                    for ch in sch:
                        row[nv[ch]] = row.get(nv[ch], 0.0) - 1.0
                    m.row(row, cd.inc - big, math.inf)
                elif cd.kind == "max":
                    big = hi + cd.inc - lo
                    for ch in set(sch):
                        m.row({pv[c]: 1.0, nv[ch]: -1.0, xv[j]: -big}, cd.inc - big, math.inf)
    warm_vec = None
    if warm:
        warm_vec = _warm_vector(pb, m, warm, usable, classes, comp, xv, yv, tv, nv, pv, rv, bounds)
    status, x, obj, gap = m.solve(time_limit - (time.perf_counter() - start), warm_vec)
    info: dict[str, object] = {
        "status": status, "objective": obj, "gap": gap, "classes": len(classes),
        "nodes": len(xv), "vars": len(m.lb), "rows": len(m.row_lo), "cyclic_classes": len(comp),
    }
    pick: dict[int, int] = {}
    reduce: set[int] = set()
    if x is not None:
        for c in classes:
            if x[yv[c]] > 0.5:
                pick[c] = max(usable[c], key=lambda j: x[xv[j]])
        reduce = {c for c, r in rv.items() if x[r] > 0.5 and c in pick}
    info["time_s"] = round(time.perf_counter() - start, 4)
    return Solution(status, pick, reduce, info)


def _warm_vector(
    pb: Problem, m: _Milp, warm: Mapping[int, int], usable: list[list[int]], classes: list[int],
    comp: dict[int, int], xv: dict[int, int], yv: dict[int, int], tv: dict[int, int],
    nv: dict[int, int], pv: dict[int, int], rv: dict[int, int], bounds: tuple[float, float],
) -> list[float] | None:
    """A full assignment from a class -> candidate map (None if it is not usable)."""
    lo, hi = bounds
    vec = [lb if math.isfinite(lb) else 0.0 for lb in m.lb]
    chosen: dict[int, int] = {}
    stack = list(pb.roots)
    while stack:
        c = stack.pop()
        if c in chosen:
            continue
        j = warm.get(c)
        if j is None or j not in xv:
            return None
        chosen[c] = j
        stack.extend(pb.cands[j].children)
    order = _topo(chosen, pb)
    if order is None:
        return None
    height: dict[int, float] = {}
    for c in order:
        j = chosen[c]
        vec[xv[j]] = 1.0
        vec[yv[c]] = 1.0
        if c in comp:
            inner = [height[ch] for ch in pb.cands[j].children if comp.get(ch) == comp[c]]
            height[c] = max(inner, default=-1.0) + 1.0
            vec[tv[c]] = height[c]
    if nv:
        post: dict[int, float] = {}
        for c in order:
            if not pb.secret[c]:
                continue
            cd = pb.cands[chosen[c]]
            sch = [ch for ch in cd.children if pb.secret[ch]]
            for _ in range(len(sch) + 1):
                pre = _cand_noise(cd, [post[ch] for ch in sch], lo)
                loud = [ch for ch in sch if post[ch] > lo]
                if pre <= hi or not loud:
                    break
                worst = max(loud, key=lambda ch: post[ch])
                post[worst] = lo
                vec[rv[worst]] = 1.0
                vec[nv[worst]] = lo
            if pre > hi:
                return None
            post[c] = pre
            vec[pv[c]] = pre
            vec[nv[c]] = pre
    return vec


def _cand_noise(cd: Cand, child_bits: list[float], fresh: float) -> float:
    if cd.kind == "fresh":
        return fresh
    if cd.kind == "sum":
        return sum(child_bits) + cd.inc
    return max(child_bits, default=fresh) + cd.inc


def _topo(chosen: Mapping[int, int], pb: Problem) -> list[int] | None:
    """Children-first order of the chosen classes (None if the choice is cyclic)."""
    state: dict[int, int] = {}
    order: list[int] = []
    for root in chosen:
        if root in state:
            continue
        work = [(root, iter(pb.cands[chosen[root]].children))]
        state[root] = 1
        while work:
            c, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                state[c] = 2
                order.append(c)
            elif state.get(nxt) == 1:
                return None
            elif nxt not in state:
                state[nxt] = 1
                work.append((nxt, iter(pb.cands[chosen[nxt]].children)))
    return order


# -- e-graph front end ----------------------------------------------------------
def class_secrecy(g: EGraphView) -> list[bool]:
    """Per class: secret unless it holds a node computed from constants (or a Decode)."""
    plain = [False] * g.num_classes
    missing: list[int] = []
    users: list[list[int]] = [[] for _ in range(g.num_classes)]
    stack: list[int] = []
    for idx, n in enumerate(g.nodes):
        kids = set(n.children)
        if not n.extractable or n.op in ("In", "Encode") or n.cls in kids:
            missing.append(-1)
            continue
        if n.op in CONST_OPS or n.op == "Decode":
            missing.append(0)
            stack.append(idx)
            continue
        missing.append(len(kids))
        for ch in kids:
            users[ch].append(idx)
        if not kids:
            stack.append(idx)
    while stack:
        c = g.nodes[stack.pop()].cls
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
    if n_op in CONST_OPS or n_op == "Decode":
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
    for idx, n in enumerate(g.nodes):
        if not n.extractable:
            continue
        csec = [secret[ch] for ch in n.children]
        c = n.cls
        if not secret[c]:
            if not _plain_producing(n.op, csec):
                continue
            if vals[c] is not None and any(vals[ch] is None for ch in n.children):
                continue  # keep known constants foldable, as the checker sees them
            kind, inc = "plain", 0.0
        elif n.op in ("In", "Encode"):
            kind, inc = "fresh", 0.0
        elif n.op in ("Add", "Sub"):
            kind, inc = "max", 1.0
        elif n.op == "Mul" and all(csec):
            kind, inc = "sum", 0.0
        elif n.op == "Mul":
            pc = n.children[0] if not csec[0] else n.children[1]
            v = vals[pc]
            mag = max((abs(x) for x in v), default=0.0) if v is not None else 2.0**plain_bits
            kind, inc = "max", noise.scale_bits(mag)
        else:
            kind, inc = "max", 0.0
        w = node_cost(n, csec, costs)[0]
        if math.isfinite(w):
            cands.append(Cand(c, w, n.children, kind, inc, idx))
    return Problem(g.num_classes, secret, cands, list(roots))


def _choice_of(pb: Problem, pick: Mapping[int, int], g: EGraphView) -> Choice:
    node = [-1] * g.num_classes
    for c, j in pick.items():
        node[c] = pb.cands[j].ref
    return Choice(node, list(pb.secret))


def _warm_map(pb: Problem, warm: Choice) -> dict[int, int]:
    by_ref = {cd.ref: j for j, cd in enumerate(pb.cands)}
    return {c: by_ref[i] for c, i in enumerate(warm.node) if i >= 0 and i in by_ref}


def ilp_extract(
    g: EGraphView,
    roots: list[int],
    costs: CostTable,
    *,
    time_limit: float = 10.0,
    warm: Choice | None = None,
) -> tuple[Choice, dict[str, object]]:
    """Exact minimum-DAG-cost extraction; on a time limit the best found (or the warm start)."""
    pb = egraph_problem(g, roots, costs)
    sol = solve(pb, with_noise=False, time_limit=time_limit, warm=_warm_map(pb, warm) if warm else None)
    info = dict(sol.info)
    if sol.pick:
        return _choice_of(pb, sol.pick, g), info
    if sol.status == "infeasible":
        from eqsat.extract.dag import ExtractionError

        raise ExtractionError("the e-graph holds no finite program for a root")
    info["fallback"] = "warm" if warm is not None else "greedy"
    return (warm if warm is not None else greedy_dag(g, costs)), info


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
        warm=_warm_map(pb, warm) if warm else None,
    )
    info = dict(sol.info)
    if not sol.pick:
        return None, info
    info["reduce_noise"] = len(sol.reduce)
    return NoisyChoice(_choice_of(pb, sol.pick, g), set(sol.reduce)), info


def build_noisy(g: EGraphView, nc: NoisyChoice, roots: list[int], original: Program) -> Program:
    """``to_program`` with a ``reduce_noise`` after every class in ``nc.reduce``."""
    b = Builder(original.name, style=original.style)
    b.meta.update(original.meta)
    elem_by_name: dict[str, Type] = {}
    for name, ty in original.args:
        b.arg(name, ty)
        elem_by_name[name] = ty
    elem = _program_elem(original)
    built: dict[int, int] = {}

    def vec_type(n: int, secret: bool) -> Type:
        return Type(() if n == 1 else (n,), elem, secret)

    order = _topo({c: i for c, i in enumerate(nc.choice.node) if i >= 0}, _node_problem(g, nc.choice))
    if order is None:
        from eqsat.extract.dag import ExtractionError

        raise ExtractionError("extracted program is cyclic")
    needed = _reachable(g, nc.choice, roots)
    for c in order:
        if c not in needed:
            continue
        n = g.nodes[nc.choice.node[c]]
        out = _emit(b, n, [built[ch] for ch in n.children], vec_type, elem_by_name)
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


def extract_noisy(
    g: EGraphView,
    roots: list[int],
    original: Program,
    costs: CostTable,
    *,
    time_limit: float = 10.0,
) -> tuple[Program, dict[str, object]]:
    """Joint extraction + placement, checked; falls back to greedy DAG + greedy placement.

    Raises ``noise.NoiseError`` when no placement fits (the ILP proves it infeasible and
    the greedy fallback finds nothing either).
    """
    plain_bits = noise.elem_bits(_program_elem(original))
    nc, info = ilp_extract_noisy(g, roots, costs, time_limit=time_limit, plain_bits=plain_bits,
                                 warm=greedy_dag(g, costs))
    if nc is not None:
        prog = build_noisy(g, nc, roots, original)
        noise.check(prog)
        return prog, info
    if info.get("status") == "infeasible":
        raise noise.NoiseError("no reduce_noise placement keeps the noise within the budget")
    greedy = greedy_dag(g, costs)
    info["fallback"] = "greedy"
    return noise.place_greedy(to_program(g, greedy, roots, original).compact()), info


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
    return Problem(pb.num_classes, pb.secret, cands, pb.roots)


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
        warm=_warm_map(pb, warm) if warm else None, bounds=(0.0, float(max_level)), allow_reduce=bootstrap,
    )
    info = dict(sol.info)
    if not sol.pick:
        return None, info
    info["bootstrap"] = len(sol.reduce)
    return _choice_of(pb, sol.pick, g), info


# -- noisy: placement only, on a fixed program (the article's model) ------------------
def program_problem(prog: Program) -> Problem:
    """One class and one candidate per live node (cost 0: the program is fixed)."""
    live = prog.live()
    mags = noise.plain_magnitudes(prog)
    secret = [False] * len(prog.nodes)
    cands: list[Cand] = []
    for i in live:
        n = prog.nodes[i]
        secret[i] = n.type.secret
        if not n.type.secret:
            kind, inc = "plain", 0.0
        elif n.op in noise.FRESH_OPS:
            kind, inc = "fresh", 0.0
        elif n.op in ("add", "sub"):
            kind, inc = "max", 1.0
        elif n.op == "mul" and all(prog.nodes[a].type.secret for a in n.args):
            kind, inc = "sum", 0.0
        elif n.op == "mul":
            pa = n.args[0] if not prog.nodes[n.args[0]].type.secret else n.args[1]
            kind, inc = "max", noise.scale_bits(mags[pa])
        else:
            kind, inc = "max", 0.0
        cands.append(Cand(i, 0.0, n.args, kind, inc, i))
    return Problem(len(prog.nodes), secret, cands, list(prog.results))


def solve_placement(prog: Program, *, time_limit: float = 10.0) -> tuple[Program, dict[str, object]]:
    """The placement-only ILP: fewest reduce_noise making ``prog`` legal, and its info.

    Existing management ops are kept (reduce_noise/bootstrap count as fresh).  Raises
    ``noise.NoiseError`` if no placement fits; on a time limit returns the best found
    (or the greedy placement, ``info["fallback"] = "greedy"``).
    """
    pb = program_problem(prog)
    sol = solve(pb, with_noise=True, reduce_cost=1.0, time_limit=time_limit,
                warm={cd.cls: j for j, cd in enumerate(pb.cands)})
    info = dict(sol.info)
    if not sol.pick:
        if sol.status == "infeasible":
            raise noise.NoiseError("no reduce_noise placement keeps the noise within the budget")
        info["fallback"] = "greedy"
        return noise.place_greedy(prog), info
    info["reduce_noise"] = len(sol.reduce)
    out = insert_reduce(prog, sol.reduce)
    noise.check(out)
    return out, info


def place_noisy_ilp(prog: Program, *, time_limit: float = 10.0) -> Program:
    """The article's optimal reduce_noise placement on a fixed program."""
    return solve_placement(prog, time_limit=time_limit)[0]


def insert_reduce(prog: Program, after: set[int]) -> Program:
    """``prog`` with a reduce_noise right after every node in ``after`` (all uses rewired)."""
    from eqsat.mgmt.placement import insert_after

    return insert_after(prog, after, "reduce_noise")
