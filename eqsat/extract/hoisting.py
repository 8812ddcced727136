"""Hoisted rotations in extraction: the discount of a choice, and the ILP's groups.

In: an ``EGraphView``, the chosen e-node per class (or, for the ILP, the candidates) and a
``CostTable``.  Out: ``discount`` -- what a choice saves because rotations of one input
class share a key-switching decomposition (``hoisted_saving`` per rotation after the
first of each input class) -- subtracted by ``dag`` from the sum of node costs; and
``rotation_input`` -- the input class of an e-node that rotates a ciphertext, used by
``ilp`` to give each input class a "first rotation" indicator.

A rotation is a secret ``Rot`` or an ``Ext`` of slot ``k != 0`` (the executor reads a
slot by rotating), exactly what ``eqsat.models.hoisting`` counts on the extracted
program, so the extraction objective equals the report's ``cost``.
"""

from __future__ import annotations

from collections.abc import Iterable

from eqsat.egraph.view import EGraphView, ENode
from eqsat.models.cost import CostTable


def rotation_input(n: ENode) -> int | None:
    """The rotated input class of ``n`` if it is a rotation (see the module), else None."""
    if n.op == "Rot" or (n.op == "Ext" and n.lits[0] != 0):
        return n.children[0]
    return None


def discount(g: EGraphView, node_of: list[int], secret_classes: Iterable[int], costs: CostTable) -> float:
    """Hoisting saving of the choice ``node_of`` (class -> e-node index) over
    ``secret_classes``, the secret classes the program uses (a rotation of a plaintext
    costs nothing, so saves nothing)."""
    saving = costs.hoisted_saving
    if not saving:
        return 0.0
    per_input: dict[int, int] = {}
    for c in secret_classes:
        src = rotation_input(g.nodes[node_of[c]])
        if src is not None:
            per_input[src] = per_input.get(src, 0) + 1
    return saving * sum(r - 1 for r in per_input.values() if r > 1)
