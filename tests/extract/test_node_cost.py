"""``node_cost`` reads the table's prices directly (``CostTable.costs``): the same prices as
indexing the table (``costs[key]``: a float, 0.0 for a key the table lacks)."""

from __future__ import annotations

import itertools
import math

from eqsat.egraph.view import ENode
from eqsat.extract.dag import node_cost
from eqsat.models.cost import CostTable, table


def _by_the_table(n: ENode, secret: list[bool], costs: CostTable) -> tuple[float, bool]:
    op = n.op
    if not n.extractable:
        return math.inf, True
    if op == "In":
        return 0.0, True
    if op in ("Num", "NumF", "Dense", "Mask", "PlainIn"):
        return 0.0, False
    if not any(secret):
        return (0.0, False) if op != "Encode" else (0.0, True)
    if op in ("Add", "Sub"):
        return (costs[op.lower()] if all(secret) else costs["add_plain"]), True
    if op == "Mul":
        return (costs["mul"] if all(secret) else costs["mul_plain"]), True
    if op == "Neg":
        return costs["neg"], True
    if op == "Rot":
        return costs["rotate"], True
    if op == "Ext":
        return (0.0 if n.lits[0] == 0 else costs["extract"]), True
    if op in ("Ins", "Place", "Splat"):
        return costs["insert"], True
    if op == "Encode":
        return 0.0, True
    if op == "Decode":
        return 0.0, False
    return 0.0, True


def test_node_cost_prices_as_the_table_does() -> None:
    ops = ["In", "Num", "PlainIn", "Add", "Sub", "Mul", "Neg", "Rot", "Ext", "Ins", "Place", "Splat", "Encode",
           "Decode", "LinRot"]
    tables = [table("bgv"), table("ckks"), CostTable("bgv", {"add": 3, "mul": 7.5}),  # ints, and keys missing
              CostTable("bgv", {})]
    for costs, op, extractable, lit in itertools.product(tables, ops, (True, False), (0, 2)):
        for secret in ([], [False], [True], [True, False], [False, True], [True, True], [False, False]):
            n = ENode(op, 0, tuple(range(1, len(secret) + 1)), (lit, 4), extractable)
            got, want = node_cost(n, list(secret), costs), _by_the_table(n, list(secret), costs)
            assert got == want and type(got[0]) is type(want[0]), (op, secret, costs)
