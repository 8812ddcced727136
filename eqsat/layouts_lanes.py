"""Argument layouts for select trees: one slot (lane) per tree node, one vector op per level.

In: a ``Program`` whose one result is a scalar computed by a tree of encrypted selects
``cond(c, a, b)`` -- written ``c*a + (1-c)*b`` or ``b + c*(a-b)``, operands in any order --
where ``c`` is an element of a secret argument and ``a``, ``b`` are elements of secret
arguments or selects (the max and sort decision trees of Coyote and CHEHAB).
Out: ``lanes(prog)``, a list of zero or one ``Packed`` candidate (the program over packed
arguments, with the layouts that make it so), checked on random inputs.

The tree (a shared subtree counted once per use: computing it twice in two slots is free)
is cut into levels by depth from the root. Every select gets a lane: the root lane 0; a
select whose two operands are both selects keeps the ``a`` child in its own lane and puts
the ``b`` child ``2^k`` lanes further, where ``k`` counts the levels above with such a
split; a select with one select operand keeps it in its own lane. So the children of a
level sit in one vector, the ``a`` sides in place and the ``b`` sides one rotation away,
and each level is one select on whole vectors: ``B + C*(A - B)`` -- one ct*ct product per
level (the ``select`` rule's identity), one rotation per level that splits. The client
places every leaf -- comparison bits in ``C``, tree leaves in ``A``/``B`` -- at the lanes
where it is read: one ciphertext per (level, operand, argument), zero elsewhere. An operand
that mixes leaves with select results, or results from two lanes, masks the results with a
plaintext 0/1 vector before adding them (a ``mul_plain``). The result is lane 0 of the
root level. Programs of other shapes give no candidate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from eqsat.ir import Builder, Program, Type
from eqsat.layouts import Layout, Packed, Pos, arg_names, check_packed

MAX_SELECTS = 512  # a larger tree (shared subtrees unfolded) gives no candidate
MAX_LANES = 4096  # a lane assignment wider than this is skipped (deep trees that split often)

LeafKey = tuple[str, int]  # (secret argument, element index)
Refs = list[tuple[str, int]]  # client ciphertexts (argument, index) summed into one operand
Operand = tuple[Refs, dict[tuple[int, int], list[int]]]  # leaves; (group below, shift) -> lanes


@dataclass
class _Sel:
    c: LeafKey
    a: _Sel | LeafKey
    b: _Sel | LeafKey
    lane: int = 0
    group: int = 0


def _leaf(prog: Program, i: int) -> LeafKey | None:
    n = prog.nodes[i]
    if n.op == "input" and n.type.secret and n.type.is_scalar:
        return (str(n.attrs[0]), 0)
    if n.op == "extract" and n.type.is_scalar:
        src = prog.nodes[n.args[0]]
        if src.op == "input" and src.type.secret:
            return (str(src.attrs[0]), int(n.attrs[0]))  # type: ignore[call-overload]
    return None


def _is_one(prog: Program, i: int) -> bool:
    n = prog.nodes[i]
    return n.op == "const" and n.type.is_scalar and not n.type.secret and n.attrs[0] == 1


def _key(prog: Program, i: int) -> object:
    """Leaves by (argument, element), other values by node id."""
    lf = _leaf(prog, i)
    return lf if lf is not None else i


def _match(prog: Program, i: int) -> tuple[LeafKey, int, int] | None:
    """``(c, a, b)`` when node ``i`` is a select on the bit leaf ``c``, else None."""
    n = prog.nodes[i]
    if n.op != "add" or not n.type.is_scalar:
        return None
    x, y = n.args
    for p, q in ((x, y), (y, x)):
        # c*a + (1-c)*b
        pn, qn = prog.nodes[p], prog.nodes[q]
        if pn.op == "mul" and qn.op == "mul":
            for c, a in (pn.args, pn.args[::-1]):
                lc = _leaf(prog, c)
                if lc is None:
                    continue
                for s, b in (qn.args, qn.args[::-1]):
                    sn = prog.nodes[s]
                    if sn.op == "sub" and _is_one(prog, sn.args[0]) and _key(prog, sn.args[1]) == lc:
                        return lc, a, b
        # b + c*(a-b)
        if qn.op == "mul":
            for c, d in (qn.args, qn.args[::-1]):
                lc, dn = _leaf(prog, c), prog.nodes[d]
                if lc is not None and dn.op == "sub" and _key(prog, dn.args[1]) == _key(prog, p):
                    return lc, dn.args[0], p
    return None


def _tree(prog: Program, i: int, budget: list[int]) -> _Sel | LeafKey | None:
    lf = _leaf(prog, i)
    if lf is not None:
        return lf
    m = _match(prog, i)
    if m is None:
        return None
    budget[0] -= 1
    if budget[0] < 0:
        return None
    a = _tree(prog, m[1], budget)
    b = _tree(prog, m[2], budget) if a is not None else None
    return None if a is None or b is None else _Sel(m[0], a, b)


def _levels(root: _Sel, modes: tuple[str, ...]) -> list[list[list[_Sel]]]:
    """Selects by depth and group, each with its lane; ``modes[d]`` says how the groups of
    level ``d`` place their select children: ``rotate`` (one group below, the ``b`` side
    ``2^k`` lanes further) or ``split`` (two groups below, ``a`` and ``b`` sides, same lanes)."""
    root.lane, root.group = 0, 0
    levels: list[list[list[_Sel]]] = [[[root]]]
    while True:
        below: list[list[_Sel]] = []
        d = len(levels) - 1
        for grp in levels[-1]:
            off = 1 << max(s.lane for s in grp).bit_length()
            if (modes[d] if d < len(modes) else "rotate") == "rotate":
                one: list[_Sel] = []
                for s in grp:
                    kids = [k for k in (s.a, s.b) if isinstance(k, _Sel)]
                    for j, k in enumerate(kids):
                        k.lane = s.lane + j * off
                        one.append(k)
                below.append(one)
            else:
                for side in ("a", "b"):
                    part: list[_Sel] = []
                    for s in grp:
                        kid = s.a if side == "a" else s.b
                        if isinstance(kid, _Sel):
                            kid.lane = s.lane
                            part.append(kid)
                    below.append(part)
        below = [g for g in below if g]
        if not below:
            return levels
        for gi, grp in enumerate(below):
            for s in grp:
                s.group = gi
        levels.append(below)


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _depth(t: _Sel | LeafKey) -> int:
    return 0 if not isinstance(t, _Sel) else 1 + max(_depth(t.a), _depth(t.b))


def lanes(prog: Program, max_levels: int = 8) -> list[Packed]:
    """The lane-packed candidates of a select tree (see the module docstring), or none: for
    every way of choosing ``rotate`` or ``split`` per level (trees of up to ``max_levels``
    levels; deeper ones rotate below), the packing, keeping those on the Pareto front of
    (rotations, ct*ct products), fewest rotations first."""
    if len(prog.results) != 1 or not prog.nodes[prog.results[0]].type.is_scalar:
        return []
    if any(not ty.secret for _, ty in prog.args):
        return []
    first = _tree(prog, prog.results[0], [MAX_SELECTS])
    if not isinstance(first, _Sel):
        return []
    free = min(_depth(first), max_levels) - 1
    found: dict[tuple[int, int], tuple[int, Packed]] = {}
    for bits in range(1 << free):
        modes = tuple("split" if bits >> d & 1 else "rotate" for d in range(free))
        root = _tree(prog, prog.results[0], [MAX_SELECTS])
        assert isinstance(root, _Sel)
        cand = _build(prog, _levels(root, modes))
        if cand is None:
            continue
        ops = [n for n in cand.program.nodes]
        rot = sum(1 for n in ops if n.op == "rotate")
        mul = sum(1 for n in ops if n.op == "mul" and all(cand.program.nodes[a].type.secret for a in n.args))
        size = len(ops)
        if (rot, mul) not in found or size < found[(rot, mul)][0]:
            found[(rot, mul)] = (size, cand)
    front = [k for k in found if not any(o != k and o[0] <= k[0] and o[1] <= k[1] for o in found)]
    out = []
    for k in sorted(front):
        cand = found[k][1]
        if check_packed(prog, cand):
            out.append(cand)
    return out


def _build(prog: Program, levels: list[list[list[_Sel]]]) -> Packed | None:
    """The program over packed arguments for one lane assignment (None: a single lane)."""
    W = _pow2(1 + max(s.lane for lev in levels for grp in lev for s in grp))
    if W == 1 or W > MAX_LANES:
        return None  # a chain: nothing side by side; or too wide
    elem = prog.nodes[prog.results[0]].type.elem
    vty = Type((W,), elem, True)
    shapes = dict(prog.args)
    # the client's ciphertexts: per argument, the distinct lane -> element placements
    placements: dict[str, list[dict[int, int]]] = {n: [] for n, _ in prog.args}

    def inputs(lane_leaf: dict[int, LeafKey]) -> list[tuple[str, int]]:
        """The (argument, ciphertext) pairs whose sum holds ``lane_leaf``."""
        by_arg: dict[str, dict[int, int]] = {}
        for lane, (arg, e) in lane_leaf.items():
            by_arg.setdefault(arg, {})[lane] = e
        out = []
        for arg, pl in sorted(by_arg.items()):
            if pl not in placements[arg]:
                placements[arg].append(pl)
            out.append((arg, placements[arg].index(pl)))
        return out

    # per level (deepest first) and group: the bit inputs, and per operand its leaf inputs
    # and its select children by (group below, shift) -> lanes
    plan: list[list[tuple[Refs, Operand, Operand]]] = []
    for lev in reversed(levels):
        row: list[tuple[Refs, Operand, Operand]] = []
        for grp in lev:
            opnd: list[Operand] = []
            for side in ("a", "b"):
                leaves: dict[int, LeafKey] = {}
                kids: dict[tuple[int, int], list[int]] = {}
                for s in grp:
                    k = s.a if side == "a" else s.b
                    if isinstance(k, _Sel):
                        kids.setdefault((k.group, k.lane - s.lane), []).append(s.lane)
                    else:
                        leaves[s.lane] = k
                opnd.append((inputs(leaves) if leaves else [], kids))
            row.append((inputs({s.lane: s.c for s in grp}), opnd[0], opnd[1]))
        plan.append(row)
    b = Builder(prog.name, style=prog.style)
    b.meta.update(prog.meta)
    layouts: dict[str, Layout] = {}
    cts: dict[str, list[int]] = {}
    for name, ty in prog.args:
        pls = placements[name]
        places: list[list[Pos]] = [[] for _ in range(ty.slots if ty.shape else 1)]
        for c, pl in enumerate(pls):
            for lane, e in pl.items():
                places[e].append((c, lane))
        lay = Layout("select-lanes", shapes[name].shape, max(1, len(pls)), W, tuple(tuple(p) for p in places))
        layouts[name] = lay
        cts[name] = [b.arg(an, vty) for an in arg_names(name, lay)]

    def total(refs: Refs) -> int | None:
        v: int | None = None
        for arg, c in refs:
            v = cts[arg][c] if v is None else b.add(v, cts[arg][c])
        return v

    below: list[int] = []  # the vectors of the level below, by group
    for row in plan:
        here: list[int] = []
        rotated: dict[tuple[int, int], int] = {}
        for bits, opa, opb in row:
            here.append(select_step(b, bits, (opa, opb), below, rotated, total, vty))
        below = here
    res = b.extract(below[0], 0)
    return Packed(b.finish([res]), layouts, [Layout("scalar", (), 1, 1, (((0, 0),),))])


def select_step(b: Builder, bits: Any, operands: Any, vecs: list[int], rotated: dict[tuple[int, int], int],
                total: Callable[[Any], int | None], vty: Type) -> int:
    """One vector select ``B + C * (A - B)``: each of the two operands (A, B) is its
    packed leaves (``total(refs)``) plus, per ``(source vector, shift)``, that vector rotated
    by ``shift`` (made once per step, kept in ``rotated``) and masked to the lanes it
    supplies (unmasked when it alone is the operand); ``bits`` are the select's condition."""
    W = vty.slots
    parts: list[int] = []
    for refs, srcs in operands:
        acc = total(refs)
        alone = acc is None and len(srcs) == 1
        for (g, shift), ls in sorted(srcs.items()):
            if (g, shift) not in rotated:
                rotated[(g, shift)] = vecs[g] if shift == 0 else b.rotate(vecs[g], shift)
            part = rotated[(g, shift)]
            if not alone:
                mask = tuple(1 if k in ls else 0 for k in range(W))
                part = b.mul(part, b.const(mask, vty.with_secret(False)))
            acc = part if acc is None else b.add(acc, part)
        assert acc is not None
        parts.append(acc)
    cbit = total(bits)
    assert cbit is not None
    return b.add(parts[1], b.mul(cbit, b.sub(parts[0], parts[1])))
