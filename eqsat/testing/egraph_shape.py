"""An e-graph's shape up to the numbering of its classes and nodes, for tests that compare two.

In: a serialized e-graph (``Session.serialize``).  Out: ``shape(js)``: the classes refined by
their nodes' ops, literals and children's colours (six rounds of colour refinement) as a
multiset of colours, and the roots' colours in root order.  Two e-graphs built by different
schedules (late unions at load, oracle tables) that hold the same terms in the same classes
have the same shape, whatever numbers egglog gave their classes.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from eqsat.egraph.view import EGraphView


def shape(js: dict[str, Any]) -> tuple[Counter[str], list[str]]:
    view = EGraphView(js)
    colour = ["" for _ in range(view.num_classes)]
    for _ in range(6):
        new = []
        for cls in range(view.num_classes):
            nodes = sorted(f"{n.op}{n.lits}{[colour[c] for c in n.children]}"
                           for n in (view.nodes[i] for i in view.class_nodes[cls]))
            new.append(hashlib.sha256(repr(nodes).encode()).hexdigest()[:16])
        colour = new
    return Counter(colour), [colour[view.roots[k]] for k in sorted(view.roots)]
