"""The runner: one program in one egglog e-graph, saturated under limits, serialized.

In: an IR ``Program``, a schedule (a list of named rulesets from ``eqsat.rules.REGISTRY``)
and ``Limits``. Out: a ``Session`` holding the egglog ``EGraph`` and its result markers
(``Root(k)``); ``saturate`` returns a ``RunReport`` with a typed ``StopReason``;
``serialize`` gives the JSON that ``eqsat.egraph.view.EGraphView`` reads.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from egglog import EGraph, Ruleset, back_off, run, unstable_combine_rulesets

from eqsat import term
from eqsat.egraph.loader import Loader
from eqsat.egraph.tables import declarations
from eqsat.ir import Program


class StopReason(StrEnum):
    SATURATED = "saturated"
    ITERATION_LIMIT = "iteration_limit"
    NODE_LIMIT = "node_limit"
    TIME_LIMIT = "time_limit"


@dataclass(frozen=True)
class Limits:
    """Bounds on saturation, checked after every iteration.  ``time_s`` is also the budget of a
    whole ``eqsat.pipeline.optimize`` call, which gives saturation a share of it and enforces
    that share inside an iteration too (``eqsat.egraph.guard``)."""

    iterations: int = 40
    nodes: int = 400_000
    time_s: float = 30.0  # the whole call; saturation gets 75% of what is left after loading
    match_limit: int = 0  # > 0: egglog's back-off scheduler with this many matches per rule per iteration


@dataclass
class RunReport:
    stop_reason: StopReason
    iterations: int
    nodes: int
    time_s: float
    rule_matches: dict[str, int] = field(default_factory=dict)
    #: stopped from outside, inside an iteration (``eqsat.egraph.guard``): the e-graph is the
    #: one of the last complete iteration
    interrupted: bool = False


LOAD_CHUNK = 256


TERM_OPS = term.CONCRETE_OPS | term.SUMMARY_OPS | term.INERT_OPS | {"Root"}


ANALYSIS_PREFIX = "slots-"  # names of the rules of term.slots_analysis


class Session:
    """One program in one e-graph."""

    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.egraph = EGraph()
        term.declare(self.egraph)
        loader = Loader(prog)
        self.roots = loader.load()
        self.node_ids = dict(loader.name)  # IR node id -> loader node id (see ``node_classes``)
        with tempfile.TemporaryDirectory(prefix="eqsat-load-") as tmp:
            cmds = loader.write(Path(tmp))
            self._run_text(declarations())
            self._run_text("\n".join(cmds))
            self._run_text("(run-schedule (saturate (run ld)))\n(run ld-clean 1)")
        self.egraph.run(term.slots_analysis.saturate())

    def _run_text(self, text: str) -> None:
        self.egraph._egraph.run_program(*self.egraph._egraph.parse_program(text))

    def size(self) -> int:
        """E-nodes of the term language (analysis tables such as ``slots`` are not counted)."""
        return sum(size for fn, size in self.egraph.all_function_sizes() if str(fn) in TERM_OPS)

    def saturate(
        self, rulesets: list[Ruleset], limits: Limits, after_iteration: Callable[[RunReport], None] | None = None
    ) -> RunReport:
        """Run the rulesets (after the analyses, every iteration) until a limit or saturation.
        ``after_iteration`` sees the report so far after every iteration that does not stop
        (``eqsat.egraph.guard`` checkpoints the e-graph there)."""
        start = time.perf_counter()
        matches: dict[str, int] = {}
        if not rulesets:
            return RunReport(StopReason.SATURATED, 0, self.size(), 0.0, matches)
        combined = rulesets[0] if len(rulesets) == 1 else unstable_combine_rulesets(*rulesets)
        # our rules contain no raw associativity/commutativity, so by default every rule runs on
        # every match; egglog's back-off scheduler (4x slower per iteration here) is opt-in
        scheduler = back_off(match_limit=limits.match_limit, ban_length=2) if limits.match_limit > 0 else None
        step = run(term.slots_analysis).saturate() + run(combined, scheduler=scheduler)  # type: ignore[arg-type]
        stop = StopReason.ITERATION_LIMIT
        it = 0
        quiet = 0
        while it < limits.iterations:
            it += 1
            rep = self.egraph.run(step)
            for rdecl, cnt in rep.num_matches_per_rule.items():
                name = getattr(rdecl, "name", None) or str(rdecl)[:40]
                if cnt and not name.startswith(ANALYSIS_PREFIX):  # report rewrites, not analyses
                    matches[name] = matches.get(name, 0) + cnt
            # the back-off scheduler may ban rules for an iteration: then only report
            # saturation after two quiet iterations in a row
            quiet = quiet + 1 if not rep.updated else 0
            if quiet >= (2 if scheduler is not None else 1):
                stop = StopReason.SATURATED
                break
            if self.size() > limits.nodes:
                stop = StopReason.NODE_LIMIT
                break
            if time.perf_counter() - start > limits.time_s:
                stop = StopReason.TIME_LIMIT
                break
            if after_iteration is not None:
                after_iteration(RunReport(StopReason.TIME_LIMIT, it, self.size(), time.perf_counter() - start,
                                          dict(matches)))
        self.egraph.run(term.slots_analysis.saturate())
        return RunReport(stop, it, self.size(), time.perf_counter() - start, matches)

    def node_classes(self, js: dict[str, object]) -> dict[int, str]:
        """IR node id -> its serialized e-class, read from ``ld_name`` in ``js`` (a ``serialize``)."""
        nodes: dict[str, dict[str, object]] = js["nodes"]  # type: ignore[assignment]
        out: dict[int, str] = {}
        for node in nodes.values():
            if node["op"] == "ld_name":
                child = str(node["children"][0])  # type: ignore[index]
                out[int(str(nodes[child]["op"]))] = str(node["eclass"])
        return out

    def serialize(self) -> dict[str, object]:
        ser = self.egraph._egraph.serialize([], max_functions=None, max_calls_per_function=None)
        return json.loads(ser.to_json())  # type: ignore[no-any-return]
