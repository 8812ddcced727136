"""The optimization pipeline: program -> e-graph -> extraction -> management -> report.

In: an IR ``Program``, a scheme, an optional cost override, rule families, limits.
Out: an ``OptimizeResult`` with the optimized program, the DESIGN.md ``--json`` report
(``result.report``), the rules that fired, and ``to_mlir()``.

Every result is checked before it is returned: the optimized program must evaluate to
the original's values on random inputs (cleartext interpreter), and for the noisy
scheme it must be legal under the noise model.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import noise
from .cost import CostTable, table
from .egraph import Limits, RunReport, Session
from .extract import EGraphView, dag_cost, greedy_dag, to_program
from .interp import evaluate, random_inputs, results_equal
from .ir import Program, multiplicative_depth, op_counts


class OptimizeError(RuntimeError):
    """The optimizer produced a program that failed its own checks (a bug: reported, never returned)."""


@dataclass
class OptimizeResult:
    original: Program
    program: Program
    report: dict[str, object]
    run: RunReport
    rules_fired: dict[str, int] = field(default_factory=dict)

    def to_mlir(self) -> str:
        from .mlir import print_mlir

        return print_mlir(self.program)


def summarize(prog: Program, costs: CostTable, scheme: str) -> dict[str, object]:
    ops = op_counts(prog)
    return {
        "ops": ops,
        "depth": multiplicative_depth(prog),
        "cost": costs.total(ops),
        "noise": noise_summary(prog, scheme),
    }


def noise_summary(prog: Program, scheme: str) -> dict[str, object]:
    if scheme == "noisy":
        return noise.analyze(prog).to_json()
    depth = multiplicative_depth(prog)
    # BGV/CKKS: the modulus chain must hold one level per multiplication; the largest
    # 128-bit-secure ring (N = 32768, log q <= 881) holds about 24 levels of ~36 bits.
    return {"model": f"{scheme}-levels", "levels_needed": depth + 1, "budget": 24, "legal": depth + 1 <= 24}


def _check_equivalent(a: Program, b: Program, trials: int = 3) -> None:
    for seed in range(trials):
        inputs = random_inputs(a, seed, bound=50)
        modulus = None if any(t.is_float for _, t in a.args) else 65537
        ra = evaluate(a, inputs, modulus)
        rb = evaluate(b, inputs, modulus)
        if not results_equal(ra, rb, modulus):
            raise OptimizeError(f"optimized program differs from the original on seed {seed}: {ra} != {rb}")


def optimize(
    prog: Program,
    scheme: str = "bgv",
    costs: Mapping[str, object] | None = None,
    rules: str | list[str] | tuple[str, ...] | None = None,
    limits: Limits | None = None,
) -> OptimizeResult:
    from eqsat.rules import resolve

    start = time.perf_counter()
    cost_table = table(scheme, costs)
    families = resolve(rules)
    limits = limits or Limits()
    session = Session(prog)
    run = session.saturate([f.ruleset for f in families], limits)
    js = session.serialize()
    view = EGraphView(js)
    choice = greedy_dag(view, cost_table)
    roots = [view.root(k) for k in session.roots]
    extracted = to_program(view, choice, roots, prog).compact()
    # the source program is always a candidate: never return something costlier
    before = summarize(prog, cost_table, scheme)
    after_prog = extracted
    after = summarize(after_prog, cost_table, scheme)
    if float(after["cost"]) > float(before["cost"]):  # type: ignore[arg-type]
        after_prog = _strip_mgmt(prog)
    if scheme == "noisy":
        after_prog = noise.place_greedy(_strip_mgmt(after_prog))
    after = summarize(after_prog, cost_table, scheme)
    _check_equivalent(prog, after_prog)
    if scheme == "noisy" and not after["noise"]["legal"]:  # type: ignore[index]
        raise OptimizeError("no legal reduce_noise placement found")
    report: dict[str, object] = {
        "before": before,
        "after": after,
        "stop_reason": run.stop_reason.value,
        "egraph": {"nodes": len(view.nodes), "classes": view.num_classes, "iterations": run.iterations},
        "time_s": round(time.perf_counter() - start, 4),
        "extraction": "dag",
        "extracted_cost": dag_cost(view, choice, roots, cost_table),
    }
    return OptimizeResult(prog, after_prog, report, run, dict(run.rule_matches))


def _strip_mgmt(prog: Program) -> Program:
    """The program without management ops (they are identities on values)."""
    from .ir import MGMT_OPS, Builder

    b = Builder(prog.name, style=prog.style)
    b.meta.update(prog.meta)
    remap: dict[int, int] = {}
    for name, ty in prog.args:
        b.arg(name, ty)
    for i in prog.live():
        n = prog.nodes[i]
        if n.op in MGMT_OPS:
            remap[i] = remap[n.args[0]]
        elif n.op == "input":
            remap[i] = b._arg_ids[str(n.attrs[0])]
        else:
            remap[i] = b.add_node(n.op, tuple(remap[a] for a in n.args), n.attrs, n.type)
    return b.finish([remap[r] for r in prog.results])
