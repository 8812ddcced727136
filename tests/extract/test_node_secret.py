"""``dag.node_secret``: the secrecy half of ``node_cost`` without the cost, for every op and
every secrecy of the children; and ``_with_secrecy`` over a choice gives every chosen class
the secrecy its e-node's cost model gives."""

from __future__ import annotations

import itertools

from eqsat.egraph.view import ENode
from eqsat.extract.dag import _with_secrecy, node_cost, node_secret
from eqsat.models.cost import table

OPS = ["In", "PlainIn", "Num", "NumF", "Dense", "Mask", "Add", "Sub", "Mul", "Neg", "Rot", "Ext", "Ins",
       "Place", "Splat", "Encode", "Decode", "LinRot", "Gather", "ProdRot", "LinMap"]


def test_node_secret_is_node_costs_secrecy() -> None:
    costs = table("bgv")
    for op, extractable in itertools.product(OPS, (True, False)):
        for k in range(3):
            for kids in itertools.product((False, True), repeat=k):
                n = ENode(op, 0, tuple(range(1, k + 1)), (0, 4) if op != "Ext" else (1,), extractable)
                assert node_secret(n, list(kids)) == node_cost(n, list(kids), costs)[1], (op, extractable, kids)


class _G:
    def __init__(self, nodes: list[ENode]) -> None:
        self.nodes = nodes


def test_with_secrecy_follows_the_chosen_nodes() -> None:
    # class 0: In x; class 1: Num; class 2: x * 3; class 3: Num + Num (plaintext); class 4: none
    nodes = [ENode("In", 0, (), ("x",), True), ENode("Num", 1, (), (3, 1), True),
             ENode("Mul", 2, (0, 1), (), True), ENode("Add", 3, (1, 1), (), True)]
    choice = _with_secrecy(_G(nodes), [0, 1, 2, 3, -1], table("bgv"))  # type: ignore[arg-type]
    assert choice.secret == [True, False, True, False, False]
