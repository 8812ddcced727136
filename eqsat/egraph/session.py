"""The runner: one program in one egglog e-graph, saturated under limits, serialized.

In: an IR ``Program``, a schedule (rule families of ``eqsat.rules.REGISTRY``, by family or
name, or egglog ``Ruleset`` objects) and ``Limits``. Out: a ``Session`` holding the egglog
e-graph (``egg``, egglog's low-level ``bindings.EGraph``) and its result markers
(``Root(k)``); ``saturate`` returns a ``RunReport`` with a typed ``StopReason``;
``serialize`` gives the JSON that ``eqsat.egraph.view.EGraphView`` reads.

Rules and analyses enter the e-graph as egglog text compiled once (``eqsat.egraph.compiled``),
and only the sections a run uses; schedules are egglog ``run-schedule`` commands.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import re
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eqsat.egraph import compiled, pyobject_pickle, scratch
from eqsat.egraph.limits import Limits, RunReport, StopReason
from eqsat.egraph.loader import Loader
from eqsat.egraph.oracle_tables import RULE_PREFIX as TABLE_PREFIX
from eqsat.egraph.tables import declarations, schedule
from eqsat.ir import Program
from eqsat.term_ops import CONCRETE_OPS, INERT_OPS, SUMMARY_OPS

if TYPE_CHECKING:
    from egglog import bindings
else:  # the Rust bindings alone: egglog's Python layer is never used here
    from eqsat.egraph.egglog_import import bindings as _bindings

    bindings = _bindings()


LOAD_CHUNK = 256


TERM_OPS = CONCRETE_OPS | SUMMARY_OPS | INERT_OPS | {"Root"}


ANALYSIS_PREFIX = "slots-"  # names of the rules of term.slots_analysis


#: the marker, among a session's declared sections, of the loader's tables (``tables.declarations``)
LOAD_TABLES = "eqsat.egraph.tables"
#: the loader writes the analyses' facts of its terms (``Tables.facts``): the analyses at load
#: then find them in place instead of deriving them one term level an iteration (same fixpoint)
LOAD_FACTS = True
#: only the filled tables' load rules run (``tables.schedule``); False: all of ``ld``
LOAD_FILLED_ONLY = True
#: the load's unions applied once every term is built (``tables.schedule``)
LOAD_LATE_UNIONS = True

#: a blank e-graph whose sections are declared already, and their rulesets (``prepare``)
_PREPARED: list[tuple[Any, frozenset[str]]] = []

#: the per-class slot analyses (``term.slots``, ``term.varies``): two rows per e-class, which
#: nothing reads once saturation is over -- a serialization's two thirds, before this
DROP_SLOT_FACTS = "eqsat-drop-slot-facts"
_DROP_SLOT_FACTS_TEXT = "\n".join([
    f"(ruleset {DROP_SLOT_FACTS})",
    *(f"(rule ((= v ({fn} x))) ((delete ({fn} x))) :ruleset {DROP_SLOT_FACTS} :name \"{DROP_SLOT_FACTS}-{fn}\")"
      for fn in ("slots", "varies")),
])

#: the rows extraction never reads, deleted before a hand-back's serialization: the summary
#: e-nodes (``SUMMARY_OPS``: extraction marks them unextractable, the noise analysis matches
#: none of them), the loader's ``ld_name`` and the ``src_rot`` facts -- on
#: rr_reduce_add_and_mul_32 1,595 -> 598 serialized e-nodes (236 -> 82 kB). A class left
#: without e-nodes is serialized as a childless ``[...]`` node (``EGraphView`` skips it)
DROP_SUMMARIES = "eqsat-drop-summaries"


@functools.cache
def _drop_summaries_text() -> str:
    """``DROP_SUMMARIES``'s rules, one per summary constructor (its arity read from the term
    section's declaration) and one per loader fact."""
    rules = [f"(ruleset {DROP_SUMMARIES})"]
    decls = dict(re.findall(r"\(constructor (\w+) \(([^()]*)\) T\)", compiled.section(compiled.TERM).text))
    for op in sorted(SUMMARY_OPS):
        args = " ".join(f"a{i}" for i in range(len(decls[op].split())))
        rules.append(f"(rule ((= v ({op} {args}))) ((delete ({op} {args}))) :ruleset {DROP_SUMMARIES} "
                     f":name \"{DROP_SUMMARIES}-{op}\")")
    rules.append(f"(rule ((src_rot x)) ((delete (src_rot x))) :ruleset {DROP_SUMMARIES} "
                 f":name \"{DROP_SUMMARIES}-src_rot\")")
    rules.append(f"(rule ((= v (ld_name i))) ((delete (ld_name i))) :ruleset {DROP_SUMMARIES} "
                 f":name \"{DROP_SUMMARIES}-ld_name\")")
    return "\n".join(rules)


def prepare(names: Sequence[str]) -> None:
    """Declare the term language and the compiled sections ``names`` in a blank e-graph that
    the next ``Session`` of this process takes instead of declaring them itself.  For a
    process that forks before each program (``eqsat serve``): every fork takes its own copy,
    and declaring the rules (0.1-0.2 s) is paid once.  Declaring a section early changes no
    result: declarations add rules and empty tables, and no rule runs before the program is
    loaded (a test compares the outputs)."""
    egg = bindings.EGraph()
    idents: set[str] = set()
    for name in (compiled.TERM, *names):
        sec = compiled.section(name)
        for piece in split_forms(sec.text):
            egg.run_program(*egg.parse_program(piece))
        idents.add(sec.ident)
    # the loader's row tables and rules too: the same for every program (15 ms a request)
    for piece in split_forms(declarations()):
        egg.run_program(*egg.parse_program(piece))
    idents.add(LOAD_TABLES)
    egg.run_program(*egg.parse_program(_DROP_SLOT_FACTS_TEXT))
    idents.add(DROP_SLOT_FACTS)
    egg.run_program(*egg.parse_program(_drop_summaries_text()))
    idents.add(DROP_SUMMARIES)
    _PREPARED[:] = [(egg, frozenset(idents))]


def prepare_default() -> None:
    """``prepare`` the default rules and the noise analysis: for a process that forks a worker
    per program (``eqsat serve``, ``eqsat optimize`` with several inputs)."""
    from eqsat.rules import SCHEDULES

    prepare([*SCHEDULES["default"], compiled.NOISE])


class Session:
    """One program in one e-graph."""

    def __init__(self, prog: Program) -> None:
        self.prog = prog
        if _PREPARED:  # a blank e-graph with sections declared (``prepare``)
            self.egg, loaded = _PREPARED.pop()
            self._loaded: set[str] = set(loaded)
        else:
            self.egg = bindings.EGraph()
            self._loaded = set()
        self._combined: dict[tuple[str, ...], str] = {}
        self._parsed: dict[str, list[Any]] = {}
        self.require(compiled.section(compiled.TERM))
        loader = Loader(prog)
        self.roots = loader.load()
        self.node_ids = dict(loader.name)  # IR node id -> loader node id (see ``node_classes``)
        with tempfile.TemporaryDirectory(prefix="eqsat-load-", dir=scratch.root()) as tmp:
            loader.write_facts = LOAD_FACTS
            cmds = loader.write(Path(tmp))
            if LOAD_TABLES not in self._loaded:
                self._run_text(declarations())
                self._loaded.add(LOAD_TABLES)
            self._run_text("\n".join(cmds))
            self._run_text(schedule(loader.filled if LOAD_FILLED_ONLY else None, LOAD_FACTS, LOAD_LATE_UNIONS))
        self.analyse()

    def _run_text(self, text: str, cache: bool = False) -> list[Any]:
        # the oracles' values pickled and unpickled through memo tables (``pyobject_pickle``)
        with collector_off(), pyobject_pickle.memoized():
            cmds = self._parsed.get(text) if cache else None
            if cmds is None:
                # piece by piece: egglog's parser and its rules' source spans cost more than linear
                # time in the length of one text (the 52 KB slots section: 0.3 s to parse, 0.4 s to
                # register, against 0.01 s and 0.07 s in pieces)
                cmds = [c for piece in split_forms(text) for c in self.egg.parse_program(piece)]
                if cache:
                    self._parsed[text] = cmds
            return self.egg.run_program(*cmds)

    def require(self, sec: compiled.Section) -> str:
        """Declare ``sec`` (its functions, ruleset and rules) unless it is already; its ruleset's name."""
        if sec.ident not in self._loaded:
            self._run_text(sec.text)
            self._loaded.add(sec.ident)
        return sec.ident

    def run_schedule(self, schedule: str) -> Any:
        """Run one egglog schedule (the text inside ``run-schedule``); egglog's run report."""
        for out in self._run_text(f"(run-schedule {schedule})", cache=True):
            if isinstance(out, bindings.RunScheduleOutput):
                return out.report
        raise RuntimeError("egglog's run-schedule gave no report")

    def saturate_section(self, name: str) -> None:
        """Declare the compiled section ``name`` (``eqsat.egraph.compiled``) and run its ruleset
        to saturation (e.g. ``"noise-analysis"``; one with oracle tables with the analyses,
        which fill them, before each run)."""
        sec = compiled.section(name)
        ident = self.require(sec)
        fill = f"(saturate (run {compiled.section(compiled.TERM).ident})) " if sec.drop else ""
        self.run_schedule(f"(saturate {fill}(run {ident}))")

    def analyse(self) -> None:
        """The slot analyses (``eqsat.term.slots_analysis``) to their fixpoint."""
        self.run_schedule(f"(saturate (run {compiled.section(compiled.TERM).ident}))")

    def ruleset_name(self, rulesets: Sequence[Any]) -> str:
        """Declare the rulesets (families, family names or egglog ``Ruleset`` objects) and
        return the name of one ruleset running them all."""
        return self._combine(tuple(self.require(_section_of(r)) for r in rulesets))

    def _combine(self, idents: tuple[str, ...]) -> str:
        """The name of one ruleset running the declared rulesets ``idents`` (at least one)."""
        if len(idents) == 1:
            return idents[0]
        if idents not in self._combined:
            name = f"eqsat-combined-{len(self._combined)}"
            self._run_text(f"(unstable-combined-ruleset {name} {' '.join(idents)})")
            self._combined[idents] = name
        return self._combined[idents]

    def analysis(self, rulesets: Sequence[Any] = ()) -> str:
        """The schedule that brings the analyses (with them the rules' oracle tables,
        ``eqsat.egraph.oracle_tables``) to their fixpoint, together with the eager rules of
        ``rulesets``' families (``RuleFamily.eager_ruleset``; declared here): what an eager
        rule derives is analysed, and what the analyses add is matched by the eager rules,
        until neither adds anything."""
        term = f"(run {compiled.section(compiled.TERM).ident})"
        eager = self._eager(rulesets)
        return f"(saturate {term} (run {eager}))" if eager else f"(saturate {term})"

    def step(self, rulesets: Sequence[Any], match_limit: int = 0) -> str:
        """The schedule of one iteration: the analyses to saturation, then one run of the rules
        (with ``match_limit`` > 0 under egglog's back-off scheduler, as ``egglog.back_off``)."""
        combined = self.ruleset_name(rulesets)
        # the analyses (with them the rules' oracle tables, ``eqsat.egraph.oracle_tables``) and
        # the eager rules to their fixpoint: every key of the e-graph the rules match on has its answer
        analysis = self.analysis(rulesets)
        if match_limit > 0:
            return (f"(seq (let-scheduler eqsat-bo (back-off :match-limit {match_limit} :ban-length 2)) "
                    f"{analysis} (run-with eqsat-bo {combined}))")
        return f"(seq {analysis} (run {combined}))"

    def iteration(self, rulesets: Sequence[Any]) -> str:
        """The schedule of one iteration without back-off: one run of the rules, then the
        analyses (with them the rules' oracle tables) to their fixpoint, so that the next
        iteration's rules match on them, then one run of the eager rules of ``rulesets``'
        families (``RuleFamily.eager_ruleset``). What the eager rules derive is analysed in
        the next iteration's analysis run, together with what the rules derive there, rather
        than in a second analysis run of this one (and the eager rules matched again on it):
        fewer runs with new rows, each of which rebuilds egglog's indexes of the tables that
        changed (1-2 ms an iteration on a 1,265-node e-graph, however few the new rows). The
        e-graph is at its fixpoint once a whole iteration changes nothing (``rep.updated``).
        ``saturate`` runs the analyses and the eager rules to their joint fixpoint before the
        first iteration and the analyses after the last."""
        term = f"(saturate (run {compiled.section(compiled.TERM).ident}))"
        eager = self._eager(rulesets)
        return f"(seq (run {self.ruleset_name(rulesets)}) {term}{f' (run {eager})' if eager else ''})"

    def _eager(self, rulesets: Sequence[Any]) -> str | None:
        """The name of one ruleset running the eager rules of ``rulesets``' families (declared
        here), or None when they have none."""
        with_eager = [sec for sec in map(_section_of, rulesets) if sec.eager]
        for sec in with_eager:
            self.require(sec)  # its text declares the eager ruleset
        eager = tuple(sorted({sec.eager for sec in with_eager}))
        return self._combine(eager) if eager else None

    def drop_slot_facts(self) -> None:
        """Delete the slot analyses' rows (``DROP_SLOT_FACTS``): for a session whose e-graph is
        only serialized, or analysed for noise (which reads neither), from here on. The terms
        and their classes stay as they are, so the serialization holds the same term nodes in
        the same order, without those rows."""
        if DROP_SLOT_FACTS not in self._loaded:
            self._run_text(_DROP_SLOT_FACTS_TEXT)
            self._loaded.add(DROP_SLOT_FACTS)
        # and the oracle tables' rows (``eqsat.egraph.oracle_tables``): nothing reads them either
        drops = "".join(f" (run {t})" for t in sorted({compiled.drop_of(i) for i in self._loaded} - {""}))
        self.run_schedule(f"(seq (run {DROP_SLOT_FACTS}){drops})")

    def drop_summaries(self) -> int:
        """Delete the rows extraction never reads (``DROP_SUMMARIES``): for a session whose
        e-graph is only serialized for extraction, or analysed for noise, from here on. The
        other e-nodes stay as they are, in the same order, with the same classes (a class left
        without e-nodes serialized as ``[...]``). Returns the summary e-nodes deleted: what an
        ``EGraphView`` of the e-graph before counted besides its own ``nodes``."""
        if DROP_SUMMARIES not in self._loaded:
            self._run_text(_drop_summaries_text())
            self._loaded.add(DROP_SUMMARIES)
        report = self.run_schedule(f"(run {DROP_SUMMARIES})")
        prefix = f"{DROP_SUMMARIES}-"
        return sum(n for name, n in report.num_matches_per_rule.items()
                   if name.startswith(prefix) and name[len(prefix):] in SUMMARY_OPS)

    def size(self) -> int:
        """E-nodes of the term language (analysis tables such as ``slots`` are not counted)."""
        for out in self._run_text("(print-size)", cache=True):
            if isinstance(out, bindings.PrintAllFunctionsSize):
                return sum(size for fn, size in out.sizes if fn in TERM_OPS)
        raise RuntimeError("egglog's print-size gave no sizes")

    def saturate(
        self, rulesets: Sequence[Any], limits: Limits, after_iteration: Callable[[RunReport], None] | None = None
    ) -> RunReport:
        """Run the rulesets (after the analyses, every iteration) until a limit or saturation.
        ``rulesets``: rule families (``eqsat.rules.resolve``), their names, or egglog rulesets.
        ``after_iteration`` sees the report so far after every iteration that does not stop
        (``eqsat.egraph.guard`` checkpoints the e-graph there)."""
        start = time.perf_counter()
        matches: dict[str, int] = {}
        if not rulesets:
            return RunReport(StopReason.SATURATED, 0, self.size(), 0.0, matches)
        # our rules contain no raw associativity/commutativity, so by default every rule runs on
        # every match; egglog's back-off scheduler (4x slower per iteration here) is opt-in
        backoff = limits.match_limit > 0
        # without back-off, one egglog call an iteration (``iteration``): the rules, then the
        # analyses to their fixpoint for the next iteration, then the eager rules. Without eager
        # rules only the rules' run tells whether the iteration changed anything (its report
        # comes first): the e-graph is at its fixpoint once the rules, run on analyses at
        # theirs, add nothing, even when those analyses (the oracle tables among them) took in
        # the previous iteration's new terms -- one iteration earlier than a quiet step of
        # both, the same e-graph. With eager rules, whose new terms the next iteration's
        # analyses take in, a whole quiet iteration
        step = self.step(rulesets, limits.match_limit) if backoff else self.iteration(rulesets)
        eager = self._eager(rulesets) is not None
        if not backoff:
            # the analyses are at their fixpoint already after loading; the eager rules not yet
            self.run_schedule(self.analysis(rulesets))
        stop = StopReason.ITERATION_LIMIT
        it = 0
        quiet = 0
        while it < limits.iterations:
            it += 1
            rep = self.run_schedule(step)
            for name, cnt in rep.num_matches_per_rule.items():
                if cnt and not name.startswith((ANALYSIS_PREFIX, TABLE_PREFIX)):  # rewrites, not analyses
                    matches[name] = matches.get(name, 0) + cnt
            # the back-off scheduler may ban rules for an iteration: then only report
            # saturation after two quiet iterations in a row
            quiet = quiet + 1 if not (rep.updated if backoff or eager else rules_changed(rep)) else 0
            if quiet >= (2 if backoff else 1):
                stop = StopReason.SATURATED
                break
            size = self.size()
            if size > limits.nodes:
                stop = StopReason.NODE_LIMIT
                break
            if time.perf_counter() - start > limits.time_s:
                stop = StopReason.TIME_LIMIT
                break
            if after_iteration is not None:
                after_iteration(RunReport(StopReason.TIME_LIMIT, it, size, time.perf_counter() - start,
                                          dict(matches)))
        self.analyse()
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
        return parse_serialized(self.serialize_text())

    def serialize_text(self) -> str:
        """The e-graph as egglog's JSON text (``serialize`` parsed): what a worker hands back,
        parsed once, by the process that reads it."""
        return self.egg.serialize([], max_functions=None, max_calls_per_function=None).to_json()  # type: ignore[no-any-return]


def rules_changed(report: Any) -> bool:
    """Whether the rules' run of an ``Session.iteration`` changed the e-graph: its report's
    first iteration (the analyses' runs follow it)."""
    its = report.iterations
    return bool(its) and bool(its[0].rule_set_report.changed)


def parse_serialized(text: str) -> dict[str, object]:
    """``Session.serialize_text``'s JSON parsed."""
    # parsing makes tens of thousands of dicts and lists and no cycle: without the garbage
    # collector, whose collections it set off walked everything the process holds (0.02 s
    # instead of 0.12-0.17 s for 1,837 e-nodes)
    with collector_off():
        return json.loads(text)  # type: ignore[no-any-return]


def parse_nodes(text: str) -> dict[str, object]:
    """``parse_serialized`` of what ``eqsat.egraph.view.EGraphView`` reads: ``{"nodes": ...}``
    with each e-node's ``op``, ``children`` and ``eclass``, without the parts it never reads --
    the classes' types (``class_data``, after the nodes) and the per-node ``"cost":1.0,
    "subsumed":false`` that egglog writes for every e-node -- cut from the text before parsing
    (rr_reduce_add_and_mul_32: 236 kB -> 177 kB, json.loads 1.47 -> 0.84 ms for 0.26 ms of
    cutting). Sound on any text: inside a JSON string every ``"`` is escaped (``\\"``), so the
    two characters ``,"`` only occur between members, and the cut texts are exactly the
    ``root_eclasses`` member onwards (its last occurrence, when the nodes come first, as egglog
    writes them) and members ``cost`` and ``subsumed`` with those default values; a node with
    other values keeps them."""
    end = text.rfind(',"root_eclasses":') if text.startswith('{"nodes":') else -1
    if end >= 0:
        text = text[:end] + "}"
    return parse_serialized(text.replace(',"cost":1.0,"subsumed":false}', "}"))


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """The garbage collector off for the block (on again after it, if it was on).  Inside
    egglog's calls every rule oracle's call makes its argument tuples and values (our
    ``PyObject`` sort: ints and strings, freed by reference counting, in no cycle), so the
    allocation counter set off collections that found nothing (about 7% of a saturation's
    CPU time on the 32-slot sum-and-product, by ``perf``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: a string literal, a comment to the end of the line, or a parenthesis (egglog's lexer)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|;[^\n]*|[()]')
#: the pieces ``split_forms`` cuts an egglog text into are at least this long
PIECE_CHARS = 2048


def split_forms(text: str, piece_chars: int = PIECE_CHARS) -> list[str]:
    """``text`` cut between top-level forms into pieces of about ``piece_chars`` characters
    (whole forms; a text with unbalanced parentheses stays one piece, for egglog to report)."""
    if len(text) <= piece_chars:
        return [text]
    pieces: list[str] = []
    depth = 0
    start = 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth == 0 and m.end() - start >= piece_chars:
                pieces.append(text[start:m.end()])
                start = m.end()
            elif depth < 0:
                return [text]
    if depth != 0:
        return [text]
    if text[start:].strip():
        pieces.append(text[start:])
    return pieces


def _section_of(r: Any) -> compiled.Section:
    """The compiled section of a rule family, a family name or an egglog ``Ruleset``."""
    if isinstance(r, str):
        return compiled.section(r)
    from eqsat.rules import REGISTRY

    # a registered family: its cached text.  Checked before ``hasattr(r, "ruleset")``, which
    # evaluates the family's ``ruleset`` property -- the whole egglog compilation the cache avoids
    name = getattr(r, "name", None)
    if isinstance(name, str) and hasattr(r, "specs") and REGISTRY.get(name) is r:
        return compiled.section(name)
    if hasattr(r, "ruleset"):  # any other family: recorded now
        return compiled.ruleset_section(r.ruleset, getattr(r, "eager_ruleset", None))
    return compiled.ruleset_section(r)
