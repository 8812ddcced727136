"""Source vector trees over rotations of one vector: their polynomial (a sum) or offset set (a product).

In: a ``Program``, the root of a tree and a ``single_use`` predicate. Out: a ``RotationTree``
-- the base vector ``v``, the tree's value as ``sum_k c_k rot(v, k)`` (a linear tree of
``add``, ``sub``, ``neg``, ``rotate`` and products by integer scalar constants) or as
``prod_{k in S} rot(v, k)`` (a product tree of ``mul`` and ``rotate``, every offset once),
and the interior nodes only the root reads (through single-use nodes) -- or None when the
tree reads anything else.

``eqsat.egraph.summaries`` unions such a tree with its ``LinRot``/``ProdRot`` summary
realized at load: the rules reach that summary one source step per iteration (``lin-rot`` with ``lin-add``,
``prod-rot`` with ``prod-merge``), 14 iterations for each of the two 14-step loops of HEIR's
sum-and-product of 32 slots. (``interior`` is what a loader could leave out; the summaries
keep it, see ``Summaries._plan_rotation_trees``.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from eqsat.ir import Program


@dataclass
class RotationTree:
    base: int  # the vector every leaf rotates
    terms: dict[int, int]  # offset -> coefficient (a product: every coefficient 1)
    interior: list[int]  # nodes below the root that only the tree reads
    rotations: int  # rotate nodes in the tree


def _int_splat(prog: Program, i: int) -> int | None:
    """The integer of a constant vector with one value in every slot (``const`` or ``splat``)."""
    n = prog.nodes[i]
    if n.op == "const":
        c = n.attrs[0]
        if isinstance(c, tuple):
            return c[0] if len(set(c)) == 1 and isinstance(c[0], int) and not isinstance(c[0], bool) else None
        return c if isinstance(c, int) and not isinstance(c, bool) else None
    if n.op == "splat":
        return _int_splat(prog, n.args[0])
    return None


def rotation_tree(prog: Program, root: int, single_use: Callable[[int], bool], product: bool) -> RotationTree | None:
    """The tree at ``root`` (a vector ``add``/``sub`` for a sum, ``mul`` for a product) as a
    ``RotationTree``, or None (another leaf than one varying vector, a zero sum, an offset
    twice in a product)."""
    n_slots = prog.nodes[root].type.slots
    terms: dict[int, int] = {}
    interior: list[int] = []
    base: int | None = None
    rotations = 0
    # (node, shift, coefficient, whether every node from the root to it is read once)
    stack = [(root, 0, 1, True)]
    budget = 4 * len(prog.nodes)  # a tree that reads a shared node twice is walked twice: bounded
    while stack:
        budget -= 1
        if budget < 0:
            return None
        i, s, c, own = stack.pop()
        n = prog.nodes[i]
        inner = i != root
        mine = not inner or (own and single_use(i))
        if n.op == "rotate":
            rotations += 1
            stack.append((n.args[0], (s + int(n.attrs[0])) % n_slots, c, mine))  # type: ignore[call-overload]
        elif not product and n.op in ("add", "sub"):
            stack.append((n.args[0], s, c, mine))
            stack.append((n.args[1], s, c if n.op == "add" else -c, mine))
        elif not product and n.op == "neg":
            stack.append((n.args[0], s, -c, mine))
        elif n.op == "mul" and not product:
            k = [a for a in n.args if _int_splat(prog, a) is not None]
            if len(k) != 1:
                return None
            other = n.args[1] if k[0] == n.args[0] else n.args[0]
            stack.append((other, s, c * _int_splat(prog, k[0]), mine))  # type: ignore[operator]
        elif n.op == "mul":
            stack.append((n.args[0], s, c, mine))
            stack.append((n.args[1], s, c, mine))
        else:
            if n.op in ("const", "empty", "splat") or n.type.slots != n_slots or n.type.is_scalar or not n.type.secret:
                return None
            if base is not None and i != base:
                return None
            base = i
            if product and s in terms:
                return None
            terms[s] = terms.get(s, 0) + c
            continue
        if inner and mine:
            interior.append(i)
    terms = {k: c for k, c in terms.items() if c}
    if base is None or not terms:
        return None
    return RotationTree(base, terms, interior, rotations)


def interior_forms(prog: Program, tree: RotationTree, product: bool) -> dict[int, dict[int, int]]:
    """The terms of every interior node of ``tree`` (over the same base), bottom-up: node
    ids are topological, so each node's operands are done before it (an operand outside the
    interior is read as its own tree). A node over another base, or not a rotation form of
    the base, is left out."""
    n_slots = prog.nodes[tree.base].type.slots
    forms: dict[int, dict[int, int]] = {tree.base: {0: 1}}

    def form(a: int) -> dict[int, int] | None:
        if a not in forms:
            t = rotation_tree(prog, a, lambda _: False, product)
            if t is None or t.base != tree.base:
                return None
            forms[a] = t.terms
        return forms[a]

    out: dict[int, dict[int, int]] = {}
    for i in sorted(tree.interior):
        n = prog.nodes[i]
        args = [form(a) for a in n.args]
        got: dict[int, int] | None = None
        if n.op == "rotate" and args[0] is not None:
            k = int(n.attrs[0])  # type: ignore[call-overload]
            got = {(j + k) % n_slots: c for j, c in args[0].items()}
        elif n.op == "neg" and args[0] is not None and not product:
            got = {j: -c for j, c in args[0].items()}
        elif n.op in (("mul",) if product else ("add", "sub")) and None not in args:
            a, b = args[0], args[1]
            assert a is not None and b is not None
            if product:
                got = {**a, **b} if a.keys().isdisjoint(b) else None
            else:
                sign = -1 if n.op == "sub" else 1
                got = dict(a)
                cancelled = False
                for j, c in b.items():
                    x = got.get(j, 0) + sign * c
                    got[j] = x
                    cancelled = cancelled or x == 0
                if cancelled:  # only then a term to drop (most steps add new offsets)
                    got = {j: c for j, c in got.items() if c}
        elif n.op == "mul" and not product:
            t = rotation_tree(prog, i, lambda _: False, product)
            got = t.terms if t is not None and t.base == tree.base else None
        if got:
            forms[i] = got
            out[i] = got
    return out
