"""Program edits shared by every management placement.

In: an IR ``Program``. Out: the program without management ops (``strip_mgmt``), with an op
inserted after chosen values and every use rewired (``insert_after``), or op counts.
"""

from __future__ import annotations

from eqsat.errors import InfeasibleError
from eqsat.ir import MGMT_OPS, Builder, Program


class PlacementError(InfeasibleError):
    """No placement fits (e.g. the program needs more levels than the chain has)."""


def strip_mgmt(prog: Program, keep: frozenset[str] = frozenset()) -> Program:
    """The program without management ops (identities on values), except ``keep``; ``prog``
    itself when it holds none (the common case: a rebuild cost a pass over a big source,
    about ten times per call of the optimizer)."""
    if not any(prog.nodes[i].op in MGMT_OPS and prog.nodes[i].op not in keep for i in prog.live()):
        return prog
    b = Builder.like(prog)
    remap: dict[int, int] = {}
    for i in prog.live():
        n = prog.nodes[i]
        if n.op in MGMT_OPS and n.op not in keep:
            remap[i] = remap[n.args[0]]
        elif n.op == "input":
            remap[i] = b._arg_ids[str(n.attrs[0])]
        else:
            remap[i] = b.add_node(n.op, tuple(remap[a] for a in n.args), n.attrs, n.type)
    return b.finish([remap[r] for r in prog.results])


def is_ct_mul(prog: Program, i: int) -> bool:
    n = prog.nodes[i]
    return n.op == "mul" and all(prog.nodes[a].type.secret for a in n.args)


def count(prog: Program, op: str) -> int:
    return sum(1 for i in prog.live() if prog.nodes[i].op == op)


def insert_after(prog: Program, after: set[int], op: str, drop: frozenset[int] = frozenset()) -> Program:
    """``prog`` with the unary ``op`` right after every node in ``after`` (all uses rewired);
    the unary value-identities in ``drop`` (management ops) are removed."""
    b = Builder.like(prog)
    remap: dict[int, int] = {}
    for i in prog.live():
        n = prog.nodes[i]
        if i in drop:
            remap[i] = remap[n.args[0]]
            continue
        out = b._arg_ids[str(n.attrs[0])] if n.op == "input" else b.add_node(
            n.op, tuple(remap[a] for a in n.args), n.attrs, n.type)
        if i in after:
            out = b.unary(op, out)
        remap[i] = out
    return b.finish([remap[r] for r in prog.results])
