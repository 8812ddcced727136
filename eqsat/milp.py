"""The one MILP model (HiGHS) behind exact extraction and management placement.

In: a ``Problem`` -- classes, one ``Cand`` (cost, children, noise behaviour) per
alternative, roots -- and options (noise bounds, reduce/bootstrap cost, warm start, time
limit). Out: a ``Solution`` (one pick per needed class, the classes followed by a
reduction, status and info). ``Milp`` is the thin HiGHS wrapper. Extraction
(``eqsat.extract``) and placement (``eqsat.mgmt``) both build ``Problem`` s; neither
imports the other.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Callable, Container, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from eqsat import milp_bnb, milp_contract, milp_cover, milp_cuts, milp_hitting, milp_reduce
from eqsat.algebra.graphs import strongly_connected
from eqsat.fast_init import fast_init
from eqsat.models import noisy as noise

if TYPE_CHECKING:
    import highspy


# -- the abstract problem ---------------------------------------------------------
@fast_init
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
    #: shared costs: (cost, candidate indices) paid once when any listed candidate is
    #: chosen -- e.g. the key-switching decomposition that rotations of one input share
    #: (each rotation candidate then carries only its hoisted increment)
    setups: list[tuple[float, tuple[int, ...]]] = field(default_factory=list)


@dataclass
class Solution:
    status: str
    pick: dict[int, int]  # class -> index into Problem.cands
    reduce: set[int]
    info: dict[str, object] = field(default_factory=dict)


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """Send the process's file descriptor 1 to the null device for the block (C libraries
    write to the descriptor, not to ``sys.stdout``)."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):  # no usable descriptor 1 (e.g. a closed stdout)
        yield
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


#: how HiGHS searches (not what it finds: every model is still solved to proven optimality,
#: time permitting). The extraction models start from the greedy program, which is usually
#: optimal already, so nearly all of a solve is the proof -- closing the gap from a weak LP
#: bound (the DAG-sharing relaxation). Reliability branching's strong-branching probes (8 per
#: variable by default; 1 here) and restarting the root after presolve fixes columns were
#: most of that: over the 42 extraction models of examples/ and tests/heir_cases/ with more
#: than 60 candidates, CPU 21.7 -> 16.9 s (sums of per-model medians), every objective equal,
#: every one optimal, none slower (0 probes: 16.7 s, but rr_product_loop_32 5.8 -> 6.6 s).
SEARCH_OPTIONS: dict[str, bool | int] = {"mip_pscost_minreliable": 1, "mip_allow_restart": False}
#: how HiGHS searches an extraction model (no noise) that starts from the greedy program: the
#: start is usually optimal already, so the solve is a proof. No primal heuristics (RINS, RENS,
#: feasibility jump, root reduced-cost dives look for a program that is there; branching still
#: finds a better one), and a small cut pool: HiGHS kept thousands of cuts at the root of a
#: 200-column model (4,664 for dot_product_8: 1.8 s of separation for 742 LP iterations). Over the
#: 42 extraction models of examples/ and tests/heir_cases/: README, issue 16.
#: No strong-branching probes either (``mip_pscost_minreliable`` 0, over ``SEARCH_OPTIONS``' 1):
#: with the cycle inequalities most proofs close at the root, where the probes were most of the
#: LP iterations (dot_product_8: 1,485 of 2,163). Over the 48 extraction models of the suite
#: (every kernel of examples/ and tests/heir_cases/ but box_blur_64x64), CPU medians of 5:
#: 1.86 -> 1.58 s in all, none more than 10% slower, every status and objective the same.
PROOF_OPTIONS: dict[str, bool | int | float] = {
    "mip_heuristic_effort": 0.0, "mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False,
    "mip_heuristic_run_feasibility_jump": False, "mip_heuristic_run_root_reduced_cost": False,
    "mip_pool_soft_limit": 50, "mip_pscost_minreliable": 0,
}


#: the proof budget of an extraction model that starts from a known program (a warm start,
#: no noise): once the best program has not improved for this many CPU seconds, the solve
#: stops and returns it with status ``"stalled"``, its gap and ``proven`` False (never as
#: optimal). Over the 50 extraction models of examples/ and tests/heir_cases/ with more than
#: 60 candidates, every program the solver returned was found within 0.3 s (most are the
#: start itself), while a proof took up to 3 s (rr_product_loop_32: 5 rotations found at
#: once, proven after 134 branch-and-bound nodes): experiments/extraction_ilp.py --timeline.
PROOF_STALL_S = 0.5

#: rounds of the LP relaxation that pick the violated hitting-set rows (``eqsat.milp_hitting``)
#: before the MILP, and the most reachable classes whose hitting sets are listed. The rows lift
#: the relaxation where a root splits over sums that each bring the slots by other rotations
#: (dot_product_8: LP 23.8 -> 49.3; the root then closes in a few nodes instead of 33). Over the
#: suite's 48 extraction models (experiments/extraction_ilp.py's models; each model's variants
#: alternated in one process, CPU medians of 5): without the rows 1.86 s, one round 1.46 s, two
#: 1.50 s (a second round's rows mostly slowed an already fast search); dot_product_8
#: 0.171 -> 0.058 s, rr_not_supported_repeated_indices 0.110 -> 0.022 s, heco_hamming_distance_4
#: 0.089 -> 0.026 s; small models that HiGHS solved at once pay 5-10 ms for the LP and the
#: families (rr_mixed_rotation_extraction 0.015 -> 0.023 s). Above 200 classes HiGHS's own root
#: cuts close the same gap, and the extra LP and the families cost more than they save
#: (roberts_cross_16x16 0.10 -> 0.25 s with them). The classes counted are those of the e-graph
#: the model spans, the ones the contraction (``eqsat.milp_contract``) merged into candidates
#: included: a stencil's model contracted to a few dozen classes (roberts_cross_16x16: 2,076 -> 28)
#: gained nothing from the LP round and the second start (a greedy pass over the whole e-graph)
#: either (its extraction CPU 0.043 s with them, 0.031 s without; heco_gx_kernel_8x8 0.033 ->
#: 0.023 s; in-process A/B over the suite's 71 models, medians of 7).
CUT_ROUNDS = 1
HITTING_MAX_CLASSES = 200
#: the most reachable classes (after the contraction and the reductions) of a model without noise
#: that the exact search of ``eqsat.milp_bnb`` solves before the MILP. Over the suite's extraction
#: models (every kernel of examples/ and tests/heir_cases/ but box_blur_64x64) the 13 whose start
#: the bounds do not prove have 8-75 classes and need 8-1,068 search nodes
#: (rr_not_supported_repeated_indices the most), against ``eqsat.milp_bnb.NODE_BUDGET`` 4,000; the
#: MILP took 48-60 ms of CPU for rr_rotation_duplicated and rr_not_supported_repeated_indices,
#: the search 5-7 ms (ilp_extract in all, in-process medians of 11).
BNB_MAX_CLASSES = 80


class Milp:
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
        #: after ``solve``: CPU seconds from its start to the best solution's (None: none found)
        self.found_s: float | None = None
        #: after ``solve``: how many rows ``separate`` added, and what proved the result:
        #: ``"highs"`` (the MILP) or ``"lp"`` (a relaxation's bound met the warm start)
        self.cuts_added = 0
        self.solver = "highs"
        #: after ``solve``: None when no second start was asked for, else whether it was cheaper
        self.second_used: bool | None = None

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

    def _highs(self, time_limit: float) -> highspy.Highs:
        """A HiGHS instance holding the model (quiet, one thread, the time limit)."""
        import highspy  # imported on first solve: runs that never solve an MILP do not pay for it

        with _quiet_stdout():  # HiGHS prints its banner on construction; stdout is for results
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
        return h

    def feasible(self, x: list[float], tol: float = 1e-6) -> bool:
        """Does ``x`` satisfy every bound, integrality and row (within ``tol``)?"""
        if len(x) != len(self.lb):
            return False
        for v, lo, hi, integer in zip(x, self.lb, self.ub, self.integer, strict=True):
            if v < lo - tol or v > hi + tol or (integer and abs(v - round(v)) > tol):
                return False
        for r, (lo, hi) in enumerate(zip(self.row_lo, self.row_hi, strict=True)):
            act = sum(self.value[k] * x[self.index[k]] for k in range(self.starts[r], self.starts[r + 1]))
            if act < lo - tol or act > hi + tol:
                return False
        return True

    def _cut_rounds(
        self, separate: Callable[[list[float]], list[dict[int, float]]], time_limit: float, target: float | None
    ) -> float | None:
        """Solve the LP relaxation and add the rows (``>= 0``) that ``separate`` finds violated by
        its solution, up to ``CUT_ROUNDS`` times (``self.cuts_added`` counts them). Returns the
        last relaxation's bound, rounded up when every cost is an integer (so is every
        objective), or None when none was solved; it stops early once the bound reaches
        ``target``: no solution is cheaper than ``target``. The MILP is solved from a
        fresh instance (HiGHS mapped a warm start into its presolved space at a worse objective
        when the rows were added to the instance that had solved the relaxation)."""
        import highspy

        h = self._highs(time_limit)
        h.setOptionValue("solve_relaxation", True)
        integral = all(float(c).is_integer() for c in self.cost)
        bound: float | None = None
        for rnd in range(CUT_ROUNDS + 1):
            h.run()
            if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                break
            bound = float(h.getInfo().objective_function_value)
            tol = 1e-6 * max(1.0, abs(bound))
            bound = float(math.ceil(bound - tol)) if integral else bound
            if target is not None and bound + 1e-6 * max(1.0, abs(target)) >= target:
                return bound
            if rnd == CUT_ROUNDS:
                break
            rows = separate(list(h.getSolution().col_value))
            if not rows:
                break
            for row in rows:
                idx = np.fromiter(row.keys(), dtype=np.int32, count=len(row))
                val = np.fromiter(row.values(), dtype=float, count=len(row))
                h.addRow(0.0, math.inf, len(idx), idx, val)
                self.row(row, 0.0, math.inf)
            self.cuts_added += len(rows)
        return bound

    def solve(
        self, time_limit: float, warm: list[float] | None,
        options: Mapping[str, bool | int | float] | None = None, stall_s: float | None = None,
        separate: Callable[[list[float]], list[dict[int, float]]] | None = None,
        cutoff: float | None = None, second: Callable[[float], bool] | None = None,
    ) -> tuple[str, list[float] | None, float, float]:
        """(status, solution, objective, gap). ``stall_s``: stop (status ``"stalled"``) once the
        best solution has not improved for that many CPU seconds. ``separate``: given a solution
        of the LP relaxation, valid rows ``sum coefs * x >= 0`` that it violates; they are added
        before the MILP, for up to ``CUT_ROUNDS`` rounds of the relaxation (``self.cuts_added``
        counts them); when a relaxation's bound meets the objective of a feasible ``warm``, it is
        returned as optimal without the MILP. ``cutoff``: only solutions below it count (HiGHS's
        ``objective_bound``); with none below, the status is ``"infeasible"``. ``second``: given
        the cost of ``warm``, whether a cheaper start is known, asked only when the relaxations
        (``separate``) did not prove ``warm``; if so, the status is ``"restart"`` at once (the
        caller solves again from it: its cost prunes more)."""
        self.found_s = None
        self.cuts_added = 0
        self.solver = "highs"
        self.second_used = None
        if not self.lb:
            # no columns (e.g. a program with no secret value left): the empty solution is
            # optimal; HiGHS calls such a model "empty" and returns no solution
            return "optimal", [], 0.0, 0.0
        import highspy  # imported on first solve: runs that never solve an MILP do not pay for it

        if separate is not None:
            target = float(np.dot(self.cost, warm)) if warm is not None else None
            bound = self._cut_rounds(separate, time_limit, target)
            met = bound is not None and target is not None and bound + 1e-6 * max(1.0, abs(target)) >= target
            if not met and target is not None and second is not None:
                self.second_used = second(target)
                if self.second_used:
                    return "restart", None, math.inf, math.inf
            if met and warm is not None and self.feasible(warm):
                # the relaxation's bound meets the warm start: optimal without a search
                self.found_s = 0.0
                self.solver = "lp"
                return "optimal", list(warm), float(target or 0.0), 0.0
        h = self._highs(time_limit)
        for name, value in SEARCH_OPTIONS.items():
            h.setOptionValue(name, value)
        for name, setting in (options or {}).items():
            h.setOptionValue(name, setting)
        if cutoff is not None:
            h.setOptionValue("objective_bound", cutoff)
        if warm is not None:
            sol = highspy.HighsSolution()
            sol.col_value = warm
            sol.value_valid = True
            h.setSolution(sol)
        clock = _Incumbents(time.process_time(), stall_s)
        h.setCallback(clock.callback, None)
        h.startCallback(highspy.cb.HighsCallbackType.kCallbackMipImprovingSolution)
        if stall_s is not None:
            h.startCallback(highspy.cb.HighsCallbackType.kCallbackMipInterrupt)
        h.run()
        self.found_s = clock.found_s
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
        elif st == highspy.HighsModelStatus.kInterrupt and clock.stalled:
            status = "stalled"
        else:
            status = h.modelStatusToString(st).lower().replace(" ", "_")
        if cutoff is not None and x is not None and float(np.dot(self.cost, x)) >= cutoff:
            # only solutions below the cutoff count (HiGHS can hand back a start it did not accept)
            status, x, has_sol = "infeasible", None, False
        gap = float(info.mip_gap) if has_sol and math.isfinite(info.mip_gap) else math.inf
        obj = float(info.objective_function_value) if has_sol else math.inf
        return status, x, obj, (0.0 if status == "optimal" else gap)


def _stall(given: float | None) -> float | None:
    """The proof budget in force: ``given``, else ``PROOF_STALL_S``; None when unlimited."""
    budget = PROOF_STALL_S if given is None else given
    return budget if math.isfinite(budget) else None


class _Incumbents:
    """HiGHS callbacks: when the best solution last improved (by a relative 1e-6 or more), and an
    interrupt once it has not for ``stall_s`` CPU seconds."""

    def __init__(self, start: float, stall_s: float | None) -> None:
        self.start = start
        self.stall_s = stall_s
        self.best = math.inf
        self.found_s: float | None = None
        self.stalled = False

    def callback(self, kind: object, _message: str, out: object, into: object, _data: object) -> None:
        import highspy

        now = time.process_time() - self.start
        if kind == highspy.cb.HighsCallbackType.kCallbackMipImprovingSolution:
            value = float(out.objective_function_value)  # type: ignore[attr-defined]
            if value < self.best - 1e-6 * max(1.0, abs(self.best)) or self.found_s is None:
                self.found_s = now
            self.best = min(self.best, value)
        elif (kind == highspy.cb.HighsCallbackType.kCallbackMipInterrupt and self.stall_s is not None
              and self.found_s is not None and now - self.found_s >= self.stall_s):
            self.stalled = True
            into.user_interrupt = True  # type: ignore[attr-defined]


def _prune(pb: Problem, drop: frozenset[int] = frozenset()) -> tuple[list[list[int]], list[int]] | None:
    """Per-class usable candidates and the reachable classes; None if a root has no program.
    Candidates in ``drop`` are left out."""
    return _Pruner(pb)(drop)


class _Pruner:
    """``_prune`` of one problem for many drop sets (``solve`` prunes once, and again after every
    reduction round that drops candidates): what does not depend on the drop set -- which
    candidates can be usable at all (finite cost, not their own class's child), their distinct
    child classes (``eqsat.milp_reduce.Index``) and each class's users -- is made once."""

    def __init__(self, pb: Problem, index: milp_reduce.Index | None = None) -> None:
        self.pb = pb
        ix = index if index is not None else milp_reduce.Index(pb)
        self.cls = ix.cls
        self.kids = ix.kids
        k = pb.num_classes
        #: the candidates that can be usable, in index order
        self.eligible: list[int] = []
        #: per candidate: how many distinct child classes it has (-1: never usable)
        self.count = [-1] * len(pb.cands)
        #: per class: the candidates that can be usable and have it as a child
        self.users: list[list[int]] = [[] for _ in range(k)]
        for j, cd in enumerate(pb.cands):
            if cd.cls in cd.children or not math.isfinite(cd.cost):
                continue
            self.eligible.append(j)
            kids = self.kids[j]
            self.count[j] = len(kids)
            for ch in kids:
                self.users[ch].append(j)

    def __call__(self, drop: frozenset[int] = frozenset()) -> tuple[list[list[int]], list[int]] | None:
        pb = self.pb
        k = pb.num_classes
        cls, kids, users = self.cls, self.kids, self.users
        by_class: list[list[int]] = [[] for _ in range(k)]
        # productive classes: those with a finite program (worklist over missing children); a
        # dropped candidate's count goes below zero, so it never reaches 0
        missing = list(self.count)
        for j in drop:
            missing[j] = -1
        stack: list[int] = []
        for j in self.eligible:
            m = missing[j]
            if m < 0:
                continue
            by_class[cls[j]].append(j)
            if m == 0:
                stack.append(j)
        productive = [False] * k
        while stack:
            c = cls[stack.pop()]
            if productive[c]:
                continue
            productive[c] = True
            for u in users[c]:
                m = missing[u] - 1
                missing[u] = m
                if m == 0:
                    stack.append(u)
        for r in pb.roots:
            if not productive[r]:
                return None
        # a candidate is usable when every child is productive: its count of children not yet
        # productive reached 0
        usable = [[j for j in js if missing[j] == 0] if js else js for js in by_class]
        seen = [False] * k
        reached: list[int] = []
        stack = list(pb.roots)
        while stack:
            c = stack.pop()
            if seen[c]:
                continue
            seen[c] = True
            reached.append(c)
            for j in usable[c]:
                stack.extend(kids[j])
        reached.sort()
        return usable, reached


def _sccs(classes: list[int], usable: list[list[int]], pb: Problem) -> dict[int, int]:
    """Class -> component id for classes in a non-trivial SCC."""
    succ = {c: sorted({ch for j in usable[c] for ch in pb.cands[j].children}) for c in classes}
    cyclic = [members for members in strongly_connected(classes, succ) if len(members) > 1]
    return {c: k for k, members in enumerate(cyclic) for c in members}


def solve(
    pb: Problem,
    *,
    with_noise: bool,
    reduce_cost: float = 1.0,
    time_limit: float = 10.0,
    warm: Mapping[int, int] | None = None,
    bounds: tuple[float, float] = (float(noise.FRESH), float(noise.LIMIT)),
    allow_reduce: bool = True,
    proof_stall_s: float | None = None,
    second_start: Callable[[set[int]], Mapping[int, int] | None] | None = None,
    contract: bool = True,
    spans: Callable[[set[int]], int] | None = None,
) -> Solution:
    """Solve the extraction (and, ``with_noise``, reduce_noise placement) MILP.

    ``bounds`` = (fresh, limit): the value after a reduction (and of a ``fresh``
    candidate) and the largest legal value.  The noisy model is (12, 26); the same
    model with (0, L), ``inc`` 1 per multiplication and ``max`` everywhere places
    bootstraps under a budget of L levels (``eqsat.mgmt.placement``).  ``allow_reduce=False``
    forbids the reduction (the program must fit as it is). ``proof_stall_s``: the proof budget
    of a model without noise that has a usable warm start (None: ``PROOF_STALL_S``; ``math.inf``:
    prove to the end, time permitting). ``second_start``: without noise, another program
    (class -> candidate, like ``warm``; given the candidates the reductions kept, which hold
    every program cheaper than ``warm``) asked for only where the hitting-set relaxation runs
    (up to ``HITTING_MAX_CLASSES`` classes) and neither its bound nor the reductions' proves
    ``warm``; where it is cheaper the solve starts again from it, whose cost prunes more (info
    ``second_start``: whether it did; absent when it was not asked for).

    Without noise, a model of at most ``BNB_MAX_CLASSES`` classes (after the reductions) with a
    warm start that the bounds do not prove is solved by the exact search of ``eqsat.milp_bnb``
    (info ``solver`` "bnb", ``bnb_nodes``; no second start); the MILP only where that search
    runs out of nodes. Without noise the problem is first contracted (``eqsat.milp_contract``: classes that only
    one class uses merged into its candidates; info ``absorbed``: how many), solved, and the
    choice expanded back: the same programs and costs on fewer columns. ``contract=False``
    solves ``pb`` as it is (the contracted problem's own solve); ``spans``: given the candidates
    kept, the classes of the original problem they stand for, which count for
    ``HITTING_MAX_CLASSES`` (None: the model's own classes).
    """
    start = time.perf_counter()
    ct = milp_contract.contract(pb) if contract and not with_noise else None
    if ct is not None:
        contracted_start = None
        if second_start is not None:
            def contracted_start(kept: set[int]) -> Mapping[int, int] | None:
                alt = second_start(ct.originals(kept))
                return ct.start(alt) if alt is not None else None
        sol = solve(ct.problem, with_noise=False,  # type: ignore[arg-type]
                    time_limit=time_limit - (time.perf_counter() - start), warm=ct.start(warm) if warm else None,
                    proof_stall_s=proof_stall_s, second_start=contracted_start, contract=False,
                    spans=lambda kept: len({pb.cands[k].cls for k in ct.originals(kept)}))
        sol.pick = ct.expand(sol.pick, pb.cands)
        sol.info["absorbed"] = ct.absorbed
        sol.info["time_s"] = round(time.perf_counter() - start, 4)
        return sol
    index = milp_reduce.Index(pb)  # what the prunes and reductions read of the candidates: made once
    prune = _Pruner(pb, index)
    pr = prune()
    if pr is None:
        why = {"status": "infeasible", "reason": "a root has no finite program"}
        return Solution("infeasible", {}, set(), dict(why))
    usable, classes = pr
    full = pr
    # safe reductions (eqsat.milp_reduce): dominated candidates, and -- without noise, where the
    # warm start's cost is an incumbent -- candidates in no solution as cheap as it
    known = _warm_cost(pb, warm, usable) if warm else None
    red, usable, classes = milp_reduce.reduce(
        pb, lambda drop: prune(drop) or ([], []), with_noise=with_noise,
        incumbent=None if with_noise or known is None else known[0],
        keep=set(known[1].values()) if known is not None else None, start=(usable, classes), index=index)
    if warm and red.dropped:
        warm = {c: _replacement(j, red.dropped) for c, j in warm.items()}
    # the cost covers' bound (eqsat.milp_cover: what every program pays within sets of classes and
    # shared costs, summed over disjoint ones) beside the path bound, where that one does not
    # prove the start. As rows of the relaxation the covers slowed the search where they did not
    # close it (rr_reduce_add_and_mul_32 0.027 -> 0.114 CPU s, dot_product_8 0.037 -> 0.066): the
    # bound only
    lower = red.bound
    unproven = not with_noise and known is not None and known[0] > red.bound + 1e-6 * (1.0 + abs(known[0]))
    covered: list[float] = []

    def cover_bound() -> float:
        if not covered:
            covers = milp_cover.cover(pb, usable, classes)
            covered.append(max(red.bound, covers.roots_bound(pb.roots)) if covers is not None else red.bound)
        return covered[0]

    if unproven and known is not None and len(classes) <= BNB_MAX_CLASSES:
        # a small problem: the exact search of eqsat.milp_bnb, the MILP only when it runs out of
        # nodes. The covers' bound only once the search has taken eqsat.milp_bnb.FLOOR_AFTER nodes
        # (most searches end sooner, and the covers cost more than they: rr_rotation_duplicated
        # 4 ms against 2 ms for its 231 nodes)
        found = milp_bnb.search(pb, usable, classes, known[0], floor=cover_bound)
        if found is not None:
            best = found.pick if found.better else {c: _replacement(j, red.dropped) for c, j in known[1].items()}
            bound = covered[0] if covered else red.bound
            info: dict[str, object] = {
                "status": "optimal", "objective": found.cost, "gap": 0.0, "classes": len(classes),
                "nodes": sum(len(usable[c]) for c in classes), "vars": 0, "rows": 0, "cyclic_classes": 0,
                "solver": "bnb", "bnb_nodes": found.nodes, "pruned": len(red.dropped),
                "bound": bound if math.isfinite(bound) else None, "proven": True,
                "time_s": round(time.perf_counter() - start, 4),
            }
            return Solution("optimal", best, set(), info)
    if unproven:
        lower = cover_bound()
    reduced = {"pruned": len(red.dropped), "bound": lower if math.isfinite(lower) else None}
    if not with_noise and known is not None and known[0] <= lower + 1e-6 * (1.0 + abs(known[0])):
        # the warm start meets the lower bound: optimal without a solve
        met = {c: _replacement(j, red.dropped) for c, j in known[1].items()}
        info = {
            "status": "optimal", "objective": known[0], "gap": 0.0, "classes": len(classes),
            "nodes": sum(len(usable[c]) for c in classes), "vars": 0, "rows": 0, "cyclic_classes": 0,
            "solver": "bound", **reduced, "proven": True, "time_s": round(time.perf_counter() - start, 4),
        }
        return Solution("optimal", met, set(), info)
    comp = _sccs(classes, usable, pb)
    comp_size: dict[int, int] = {}
    for cid in comp.values():
        comp_size[cid] = comp_size.get(cid, 0) + 1
    # acyclicity: the cycle inequalities of eqsat.milp_cuts; ordering variables only in the
    # components where those do not list every cycle
    succ = {c: [ch for j in usable[c] for ch in pb.cands[j].children] for c in comp}
    cycles = milp_cuts.cycle_sets(succ, comp)
    m = Milp()
    roots = set(pb.roots)
    xv: dict[int, int] = {}
    yv: dict[int, int] = {}
    tv: dict[int, int] = {}
    # a class with one candidate outside the cyclic components: x_j = y_c is one column (most
    # classes of a stencil's e-graph, roberts_cross_16x16: 2,076 of 2,097 candidates)
    single = {c for c in classes if len(usable[c]) == 1 and c not in comp}
    for c in classes:
        yv[c] = m.var(1.0 if c in roots else 0.0, 1.0, pb.cands[usable[c][0]].cost if c in single else 0.0, True)
        for j in usable[c]:
            xv[j] = yv[c] if c in single else m.var(0.0, 1.0, pb.cands[j].cost, True)
        if c in comp and not cycles[comp[c]][1]:
            tv[c] = m.var(0.0, comp_size[comp[c]] - 1.0)
    for c in classes:
        if c not in single:
            row = {xv[j]: 1.0 for j in usable[c]}
            row[yv[c]] = -1.0
            m.row(row, 0.0, 0.0)
        # a child class is needed by the sum of the class's nodes that use it: one row per
        # (class, child) -- valid since at most one node of a class is chosen, and tighter in
        # the LP relaxation than one row per (node, child), where a class split over several
        # nodes that share a child needs that child only at the largest fraction
        users: dict[int, list[int]] = {}
        for j in usable[c]:
            for ch in set(pb.cands[j].children):
                users.setdefault(ch, []).append(j)
        for ch, js in users.items():
            row = {xv[j]: 1.0 for j in js}
            row[yv[ch]] = row.get(yv[ch], 0.0) - 1.0
            m.row(row, -math.inf, 0.0)
        for j in usable[c]:
            for ch in set(pb.cands[j].children):
                if c in tv and comp.get(ch) == comp[c]:
                    big = float(comp_size[comp[c]])
                    m.row({tv[c]: 1.0, tv[ch]: -1.0, xv[j]: -big}, 1.0 - big, math.inf)
    for sets, _complete in cycles.values():
        for cyc in sets:
            # sum of S's candidates with a child in S <= sum_{c in S} y_c - y_m, every m in S
            inner = {xv[j]: 1.0 for c in cyc for j in usable[c] if any(ch in cyc for ch in pb.cands[j].children)}
            for mc in cyc:
                row = dict(inner)
                for c in cyc:
                    if c != mc:
                        row[yv[c]] = -1.0
                m.row(row, -math.inf, 0.0)
    setup_vars: list[tuple[int, list[int]]] = []
    for cost, members in pb.setups:  # f >= x_j for every member: paid once if any is chosen
        cols = [xv[j] for j in members if j in xv]
        if cols:
            f = m.var(0.0, 1.0, cost, True)
            setup_vars.append((f, cols))
            for col in cols:
                m.row({col: 1.0, f: -1.0}, -math.inf, 0.0)
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
        if warm_vec is not None:
            for f, cols in setup_vars:
                warm_vec[f] = 1.0 if any(warm_vec[col] > 0.5 for col in cols) else 0.0
    proof = PROOF_OPTIONS if warm_vec is not None and not with_noise else None
    separate = None
    spanned = len(classes) if spans is None or with_noise else spans({j for c in classes for j in usable[c]})
    if not with_noise and spanned <= HITTING_MAX_CLASSES:
        def separate(sol: list[float]) -> list[dict[int, float]]:
            # every program of d holds a class of S: sum_S y >= y_d (eqsat.milp_hitting)
            y = {c: sol[yv[c]] for c in classes}
            rows = []
            for d, sets in milp_hitting.hitting_sets(pb, usable, classes, y).items():
                for hs in sets:
                    if sum(y[c] for c in hs) < y[d] - 1e-6:
                        row = {yv[c]: 1.0 for c in hs}
                        row[yv[d]] = row.get(yv[d], 0.0) - 1.0
                        rows.append(row)
            return rows
    second = None
    other: list[dict[int, int]] = []
    if second_start is not None and proof is not None and separate is not None:
        def second(cost: float) -> bool:
            alt = second_start({j for c in classes for j in usable[c]})
            if alt:
                got = _warm_cost(pb, alt, full[0])
                if got is not None and got[0] < cost - 1e-6 * max(1.0, abs(cost)):
                    other.append(dict(alt))
                    return True
            return False
    cutoff = None
    if proof is not None and warm_vec is not None:
        # HiGHS maps a warm start into its presolved model, and where presolve's dual reductions
        # pick another of several equal choices, the start arrives worse (dot_product_8: 118 for
        # 105) and its search must find the program again: solutions count only below the
        # start's cost (plus a tolerance), so the search prunes with it from the root
        wv = float(np.dot(m.cost, warm_vec))
        cutoff = wv + 1e-6 * max(1.0, abs(wv))
    status, x, obj, gap = m.solve(time_limit - (time.perf_counter() - start), warm_vec, proof,
                                  stall_s=_stall(proof_stall_s) if proof is not None else None, separate=separate,
                                  cutoff=cutoff, second=second)
    if status == "restart":
        # a cheaper second start: solve again from it (its cost prunes more in the reductions)
        again = solve(pb, with_noise=with_noise, reduce_cost=reduce_cost,
                      time_limit=time_limit - (time.perf_counter() - start), warm=other[0], bounds=bounds,
                      allow_reduce=allow_reduce, proof_stall_s=proof_stall_s, contract=False)
        again.info["second_start"] = True
        again.info["time_s"] = round(time.perf_counter() - start, 4)
        return again
    second_used = m.second_used
    if cutoff is not None and status == "infeasible":
        # nothing below the cutoff found (a tolerance, or presolve): solve again without it
        status, x, obj, gap = m.solve(time_limit - (time.perf_counter() - start), warm_vec, proof,
                                      stall_s=_stall(proof_stall_s))
    if x is not None and warm_vec is not None and status in ("optimal", "stalled"):
        got = float(sum(c * v for c, v in zip(m.cost, x, strict=True)))
        if got > obj + 1e-6 * max(1.0, abs(obj)):
            # HiGHS can report an optimum below the solution it hands back, which is then the
            # warm start (seen when presolve alone solves the model): solve again without it
            status, x, obj, gap = m.solve(time_limit - (time.perf_counter() - start), None, None)
    info = {
        "status": status, "objective": obj, "gap": gap, "classes": len(classes),
        "nodes": len(xv), "vars": len(m.lb), "rows": len(m.row_lo), "cyclic_classes": len(comp),
        "solver": m.solver, **reduced, "proven": status == "optimal", "hitting_rows": m.cuts_added,
    }
    if second_used is not None:
        info["second_start"] = second_used
    if m.found_s is not None:
        info["found_s"] = round(m.found_s, 4)  # CPU seconds of the solver to the program returned
    pick: dict[int, int] = {}
    reduce: set[int] = set()
    if x is not None:
        for c in classes:
            if x[yv[c]] > 0.5:
                pick[c] = max(usable[c], key=lambda j: x[xv[j]])
        reduce = {c for c, r in rv.items() if x[r] > 0.5 and c in pick}
    info["time_s"] = round(time.perf_counter() - start, 4)
    return Solution(status, pick, reduce, info)


def _replacement(j: int, dropped: Mapping[int, int]) -> int:
    """The candidate standing for ``j`` after the reduction: ``j`` itself if kept, else its
    dominator's (a dominator may be dominated in a later round), or ``j`` if cut by the bound."""
    while dropped.get(j, -1) >= 0:
        j = dropped[j]
    return j


def _reached(pb: Problem, warm: Mapping[int, int], allowed: Container[int]) -> dict[int, int] | None:
    """The warm start's choices over the classes the roots reach through them; None when a
    reached class has no choice, or one outside ``allowed`` or of another class."""
    chosen: dict[int, int] = {}
    stack = list(pb.roots)
    while stack:
        c = stack.pop()
        if c in chosen:
            continue
        j = warm.get(c)
        if j is None or j not in allowed or pb.cands[j].cls != c:
            return None
        chosen[c] = j
        stack.extend(pb.cands[j].children)
    return chosen


def _warm_cost(
    pb: Problem, warm: Mapping[int, int], usable: list[list[int]]
) -> tuple[float, dict[int, int]] | None:
    """(cost, class -> candidate over the classes the roots reach) of a warm start, shared costs
    paid once; None when it is incomplete, uses an unusable candidate, or is cyclic."""
    chosen = _reached(pb, warm, {j for js in usable for j in js})
    if chosen is None or topo_order(chosen, pb) is None:
        return None
    picked = set(chosen.values())
    total = sum(pb.cands[j].cost for j in picked)
    total += sum(cost for cost, members in pb.setups if any(j in picked for j in members))
    return total, chosen


def _warm_vector(
    pb: Problem, m: Milp, warm: Mapping[int, int], usable: list[list[int]], classes: list[int],
    comp: dict[int, int], xv: dict[int, int], yv: dict[int, int], tv: dict[int, int],
    nv: dict[int, int], pv: dict[int, int], rv: dict[int, int], bounds: tuple[float, float],
) -> list[float] | None:
    """A full assignment from a class -> candidate map (None if it is not usable)."""
    lo, hi = bounds
    vec = [lb if math.isfinite(lb) else 0.0 for lb in m.lb]
    chosen = _reached(pb, warm, xv)
    if chosen is None:
        return None
    order = topo_order(chosen, pb)
    if order is None:
        return None
    height: dict[int, float] = {}
    for c in order:
        j = chosen[c]
        vec[xv[j]] = 1.0
        vec[yv[c]] = 1.0
        if c in tv:
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


def topo_order(chosen: Mapping[int, int], pb: Problem) -> list[int] | None:
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
