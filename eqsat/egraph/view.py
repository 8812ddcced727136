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
        self.nodes: list[ENode] = []
        self.class_nodes: list[list[int]] = []
        self.roots: dict[int, int] = {}
        nodes = self.nodes
        # what a child id stands for, read once per id (e-nodes share children): a class index
        # (numbered at its first sight, as before) or a primitive's literal
        class_of: dict[str, int] = {}
        literal_of: dict[str, Lit] = {}
        for node in raw_nodes.values():
            op = str(node["op"])
            op = INERT.get(op, op)  # inert twins are their originals to extraction
            if op == "Root":
                k = int(str(raw_nodes[node["children"][0]]["op"]))  # type: ignore[index]
                self.roots[k] = class_ids.setdefault(str(node["eclass"]), len(class_ids))
                continue
            extractable = op in CONCRETE_OPS
            if not extractable and op not in SUMMARY_OPS:
                continue
            cls = class_ids.setdefault(str(node["eclass"]), len(class_ids))
            children: list[int] = []
            lits: list[Lit] = []
            for ch in node["children"]:  # type: ignore[attr-defined]
                got = class_of.get(ch)
                if got is not None:
                    children.append(got)
                elif ch in literal_of:
                    lits.append(literal_of[ch])
                elif str(ch).startswith("primitive-"):
                    lit = literal_of[ch] = _literal(str(raw_nodes[ch]["op"]))
                    lits.append(lit)
                else:
                    got = class_of[ch] = class_ids.setdefault(str(raw_nodes[ch]["eclass"]), len(class_ids))
                    children.append(got)
            if op == "In" and lits and lits[0] in plain_inputs:
                op = "PlainIn"
            nodes.append(ENode(op, cls, tuple(children), tuple(lits), extractable))
        self.class_nodes = [[] for _ in range(len(class_ids))]
        for idx, n in enumerate(self.nodes):
            self.class_nodes[n.cls].append(idx)
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
