"""The optimization pipeline: program -> e-graph -> extraction -> management -> report.

In: an IR ``Program``, a scheme, an optional cost override, rule families, limits.
Out: an ``OptimizeResult`` with the optimized program, the DESIGN.md ``--json`` report
(``result.report``), the rules that fired, and ``to_mlir()``.

Every result is checked before it is returned: the optimized program must evaluate to
the original's values on random inputs (cleartext interpreter), and for the noisy
scheme it must be legal under the noise model.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from eqsat.egraph import compiled, guard
from eqsat.egraph.session import Limits, RunReport, StopReason, collector_off, parse_nodes
from eqsat.egraph.view import EGraphView
from eqsat.errors import InfeasibleError, InternalError, UserError
from eqsat.extract.dag import ExtractionError, greedy_dag, refine, to_program
from eqsat.interp import PLAINTEXT_MODULUS, WidthError, evaluate, random_inputs, results_equal, width_violations
from eqsat.ir import Program, has_mgmt, multiplicative_depth, op_counts
from eqsat.models import noisy as noise
from eqsat.models.cost import CostTable, table
from eqsat.models.hoisting import program_cost
from eqsat.source_ahead import SourceAhead


class OptimizeError(InternalError):
    """The optimizer produced a program that failed its own checks (a bug: reported, never returned)."""


@dataclass
class OptimizeResult:
    original: Program
    program: Program
    report: dict[str, object]
    run: RunReport
    rules_fired: dict[str, int] = field(default_factory=dict)

    def to_mlir(self) -> str:
        from eqsat.frontend.mlir import print_mlir

        return print_mlir(self.program)


def summarize(prog: Program, costs: CostTable, scheme: str, managed: bool = False) -> dict[str, object]:
    """Op counts, depth, cost and noise verdict of ``prog`` (``managed``: ``prog`` is the
    output of ``mgmt.manage``, checked as it is)."""
    ops = op_counts(prog)
    return {
        "ops": ops,
        "depth": multiplicative_depth(prog),
        "cost": program_cost(prog, costs),
        "noise": noise_summary(prog, scheme, managed),
    }


def noise_summary(prog: Program, scheme: str, managed: bool = False) -> dict[str, object]:
    """The noise model's verdict at the outputs: the article's model for ``noisy``; for
    BGV/CKKS the level/degree checker over the program's management ops (an unmanaged
    program is checked after the placement it would need, unless ``managed`` says that
    ``prog`` came from ``mgmt.manage`` -- a program that needs no management op)."""
    if scheme == "noisy":
        return noise.analyze(prog).to_json()
    from eqsat import mgmt

    base = mgmt.strip_mgmt(prog)
    levels = mgmt.levels_needed(base, scheme)
    managed_prog = prog if managed or has_mgmt(prog) else mgmt.manage(base, scheme, levels)
    rep = mgmt.check(managed_prog, scheme, levels).to_json()
    rep["levels_needed"] = levels
    return rep


def as_printed(prog: Program) -> Program:
    """``prog`` as its printed MLIR reads back: ``0 - x`` outside the noisy dialect is a
    ``neg`` (the frontend reads ``arith.subi 0, x`` so), so the report counts what is printed."""
    def is_zero(i: int) -> bool:
        n = prog.nodes[i]
        return n.op == "const" and not isinstance(n.attrs[0], tuple) and n.attrs[0] == 0

    hits = [i for i in prog.live() if prog.nodes[i].op == "sub" and is_zero(prog.nodes[i].args[0])
            and not (prog.style == "noisy" and prog.nodes[i].type.secret)]
    if not hits:
        return prog
    from eqsat.ir import Builder

    b = Builder.like(prog)
    remap: dict[int, int] = {}
    for i in prog.live():
        n = prog.nodes[i]
        if n.op == "input":
            remap[i] = b._arg_ids[str(n.attrs[0])]
        elif i in hits:
            remap[i] = b.neg(remap[n.args[1]])
        else:
            remap[i] = b.add_node(n.op, tuple(remap[a] for a in n.args), n.attrs, n.type)
    return b.finish([remap[r] for r in prog.results]).compact()


def _check_widths(prog: Program) -> None:
    """Refuse a program holding a constant that does not fit its declared width (it could
    not be printed without changing its meaning; see ``eqsat.interp``)."""
    bad = width_violations(prog)
    if bad:
        i, v = bad[0]
        elem = prog.nodes[i].type.elem
        raise WidthError(
            f"the optimized program needs the constant {v}, which does not fit {elem}: the program's "
            f"values exceed its declared width, so wrapping at {elem[1:]} bits and arithmetic mod t "
            "disagree (widen the type)")


def _check_equivalent(a: Program, b: Program, trials: int = 3,
                      source_values: list[tuple[dict[str, Any], list[Any]]] | None = None) -> None:
    """The guard on every result: ``b`` equals ``a`` on random inputs under the one
    semantics (integers mod ``PLAINTEXT_MODULUS``, floats within a tolerance).
    ``source_values``: ``source_evaluations(a, trials)``, computed ahead."""
    modulus = None if any(t.is_float for _, t in a.args) else PLAINTEXT_MODULUS
    for seed, (inputs, ra) in enumerate(source_values or source_evaluations(a, trials)):
        rb = evaluate(b, inputs, modulus)
        if not results_equal(ra, rb, modulus):
            raise OptimizeError(f"optimized program differs from the original on seed {seed}: {ra} != {rb}")


def source_evaluations(a: Program, trials: int = 3) -> list[tuple[dict[str, Any], list[Any]]]:
    """``a``'s (inputs, values) on the random inputs of seeds ``0 .. trials - 1``."""
    modulus = None if any(t.is_float for _, t in a.args) else PLAINTEXT_MODULUS
    out = []
    for seed in range(trials):
        inputs = random_inputs(a, seed, bound=50)
        out.append((inputs, evaluate(a, inputs, modulus)))
    return out


def optimize(
    prog: Program,
    scheme: str = "bgv",
    costs: Mapping[str, object] | None = None,
    rules: str | list[str] | tuple[str, ...] | None = None,
    limits: Limits | None = None,
    extraction: str = "auto",
    ilp_time_limit: float = 10.0,
    max_level: int | None = None,
    bootstrap: bool = False,
    progress: Callable[[str], None] | None = None,
    verify: str = "random",
    deadline: float | None = None,
) -> OptimizeResult:
    """Optimize ``prog``; see the module docstring.

    ``extraction``: ``"greedy"`` (DAG greedy + local search), ``"ilp"`` (exact, HiGHS, with
    the greedy result as warm start and fallback), or ``"auto"`` (ILP when the e-graph has
    at most ``ILP_AUTO_NODES`` e-nodes, its proof cut short once the best program has not
    improved for ``eqsat.milp.PROOF_STALL_S``: then ``report["ilp"]["proven"]`` is False).
    For the ``noisy`` scheme extraction and reduce_noise placement are one ILP (the article's
    model over the e-graph).

    BGV/CKKS: ``max_level`` bounds the levels of the modulus chain (default: as many as
    the extracted program needs); ``bootstrap=True`` lets placement insert the fewest
    bootstraps (ILP) when the budget is too small, else a program that cannot fit raises
    ``InfeasibleError`` -- before extraction when the noise analysis proves that no
    program in the e-graph fits.  The analysis (``eqsat.egraph.noise_analysis``) runs after
    saturation on e-graphs of at most ``ANALYSIS_AUTO_NODES`` entries, for the noisy
    scheme, or when ``max_level`` is given; its root facts go to ``report["analysis"]``.
    ``verify`` (translation validation of the result, ``report["verify"]``): ``"random"``
    (default) evaluates both programs on random inputs under the one semantics (integers
    mod t); ``"encrypted"`` also runs both through the executor (BGV, or CKKS for float
    programs; noisy programs run under BGV) on the same inputs and requires both to decrypt
    to the reference; ``"off"`` skips the comparison (the noise check still runs).

    ``limits.time_s`` bounds the whole call (``deadline``, a ``time.perf_counter()`` value,
    overrides it, e.g. to count the CLI's parsing): saturation gets ``SATURATION_SHARE`` of
    the time left after loading -- a hard bound, also inside an iteration
    (``eqsat.egraph.guard``) -- and the extraction and placement ILPs get what is left, with
    their greedy/eager answers as fallbacks.  The report's ``stop_stage`` names the stage a
    limit cut short (load, saturate, extract, place), and ``stop_reason`` is ``time_limit``
    when the time ran out after saturation.  The random-input check always runs.
    """
    from eqsat import mgmt
    from eqsat.extract.ilp import ilp_extract
    from eqsat.extract.levels import ilp_extract_levels
    from eqsat.mgmt.reduce_noise import extract_noisy, place_greedy, solve_placement
    from eqsat.rules import FAMILY_NAMES, registry, resolve_names

    if verify not in VERIFY_MODES:
        raise UserError(f"unknown verify mode '{verify}' (random, encrypted or off)")
    if extraction not in ("auto", "greedy", "ilp"):
        raise ValueError(f"unknown extraction '{extraction}' (auto, greedy or ilp)")
    start = time.perf_counter()
    prog = _for_scheme(prog, scheme)
    limits = limits or Limits()
    if deadline is None:
        deadline = start + limits.time_s

    def left() -> float:
        return deadline - time.perf_counter()

    stopped_in: str | None = None
    timings: dict[str, float] = {}
    clock = [start]

    def lap(stage: str) -> None:
        now = time.perf_counter()
        timings[stage] = round(timings.get(stage, 0.0) + now - clock[0], 4)
        clock[0] = now
        if progress is not None:
            progress(f"{stage} done ({timings[stage]:.2f} s, {now - start:.1f} s in all)")

    cost_table = table(scheme, costs)
    # the project's families by name: the session reads their compiled text and the families
    # themselves (built through egglog's Python layer) are never loaded; a family registered at
    # run time (a test's) as the family
    families = [nm if nm in FAMILY_NAMES else registry()[nm] for nm in resolve_names(rules)]
    for f in families:
        if isinstance(f, str):  # the rules' egglog text: cached on disk, built on first use
            compiled.section(f)
    lap("rules")
    analysis_nodes = math.inf if scheme == "noisy" or max_level is not None else ANALYSIS_AUTO_NODES

    def ahead_ilp_time() -> float:
        """``ilp_time()`` below without its record of a skipped ILP: for the work ahead."""
        t = min(ilp_time_limit, 0.8 * (left() - reserve))
        return t if t >= MIN_ILP_S else 0.0
    # what the stages after the e-graph need when they work on the source alone (a cut load
    # returns it managed and reported): kept out of every budget below
    reserve = source_reserve(prog)
    # the saturation budget: its share of the time left (the rest is for extraction onwards)
    sat_limits = replace(limits, time_s=min(limits.time_s, SATURATION_SHARE * max(0.0, left()),
                                            max(0.0, left() - min(reserve, MAX_RESERVE_SHARE * left()))))
    ahead = SourceAhead(prog, scheme, cost_table, max_level, bootstrap, ahead_ilp_time, summarize,
                        (lambda: source_evaluations(prog)) if verify != "off" else None)
    try:
        built = guard.build(prog, families, sat_limits, analysis_nodes, deadline, reserve, beside=ahead)
    finally:  # also when the stage failed: no thread may outlive the call (a later fork copies it)
        ahead.join()  # what it computed is used below; no two ILPs at once
    for stage in ("load", "saturate"):
        timings[stage] = round(built.timings.get(stage, 0.0), 4)
        if progress is not None:
            progress(f"{stage} done ({timings[stage]:.2f} s)")
    timings["analyze"] = round(built.timings.get("serialize", 0.0), 4)  # the e-graph analysis, in the stage
    clock[0] = time.perf_counter()
    run, stopped_in = built.run, built.stopped_in
    # what is left of the stages after saturation: the noise analysis ran in the worker, and
    # the ILPs take only the time left (their greedy answers as fallbacks): the plain stages
    post = guard.post_reserve(built.size, analysed=False)
    if built.js is not None and post > max(left(), 0.0) + OVERSHOOT_S and post > reserve:
        # extracting this e-graph would overrun the deadline by more than the allowed
        # overshoot even on a quiet machine (saturation kept half its time when the reserve was
        # larger: guard.py), and the source's own fallback is cheaper: it is the result
        built.js, stopped_in = None, stopped_in or "extract"
    source = mgmt.strip_mgmt(prog)
    info: dict[str, object] = {}
    floors: dict[str, object] = {}
    view: EGraphView | None = None
    if built.js is not None:
        with collector_off():  # tens of thousands of new objects and no cycle (``parse_serialized``)
            view = EGraphView(parse_nodes(built.js), frozenset(name for name, ty in prog.args if not ty.secret))
        roots = [view.root(k) for k in built.roots]
        if built.analysed and max_level is not None and not bootstrap and scheme != "noisy":
            floors = _floors(built)  # needed now (``_check_level_floor``); else read at the end
            _check_level_floor(floors, scheme, max_level, bootstrap)
    # the e-graph's e-nodes: the view's and the summaries the worker deleted before serializing
    graph_nodes = len(view.nodes) + built.summary_nodes if view is not None else 0
    use_ilp = view is not None and (extraction == "ilp" or (extraction == "auto" and graph_nodes <= ILP_AUTO_NODES))

    ilp_skipped: list[str] = []

    def ilp_budget() -> float:
        return min(ilp_time_limit, 0.8 * (left() - reserve))

    def ilp_time(stage: str = "place") -> float:
        """The ILP's time limit: its own, or what is left of the call (less the reserve for the
        passes after it) when that is less; 0 when that is below ``MIN_ILP_S`` -- then the
        stage takes its ILP-free answer (greedy extraction, relinearization after every
        product, eager rescaling, greedy reduce_noise) and is named in ``stop_stage``."""
        t = ilp_budget()
        if t >= MIN_ILP_S:
            return t
        ilp_skipped.append(stage)
        return 0.0

    if use_ilp and ilp_time("extract") <= 0:
        use_ilp, stopped_in = False, stopped_in or "extract"  # no time left for an ILP: greedy
    ilp_time_limit_asked = ilp_time_limit
    lap("analyze")
    try:
        if view is None:  # the deadline passed while loading: the source program is the result
            method = "none"
            lap("extract")
            if scheme == "noisy":
                after_prog = noise.encode_plain_operands(solve_placement(source, time_limit=ilp_time())[0])
            else:
                after_prog = mgmt.manage(source, scheme, max_level, bootstrap=bootstrap, time_limit=ilp_time())
        elif scheme == "noisy":
            # the joint ILP is the noisy scheme's auto choice (time permitting)
            noisy_ilp = extraction != "greedy" and ilp_time("extract") > 0
            after_prog, info = extract_noisy(view, roots, prog, cost_table, time_limit=ilp_budget(), ilp=noisy_ilp)
            method = "ilp-noisy" if noisy_ilp and "fallback" not in info else "greedy"
            lap("extract")
            # the source with its placement (optimal, or greedy under --extraction greedy) is a candidate
            placed = solve_placement(source, time_limit=ilp_time())[0] if noisy_ilp else place_greedy(source)
            if program_cost(placed, cost_table) < program_cost(after_prog, cost_table):
                after_prog = placed
            # the article's form: plaintext operands encoded, as printed (report = re-read)
            after_prog = noise.encode_plain_operands(after_prog)
        else:
            # the local search takes at most half of what is left of the call after the reserve
            # (``REFINE_BUDGET_S`` when time is plenty): on a 32k-node e-graph cut at a 5 s limit
            # its own 5 s budget took the call to 12 s
            greedy = refine(view, greedy_dag(view, cost_table), roots, cost_table,
                            budget_s=min(REFINE_BUDGET_S, max(0.0, 0.5 * (left() - reserve))))
            choice, method = greedy, "greedy"
            if use_ilp and max_level is not None:
                # the cheapest program that fits the level budget, bootstraps priced in
                leveled, info = ilp_extract_levels(
                    view, roots, cost_table, scheme, max_level, bootstrap=bootstrap,
                    time_limit=max(MIN_ILP_S, ilp_budget()), warm=greedy)
                if leveled is not None:
                    choice, method = leveled, "ilp-levels"
                elif info.get("status") == "infeasible":
                    raise InfeasibleError(f"no program in the e-graph fits {max_level} levels")
            elif use_ilp:
                # auto: the proof stops once the best program stalls (eqsat.milp.PROOF_STALL_S; the
                # report's ilp.proven says whether it finished); ilp: proven to the end
                choice, info = ilp_extract(view, roots, cost_table, time_limit=max(MIN_ILP_S, ilp_budget()),
                                           warm=greedy, proof_stall_s=None if extraction == "auto" else math.inf)
                method = "ilp" if "fallback" not in info else "greedy"
            extracted = to_program(view, choice, roots, prog).compact()
            lap("extract")
            if max_level is None:
                if program_cost(extracted, cost_table) > program_cost(source, cost_table):
                    extracted = source  # never return something costlier than what came in
                after_prog = mgmt.manage(extracted, scheme, max_level, bootstrap=bootstrap, time_limit=ilp_time())
            else:  # under a budget compare with management (levels, bootstraps) paid
                after_prog = mgmt.manage(extracted, scheme, max_level, bootstrap=bootstrap, time_limit=ilp_time())
                try:
                    managed_source = mgmt.manage(source, scheme, max_level, bootstrap=bootstrap,
                                                 time_limit=ilp_time())
                except mgmt.PlacementError:
                    managed_source = None
                if managed_source is not None and (
                    program_cost(managed_source, cost_table) < program_cost(after_prog, cost_table)
                ):
                    after_prog = managed_source
    except (noise.NoiseError, mgmt.PlacementError) as e:
        raise InfeasibleError(str(e)) from None
    except ExtractionError as e:  # e.g. a cost table pricing a needed op at Infinity
        from eqsat.algebra.linmap_realize import expand_linmaps, has_linmaps

        if scheme != "noisy" and has_linmaps(source):  # saturation stopped before a map was realized
            after_prog, method = mgmt.manage(expand_linmaps(source), scheme, max_level, bootstrap=bootstrap), "plan"
            lap("extract")
        else:
            raise InfeasibleError(
                f"no program in the e-graph has a finite cost under this cost table ({e.args[0]}); "
                "an op the program needs is priced Infinity") from None
    lap("place")
    # BGV/CKKS: a source without management ops is reported with the placement it needs to
    # run, so before and after pay for relinearizations and level changes alike
    before_prog, before_managed = prog, False
    # the before side: computed while the worker saturated (``ahead``) unless the source is the
    # result (no e-graph) or the time left allows no placement ILP (then computed here, as before)
    before_ahead = None if view is None and not has_mgmt(prog) else ahead.before(
        scheme == "noisy" or has_mgmt(prog) or ilp_time() > 0)
    if before_ahead is not None:
        before_prog, before_managed, _ = before_ahead
    elif scheme == "noisy":
        # as written, with plaintext operands encoded as the dialect prints them: the input
        # returned unchanged (below) then reports what its printed text reads back as
        before_prog = noise.encode_plain_operands(prog)
    elif view is None and not has_mgmt(prog):
        before_prog, before_managed = after_prog, True  # the source, managed once
    elif not has_mgmt(prog):
        try:
            before_prog, before_managed = mgmt.manage(source, scheme, max_level, bootstrap=bootstrap,
                                                      time_limit=ilp_time()), True
        except mgmt.PlacementError:
            before_prog = prog
    after_prog = as_printed(after_prog)
    before = before_ahead[2] if before_ahead is not None else summarize(before_prog, cost_table, scheme,
                                                                        managed=before_managed)
    after = summarize(after_prog, cost_table, scheme, managed=scheme != "noisy")
    warnings: list[str] = []
    if width_violations(after_prog) and not width_violations(source):
        # the e-graph folded a constant past the declared width: keep the source's form
        i, v = width_violations(after_prog)[0]
        warnings.append(f"kept the source form: optimizing would need the constant {v}, which does not fit "
                        f"{after_prog.nodes[i].type.elem} (the declared width is a promise that values fit)")
        try:
            if scheme == "noisy":
                after_prog = noise.encode_plain_operands(solve_placement(source, time_limit=ilp_time())[0])
            else:
                after_prog = mgmt.manage(source, scheme, max_level, bootstrap=bootstrap, time_limit=ilp_time())
        except (noise.NoiseError, mgmt.PlacementError) as e:
            raise InfeasibleError(str(e)) from None
        after = summarize(after_prog, cost_table, scheme, managed=scheme != "noisy")
    _check_widths(after_prog)
    if scheme == "noisy" and before["noise"]["legal"] and after["cost"] > before["cost"]:  # type: ignore[index, operator]
        after_prog, after = before_prog, before  # never return something costlier than what came in
    elif (scheme != "noisy" and (before_managed or has_mgmt(before_prog)) and before["noise"]["legal"]  # type: ignore[index]
          and after["cost"] > before["cost"]):  # type: ignore[operator]
        # the same for BGV/CKKS, management paid on both sides: the extracted program was no
        # costlier than the source before placement, but may need more rescales/modswitches
        after_prog = as_printed(before_prog)
        after = summarize(after_prog, cost_table, scheme, managed=True)
    verified: dict[str, object] = {"mode": verify}
    if verify != "off" and view is None and after_prog is before_prog:
        verified["random_trials"] = 0  # the source itself with its management: nothing to compare
    elif verify != "off":
        _check_equivalent(prog, after_prog, source_values=ahead.evaluations())
        verified["random_trials"] = 3
    if verify == "encrypted":
        verified.update(verify_encrypted(prog, after_prog, scheme))
    if not after["noise"]["legal"]:  # type: ignore[index]
        raise OptimizeError(f"extracted program fails the noise check: {after['noise']}")
    lap("verify")
    if view is not None and built.analysed and not floors:
        # the worker ran the analysis while this process extracted (``guard.Built.facts``):
        # what is left of it to wait for belongs to the analysis' stage
        t_wait = time.perf_counter()
        floors = _floors(built)
        timings["analyze"] = round(timings.get("analyze", 0.0) + time.perf_counter() - t_wait, 4)
    if stopped_in is None and str(info.get("status", "")).startswith("time") and ilp_budget() < ilp_time_limit_asked:
        stopped_in = "extract"  # the ILP stopped at what was left of the call, not at its own limit
    if stopped_in is None and ilp_skipped:
        stopped_in = ilp_skipped[0]  # an ILP-free answer, for want of time
    stop_reason = run.stop_reason.value
    if stopped_in in ("extract", "place"):
        stop_reason = StopReason.TIME_LIMIT.value
    elif stopped_in is None and run.stop_reason != StopReason.SATURATED:
        stopped_in = "saturate"
    report: dict[str, object] = {
        "before": before,
        "after": after,
        "stop_reason": stop_reason,
        "stop_stage": stopped_in,
        "egraph": {"nodes": graph_nodes, "classes": view.num_classes if view else 0,
                   "iterations": run.iterations, "interrupted": run.interrupted},
        "time_s": round(time.perf_counter() - start, 4),
        "extraction": method,
        "scheme": scheme,
        "timings": timings,
    }
    if floors:
        report["analysis"] = floors
    if warnings:
        report["warnings"] = warnings
    report["verify"] = verified
    if info:
        report["ilp"] = {k: v for k, v in info.items() if isinstance(v, str | int | float | bool)}
    if "layouts" in prog.meta:  # a tensor program's packing (frontend) or one read from attributes
        report["layouts"] = prog.meta["layouts"]
    return OptimizeResult(prog, after_prog, report, run, dict(run.rule_matches))


VERIFY_MODES = ("random", "encrypted", "off")


def verify_encrypted(a: Program, b: Program, scheme: str, seed: int = 0) -> dict[str, object]:
    """Run ``a`` (the original) and ``b`` (its optimized form) through the executor on the
    same random inputs; raise ``OptimizeError`` unless both decrypt to the reference and to
    each other.  Returns the verdict for ``report["verify"]``."""
    from eqsat.backend.executor import run_program

    run_scheme = "ckks" if any(t.is_float for _, t in a.args) else "bgv"  # integers run exactly under BGV
    inputs = random_inputs(a, seed, bound=50)
    ra = run_program(a, inputs, run_scheme, insecure=True, seed=seed)
    rb = run_program(b, inputs, run_scheme, insecure=True, seed=seed)
    modulus = ra["params"].get("t") or None
    same = results_equal(ra["outputs"], rb["outputs"], modulus, tol=1e-3)
    if not (ra["match"] and rb["match"] and same):
        raise OptimizeError(
            f"encrypted runs disagree on seed {seed}: original {ra['outputs']} (match {ra['match']}), "
            f"optimized {rb['outputs']} (match {rb['match']})")
    measured, predicted = rb["noise"].get("measured_bits"), rb["noise"].get("predicted_bits")
    if measured is not None and predicted is not None and measured > predicted:
        raise OptimizeError(f"measured noise {measured} bits exceeds the model's {predicted} bits")
    return {"encrypted_scheme": run_scheme, "encrypted_match": True,
            "measured_bits": measured, "predicted_bits": predicted}


def source_reserve(prog: Program) -> float:
    """Seconds to keep, out of the call's budget, for the passes after the e-graph stage when
    they work on ``prog`` itself (management without ILPs, the reports of both sides, the
    random-input check, printing): ``SOURCE_S_PER_NODE`` per live node, times the machine's
    slowdown (``slowdown``)."""
    return SOURCE_S_PER_NODE * len(prog.live()) * slowdown()


def slowdown() -> float:
    """How much slower than alone a CPU-bound stage runs now: the 1-minute load average per
    core, at least 1 (a shared machine with load 7 on 2 cores runs it 3.5 times slower)."""
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except OSError:
        return 1.0


ILP_AUTO_NODES = 10_000  # with the model reductions (eqsat.milp_reduce) 2k-8k-node e-graphs solved in 0.1-1 s
#: seconds per live source node of the passes that follow the e-graph stage on the source
#: alone (see ``source_reserve``), measured on a quiet machine: a 20,000-op random program,
#: ... s
SOURCE_S_PER_NODE = 50e-6
#: the reserve never takes more than this share of the time left: the e-graph stage keeps half
MAX_RESERVE_SHARE = 0.5
#: how far past its deadline a call may run for the stages after saturation before it gives up
#: the e-graph for the source program (whose own passes are reserved: ``source_reserve``)
OVERSHOOT_S = 2.0
#: saturation's share of the time left after loading (the rest: extraction, placement, checks)
SATURATION_SHARE = 0.75
#: an ILP gets at least this long (below it, the greedy answer is used)
MIN_ILP_S = 0.5
#: the local search's (``extract.dag.refine``) budget when the call has time to spare
REFINE_BUDGET_S = 5.0


def _for_scheme(prog: Program, scheme: str) -> Program:
    """``prog`` as the scheme reads it: a noisy-dialect program only under ``noisy``; a
    program of secret scalars is optimized under ``noisy`` as a noisy-dialect program (its
    ``reduce_noise`` ops print as ``noisy.reduce_noise``).  Mismatches are ``UserError``."""
    if prog.style == "noisy" and scheme != "noisy":
        raise UserError(
            f"'{prog.name}' is written in the noisy dialect; optimize it with --scheme noisy "
            f"(or without --scheme), not {scheme}")
    if scheme == "noisy" and prog.style != "noisy":
        tensors = [name for name, t in prog.args if t.secret and not t.is_scalar]
        if tensors or any(prog.nodes[i].type.secret and not prog.nodes[i].type.is_scalar for i in prog.live()):
            raise UserError(
                f"the noisy scheme models programs over secret scalars; '{prog.name}' computes on secret "
                "tensors (use --scheme bgv or ckks)")
        return Program(prog.name, list(prog.args), list(prog.nodes), list(prog.results), "noisy", dict(prog.meta))
    return prog
ANALYSIS_AUTO_NODES = 20_000


def _floors(built: guard.Built) -> dict[str, object]:
    """The report's ``analysis``: the noise facts of the results (``guard.Built.facts``, waited
    for when the worker sends them after the e-graph) and the analysis' seconds; empty when
    there are none."""
    got = built.facts()
    if got is None:
        return {}
    out: dict[str, object] = dict(got)
    out["time_s"] = round(built.timings.get("noise_analysis", 0.0), 4)
    return out


def _check_level_floor(
    floors: Mapping[str, object], scheme: str, max_level: int | None, bootstrap: bool
) -> None:
    """Raise ``InfeasibleError`` when even the shallowest program in the e-graph needs more
    than ``max_level`` levels and bootstrapping is not allowed."""
    if scheme == "noisy" or max_level is None or bootstrap:
        return
    key = "depth_floor" if scheme == "bgv" else "ckks_depth_floor"
    depths: list[int | None] = floors[key]  # type: ignore[assignment]
    for k, d in enumerate(depths):
        if d is not None and d > max_level:
            raise InfeasibleError(
                f"result {k} needs at least {d} levels in every equivalent program the e-graph holds, "
                f"more than the {max_level} of the modulus chain (allow bootstrapping or a longer chain)")

