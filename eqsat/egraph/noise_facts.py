"""Running the noise analysis on a session and reading its facts, without egglog's Python layer.

In: a ``Session`` (``eqsat.egraph.session``) after saturation, or its serialized JSON and
``EGraphView``.  Out: ``run(session)`` (declares the compiled ``noise-analysis`` section and
runs it, with the arguments' facts seeded, to a fixpoint) and ``facts(js, view)`` ->
``NoiseFacts`` per e-class.  The ruleset itself and what its facts mean are in
``eqsat.egraph.noise_analysis``, which builds it with egglog's Python API (only when the
compiled rule text is built, ``eqsat.egraph.compiled``) and re-exports these names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from eqsat.egraph.view import EGraphView
from eqsat.models.noisy import FRESH
from eqsat.term_ops import CONCRETE_OPS, INERT_OPS, SUMMARY_OPS

#: the analysis functions (egglog names) and the ``NoiseFacts`` field each fills
ANALYSIS_FUNCTIONS = {"noise_bits": "noise", "mul_depth": "depth", "ckks_depth": "ckks_depth"}


class _Saturates(Protocol):
    """What ``run`` needs of an ``eqsat.egraph.session.Session`` (not imported: the session's
    compiled rule text, ``eqsat.egraph.compiled``, is recorded from ``noise_analysis``'s ruleset)."""

    def saturate_section(self, name: str) -> None: ...


def run(session: _Saturates) -> None:
    """Run the analysis to its fixpoint on the session's e-graph (after saturation)."""
    session.saturate_section("noise-analysis")  # declares the functions (no input is known yet)
    seed_inputs(session)
    session.saturate_section("noise-analysis")


def seed_inputs(session: Any) -> None:
    """The facts of the program's arguments: a secret one is fresh (noise ``FRESH``, depth
    0); a plaintext one (an ``In`` term as well) is plaintext of unknown magnitude, so a
    product with it is a plaintext product, not a ciphertext one."""
    import json

    cmds = []
    for name, ty in session.prog.args:
        term = f"(In {json.dumps(name)} {ty.slots})"
        if ty.secret:
            cmds += [f"(set (noise_bits {term}) {FRESH})", f"(set (mul_depth {term}) 0)",
                     f"(set (ckks_depth {term}) 0)"]
        else:
            cmds.append(f"(set (plain_bits {term}) 0)")
    if cmds:
        session._run_text("\n".join(cmds))


def seeds_present(session: Any) -> bool:
    """Whether every argument's ``In`` term is in the session's e-graph already: then
    ``seed_inputs`` adds no term, and ``run`` changes nothing of the e-graph but the analysis'
    own tables (its rules only set facts of terms they matched), so a serialization taken
    before ``run`` holds the same term nodes, in the same order, as one taken after it."""
    import json

    egg = session.egg
    for name, ty in session.prog.args:
        call = egg.parse_program(f"(In {json.dumps(name)} {ty.slots})")[0].action.expr
        key = [egg.eval_expr(arg)[1] for arg in call.args]
        if egg.lookup_function("In", key) is None:
            return False
    return True


def root_facts(session: Any) -> dict[str, list[int | None]]:
    """The facts of the session's result classes (its ``Root`` markers), looked up in the
    e-graph after ``run``: what ``facts(js, view).roots(...)`` reads from a serialization
    taken after ``run``, without serializing the analysis' tables (a class holds one row of
    each function; a plaintext-realizable class reads as plaintext, ``None``)."""
    egg = session.egg
    out: dict[str, list[int | None]] = {"noise_floor": [], "depth_floor": [], "ckks_depth_floor": []}
    keys = {"noise_bits": "noise_floor", "mul_depth": "depth_floor", "ckks_depth": "ckks_depth_floor"}
    for k in session.roots:
        value = egg.eval_expr(egg.parse_program(f"(Root {int(k)})")[0].action.expr)[1]
        plain = egg.lookup_function("plain_bits", [value]) is not None
        for fn, key in keys.items():
            got = None if plain else egg.lookup_function(fn, [value])
            out[key].append(None if got is None else egg.value_to_i64(got))
    return out


@dataclass
class NoiseFacts:
    """Per e-class (``EGraphView`` index) facts; a class without an entry is plaintext
    or has no extractable program."""

    noise: dict[int, int] = field(default_factory=dict)
    depth: dict[int, int] = field(default_factory=dict)
    ckks_depth: dict[int, int] = field(default_factory=dict)

    def roots(self, roots: list[int]) -> dict[str, list[int | None]]:
        """The facts of the given root classes (``None`` for a plaintext root)."""
        return {
            "noise_floor": [self.noise.get(r) for r in roots],
            "depth_floor": [self.depth.get(r) for r in roots],
            "ckks_depth_floor": [self.ckks_depth.get(r) for r in roots],
        }


def eclass_index(js: Mapping[str, object], view: EGraphView) -> dict[str, int]:
    """Serialized e-class name -> ``view`` class index (rebuilt in ``EGraphView``'s order)."""
    ops = CONCRETE_OPS | SUMMARY_OPS | INERT_OPS
    raw: dict[str, dict[str, object]] = js["nodes"]  # type: ignore[assignment]
    kept = [nd for nd in raw.values() if str(nd["op"]) in ops]
    if len(kept) != len(view.nodes):
        raise ValueError("serialized e-graph does not match the view")
    return {str(nd["eclass"]): en.cls for nd, en in zip(kept, view.nodes, strict=True)}


def facts(js: Mapping[str, object], view: EGraphView) -> NoiseFacts:
    """Read the analysis values from a serialization taken after ``run``."""
    raw: dict[str, dict[str, object]] = js["nodes"]  # type: ignore[assignment]
    index = eclass_index(js, view)
    prim = {str(nd["eclass"]): str(nd["op"]) for key, nd in raw.items() if key.startswith("primitive-")}
    out = NoiseFacts()
    tables: dict[str, dict[int, int]] = {"noise": out.noise, "depth": out.depth, "ckks_depth": out.ckks_depth}
    plain: set[int] = set()
    for nd in raw.values():
        op = str(nd["op"])
        field_name = ANALYSIS_FUNCTIONS.get(op)
        if field_name is None and op != "plain_bits":
            continue
        child = raw[nd["children"][0]]  # type: ignore[index]
        cls = index.get(str(child["eclass"]))
        if cls is None:
            continue
        if field_name is None:
            plain.add(cls)
            continue
        value = int(prim[str(nd["eclass"])])
        tab = tables[field_name]
        tab[cls] = min(value, tab.get(cls, value))
    # a class that also holds a plaintext program (x*y - x*y = 0) needs no ciphertext at all:
    # no noise, no level -- reported as plaintext, like a class without a secret program
    for tab in tables.values():
        for cls in plain:
            tab.pop(cls, None)
    return out
