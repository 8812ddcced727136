"""Linear slot maps spelled out: every ``linmap`` node of a program replaced by its best plan.

In: a ``Program`` that may hold ``linmap`` nodes (a tensor program before optimization).
Out: ``expand_linmaps(prog)``, the same function written with ``rotate``, plaintext ``mul``
(diagonals as registered ``VecRef`` constants) and ``add`` only -- the baby-step/giant-step
or direct plan of ``eqsat.algebra.linmap.best_plan``, exactly the map.  The printer and the
executor use it for programs that were not optimized (optimization realizes the maps
itself, choosing by the full cost); a program without ``linmap`` comes back unchanged.
"""

from __future__ import annotations

from eqsat.algebra import linmap
from eqsat.ir import Builder, Program, Type, VecRef


def has_linmaps(prog: Program) -> bool:
    return any(prog.nodes[i].op == "linmap" for i in prog.live())


def expand_linmaps(prog: Program) -> Program:
    """``prog`` with each ``linmap`` node realized by its best plan (see the module docstring)."""
    if not has_linmaps(prog):
        return prog
    b = Builder.like(prog)
    new: dict[int, int] = {}
    for i in prog.live():
        n = prog.nodes[i]
        if n.op == "input":
            new[i] = b.add_node("input", (), n.attrs, n.type)  # hash-consed: the argument itself
            continue
        args = tuple(new[a] for a in n.args)
        if n.op == "linmap":
            new[i] = realize(b, args[0], str(n.attrs[0]), n.type)
        else:
            new[i] = b.add_node(n.op, args, n.attrs, n.type)
    return b.finish([new[r] for r in prog.results])


def realize(b: Builder, v: int, handle: str, ty: Type) -> int:
    """The nodes computing map ``handle`` on node ``v`` (result type ``ty``)."""
    m, pinned = linmap.resolve(handle)
    plan = pinned or linmap.best_plan(m)
    plain = Type(ty.shape, ty.elem, False)
    babies = {s: b.rotate(v, s) for s in plan.babies}
    out: int | None = None
    for g, terms in plan.giants:
        inner: int | None = None
        for s, p in terms:
            x = babies[s]
            if p is not None:
                vec = p.astype(float) if ty.is_float else p
                x = b.mul(b.const(VecRef(linmap.register_vector(vec)), plain), x)
            inner = x if inner is None else b.add(inner, x)
        assert inner is not None
        part = b.rotate(inner, g)
        out = part if out is None else b.add(out, part)
    if out is None:
        return b.const(0.0 if ty.is_float else 0, plain)
    return out
