"""The serialized e-graph as integer-indexed classes and e-nodes, read by extraction and analyses.

In: the JSON of ``Session.serialize()``. Out: an ``EGraphView``: ``nodes`` (``ENode``: op,
class, child classes, literal arguments, whether extractable), ``class_nodes`` and the
classes of the results (``root(k)``). Inert twins read as their originals; analysis
tables are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from eqsat.fast_init import fast_init
from eqsat.term_ops import CONCRETE_OPS, INERT, SUMMARY_OPS

Lit = int | float | str


@fast_init  # made by the thousand (every e-node of a serialized e-graph, restricted views)
@dataclass(frozen=True, slots=True)
class ENode:
    op: str
    cls: int
    children: tuple[int, ...]  # class indices of T-typed arguments, in order
    lits: tuple[Lit, ...]  # literal arguments, in order
    extractable: bool


class EGraphView:
    """Integer-indexed classes and nodes of a serialized e-graph."""

    def __init__(self, js: Mapping[str, object], plain_inputs: frozenset[str] = frozenset()) -> None:
        """``plain_inputs``: the program's plaintext arguments; their ``In`` leaves read as
        ``PlainIn`` (a plaintext leaf to extraction, priced and typed as a plaintext)."""
        raw_nodes: dict[str, dict[str, object]] = js["nodes"]  # type: ignore[assignment]
        class_ids: dict[str, int] = {}
        self.roots: dict[int, int] = {}
        nodes: list[ENode] = []
        # what a child id stands for, read once per id (e-nodes share children): a class index
        # (numbered at its first sight, as before) or a primitive's literal
        class_of: dict[str, int] = {}
        literal_of: dict[str, Lit] = {}
        # the loop runs once per serialized e-node (1,595 for rr_reduce_add_and_mul_32): names
        # bound locally, egglog's strings used as they come (ops, class and child ids are str)
        inert_get, concrete, summary = INERT.get, CONCRETE_OPS, SUMMARY_OPS
        number = class_ids.setdefault
        find_class, find_literal = class_of.get, literal_of.get
        append = nodes.append
        for node in raw_nodes.values():
            op: str = node["op"]  # type: ignore[assignment]
            op = inert_get(op, op)  # inert twins are their originals to extraction
            extractable = op in concrete
            if not extractable:
                if op == "Root":
                    k = int(str(raw_nodes[node["children"][0]]["op"]))  # type: ignore[index]
                    self.roots[k] = number(node["eclass"], len(class_ids))  # type: ignore[arg-type]
                    continue
                if op not in summary:
                    continue
            cls = number(node["eclass"], len(class_ids))  # type: ignore[arg-type]
            children: list[int] = []
            lits: list[Lit] = []
            for ch in node["children"]:  # type: ignore[attr-defined]
                got = find_class(ch)
                if got is not None:
                    children.append(got)
                    continue
                lit = find_literal(ch, literal_of)  # the dict itself: "not a literal yet"
                if lit is not literal_of:
                    lits.append(lit)  # type: ignore[arg-type]
                elif ch.startswith("primitive-"):
                    lit = literal_of[ch] = _literal(raw_nodes[ch]["op"])  # type: ignore[arg-type]
                    lits.append(lit)
                else:
                    got = class_of[ch] = number(raw_nodes[ch]["eclass"], len(class_ids))  # type: ignore[arg-type]
                    children.append(got)
            if op == "In" and lits and lits[0] in plain_inputs:
                op = "PlainIn"
            append(ENode(op, cls, tuple(children), tuple(lits), extractable))
        self.nodes = nodes
        class_nodes: list[list[int]] = [[] for _ in range(len(class_ids))]
        for idx, n in enumerate(nodes):
            class_nodes[n.cls].append(idx)
        self.class_nodes = class_nodes
        self.num_classes = len(class_ids)

    def root(self, k: int) -> int:
        """The class of result number ``k``."""
        return self.roots[k]


def _literal(text: str) -> Lit:
    if text.startswith('"'):
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    try:
        return int(text)
    except ValueError:
        return float(text)
