"""Select trees scheduled on lanes: any placement of selects on (product, lane), and the best
placement with one rotation.

In: a ``Program`` whose one result is a scalar select tree (recognized by
``eqsat.layouts_lanes``: ``cond(c, a, b)`` on bits ``c`` and leaves that are elements of
secret arguments), possibly with shared subtrees. Out:

* ``select_dag(prog)``: the tree's distinct selects (structurally equal subtrees once), or None.
* ``build(prog, dag, steps)``: the program over client-packed arguments for a *schedule*:
  ``steps[j]`` maps lanes to the selects that the ``j``-th vector product computes there.
  A select's child computed at another lane is brought over by a rotation of the vector of
  the product that computed it (one rotation per (product, shift), shared by all its users);
  the client places bits and leaves where they are read; an operand that mixes values from
  several vectors (or with leaves) masks each with a plaintext 0/1 vector (``mul_plain``).
* ``one_rotation(dag)``: the fewest products of any schedule with at most one rotation, and
  a schedule that attains it (``two_lane``); ``two_rotations(dag)`` the same for two
  rotations (its docstring: the three ways a value reaches lane 0); ``fewest_products(dag)``
  both by rotation count.
* ``select_candidates(prog)``: the Pareto front of (rotations, ct*ct products) over the level
  assignments of ``eqsat.layouts_lanes.lanes`` and the one-rotation schedule, fewest
  rotations first, each checked on random inputs -- the tree candidates of the layout search.

Why that minimum is exact (the select-lanes model: every select is one product
``c*(a-b)`` at one lane, and a lane receives another lane's value only by a rotation).
Before the single rotation every lane computes alone from what the client placed there.
The result lane ``0`` reads the rotated vector at one lane ``r``: one value, the result of one
select ``S`` (a sum of several select results is no operand of any select). Lane ``r``
computes all ``s = |cone(S)|`` selects below and at ``S`` before the rotation, one per
product; lane ``0`` computes every select the root needs other than through ``S`` -- the set
``L0(S)``, shared subtrees of ``S`` included -- and those of them that depend on ``S``
(``anc(S)``) after the rotation. So any one-rotation schedule whose rotated value is ``S``
has at least ``max(s + anc(S), |L0(S)|)`` products, and the schedule that pairs lane ``r``'s
selects with lane ``0``'s independent ones, then does ``anc(S)`` alone, has exactly that
many. Minimizing over ``S`` gives the minimum; with no rotation every select of the tree
sits at one lane: one product each.
"""

from __future__ import annotations

from dataclasses import dataclass

from eqsat.ir import Builder, Program, Type
from eqsat.layouts import Layout, Packed, Pos, arg_names, check_packed
from eqsat.layouts_lanes import _leaf, _match, lanes, select_step

LeafKey = tuple[str, int]  # (secret argument, element index)
Ref = tuple[str, object]  # ("leaf", LeafKey) | ("sel", select id)
MAX_DAG = 512  # more distinct selects than this: no schedule (the search is quadratic)


@dataclass(frozen=True)
class Dag:
    """Distinct selects ``sel[i] = (c, a, b)``, children before parents; ``root`` is the last."""

    sel: list[tuple[LeafKey, Ref, Ref]]

    @property
    def root(self) -> int:
        return len(self.sel) - 1

    def kids(self, i: int) -> list[int]:
        return [int(r[1]) for r in self.sel[i][1:] if r[0] == "sel"]  # type: ignore[call-overload]


def select_dag(prog: Program) -> Dag | None:
    """The distinct selects of ``prog``'s result, or None when it is not a select tree."""
    if len(prog.results) != 1 or not prog.nodes[prog.results[0]].type.is_scalar:
        return None
    ids: dict[tuple[LeafKey, Ref, Ref], int] = {}
    sel: list[tuple[LeafKey, Ref, Ref]] = []
    memo: dict[int, Ref | None] = {}

    def walk(i: int, depth: int = 0) -> Ref | None:
        if i in memo:
            return memo[i]
        if depth > MAX_DAG:  # deeper than the select bound: no schedule (and no deep recursion)
            return None
        lf = _leaf(prog, i)
        out: Ref | None
        if lf is not None:
            out = ("leaf", lf)
        else:
            m = _match(prog, i)
            a = walk(m[1], depth + 1) if m is not None else None
            b = walk(m[2], depth + 1) if m is not None and a is not None else None
            if m is None or a is None or b is None:
                out = None
            else:
                key = (m[0], a, b)
                if key not in ids:
                    if len(sel) >= MAX_DAG:
                        return None
                    ids[key] = len(sel)
                    sel.append(key)
                out = ("sel", ids[key])
        memo[i] = out
        return out

    top = walk(prog.results[0])
    if top is None or top[0] != "sel" or top[1] != len(sel) - 1:
        return None
    return Dag(sel)


def _cone(dag: Dag, top: int, stop: int | set[int] | None = None) -> list[int]:
    """The selects ``top`` reads (itself included), children first, not entering ``stop``."""
    seen: set[int] = set()
    order: list[int] = []
    stops = stop if isinstance(stop, set) else {stop}

    def go(i: int) -> None:
        if i in seen or i in stops:
            return
        seen.add(i)
        for k in dag.kids(i):
            go(k)
        order.append(i)

    go(top)
    return order


def two_lane(dag: Dag) -> tuple[int, list[dict[int, int]]] | None:
    """The fewest products with one rotation and a schedule on lanes 0 and 1 attaining it
    (see the module docstring), or None when no rotation saves a product."""
    best: tuple[int, int, int] | None = None  # (products, -|cone|, S)
    for s in range(dag.root):
        cone = _cone(dag, s)
        lane0 = _cone(dag, dag.root, stop=s)
        dep = {s}
        for i in lane0:  # children first: a select depends on S when a child does
            if any(k in dep for k in dag.kids(i)):
                dep.add(i)
        anc = sum(1 for i in lane0 if i in dep)
        products = max(len(cone) + anc, len(lane0))
        if best is None or (products, -len(cone)) < best[:2]:
            best = (products, -len(cone), s)
    if best is None or best[0] >= len(dag.sel):
        return None
    s = best[2]
    cone = _cone(dag, s)
    lane0 = _cone(dag, dag.root, stop=s)
    dep = {s}
    for i in lane0:
        if any(k in dep for k in dag.kids(i)):
            dep.add(i)
    pre = [i for i in lane0 if i not in dep]
    post = [i for i in lane0 if i in dep]
    steps: list[dict[int, int]] = []
    for j in range(max(len(cone), len(pre))):
        step: dict[int, int] = {}
        if j < len(pre):
            step[0] = pre[j]
        if j < len(cone):
            step[1] = cone[j]
        steps.append(step)
    steps.extend({0: i} for i in post)
    assert len(steps) == best[0]
    return best[0], steps


def _depends(dag: Dag, order: list[int], sources: list[int]) -> set[int]:
    """The selects of ``order`` (children first) that read one of ``sources``, and those."""
    dep = set(sources)
    for i in order:
        if any(k in dep for k in dag.kids(i)):
            dep.add(i)
    return dep


MAX_TWO_ROTATIONS = 32  # more distinct selects: no two-rotation search (quartic: 0.5 s at 31)


def two_rotations(dag: Dag) -> tuple[int, list[dict[int, int]]] | None:
    """The fewest products with two rotations and a schedule attaining them (None: the tree
    is over ``MAX_TWO_ROTATIONS``, or it is the root alone).

    The first rotation (by 1) brings ``S1`` from lane 1 to lane 0 and, in the same rotated
    vector, ``S1'`` from lane 3 to lane 2; the second (by 2) brings ``S2`` from lane 2 to
    lane 0 -- the only ways a value reaches lane 0 with two rotations. Phase A (before the
    first): lanes 1 and 3 compute the cones of ``S1`` and ``S1'``, lane 2 the part of ``S2``'s
    cone that does not read ``S1'``, lane 0 what reads neither ``S1`` nor ``S2``. Phase B:
    lane 2 finishes ``S2``, lane 0 goes on with what reads ``S1``. Phase C: lane 0 alone,
    what reads ``S2``. For each choice of (``S2``, ``S1'``, ``S1``) the phase lengths follow
    from those counts, and the best choice is taken."""
    n = len(dag.sel)
    if n > MAX_TWO_ROTATIONS:
        return None
    cones = {i: _cone(dag, i) for i in range(n)}
    best: tuple[int, int, int | None, int | None] | None = None
    for s2 in range(dag.root):
        for s1p in [None, *[x for x in cones[s2] if x != s2]]:
            lane2 = _cone(dag, s2, stop=s1p)
            n2dep = len(_depends(dag, lane2, [s1p]) & set(lane2)) if s1p is not None else 0
            c1p = len(cones[s1p]) if s1p is not None else 0
            for s1 in [None, *[x for x in range(dag.root) if x != s2]]:
                lane0 = _cone(dag, dag.root, stop={s2} if s1 is None else {s1, s2})
                dz = _depends(dag, lane0, [s2])
                z = sum(1 for i in lane0 if i in dz)
                dy = _depends(dag, lane0, [s1]) if s1 is not None else set()
                y = sum(1 for i in lane0 if i in dy and i not in dz)
                a0 = max(c1p, len(cones[s1]) if s1 is not None else 0)
                products = max(a0 + n2dep + z, a0 + y + z, len(lane2) + z, len(lane0))
                if best is None or products < best[0]:
                    best = (products, s2, s1p, s1)
    if best is None:
        return None
    _, s2, s1p, s1 = best
    # phase lengths: A holds the two crossing cones, B what reads S1' at lane 2 or S1 at lane 0
    a = max(len(cones[s1p]) if s1p is not None else 0, len(cones[s1]) if s1 is not None else 0)
    lane2 = _cone(dag, s2, stop=s1p)
    d2 = _depends(dag, lane2, [s1p]) if s1p is not None else set()
    lane0 = _cone(dag, dag.root, stop={s2} if s1 is None else {s1, s2})
    dz = _depends(dag, lane0, [s2])
    dy = _depends(dag, lane0, [s1]) if s1 is not None else set()
    at: dict[int, dict[int, int]] = {}  # step -> lane -> select

    def put(lane: int, order: list[int], earliest: list[int]) -> int:
        """Places ``order`` at ``lane`` one per step from ``earliest[k]`` on; the next free step."""
        t = 0
        for i, e in zip(order, earliest, strict=True):
            t = max(t, e)
            at.setdefault(t, {})[lane] = i
            t += 1
        return t

    if s1 is not None:  # the crossing cones end together at step a - 1: one rotation for both
        put(1, cones[s1], [a - len(cones[s1])] * len(cones[s1]))
    if s1p is not None:
        put(3, cones[s1p], [a - len(cones[s1p])] * len(cones[s1p]))
    free2 = [i for i in lane2 if i not in d2]
    end2 = put(2, free2 + [i for i in lane2 if i in d2], [0] * len(free2) + [a] * (len(lane2) - len(free2)))
    free0 = [i for i in lane0 if i not in dy and i not in dz]
    after1 = [i for i in lane0 if i in dy and i not in dz]
    after2 = [i for i in lane0 if i in dz]
    put(0, free0 + after1 + after2, [0] * len(free0) + [a] * len(after1) + [end2] * len(after2))
    steps = [at.get(t, {}) for t in range(max(at) + 1)]
    assert len(steps) == best[0], (len(steps), best)
    return len(steps), steps


def one_rotation(dag: Dag) -> int:
    """The fewest ct*ct products of any schedule with at most one rotation (module docstring)."""
    found = two_lane(dag)
    return len(dag.sel) if found is None else found[0]


def fewest_products(dag: Dag) -> dict[int, int]:
    """Rotations -> the fewest ct*ct products with at most that many: 0 (every select at one
    lane), 1 (``two_lane``), 2 (``two_rotations``, when the tree is small enough for it)."""
    out = {0: len(dag.sel), 1: one_rotation(dag)}
    found = two_rotations(dag)
    if found is not None:
        out[2] = min(out[1], found[0])
    return out


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def build(prog: Program, dag: Dag, steps: list[dict[int, int]]) -> Packed | None:
    """The program over packed arguments for a schedule (None: one lane, nothing to pack).
    ``steps`` must compute every child before its parent at some lane, and the root at lane 0
    in the last step."""
    W = _pow2(1 + max(lane for st in steps for lane in st))
    if W == 1:
        return None
    assert steps[-1].get(0) == dag.root
    elem = prog.nodes[prog.results[0]].type.elem
    vty = Type((W,), elem, True)
    placements: dict[str, list[dict[int, int]]] = {n: [] for n, _ in prog.args}

    def inputs(lane_leaf: dict[int, LeafKey]) -> list[tuple[str, int]]:
        by_arg: dict[str, dict[int, int]] = {}
        for lane, (arg, e) in lane_leaf.items():
            by_arg.setdefault(arg, {})[lane] = e
        out = []
        for arg, pl in sorted(by_arg.items()):
            if pl not in placements[arg]:
                placements[arg].append(pl)
            out.append((arg, placements[arg].index(pl)))
        return out

    # where each select is computed: select -> {lane: first step}
    first: dict[int, dict[int, int]] = {}
    for j, st in enumerate(steps):
        for lane, x in st.items():
            first.setdefault(x, {}).setdefault(lane, j)

    def options(x: int, lane: int, j: int) -> list[tuple[int, int]]:
        """The (step, shift) rotations that bring ``x`` to ``lane`` before step ``j``."""
        return sorted((s, ln - lane) for ln, s in first.get(x, {}).items() if s < j and ln != lane)

    # how many consumers each rotation could serve: the most useful is made first
    useful: dict[tuple[int, int], int] = {}
    for j, st in enumerate(steps):
        for lane, x in st.items():
            for ref in dag.sel[x][1:]:
                kid = int(ref[1]) if ref[0] == "sel" else -1  # type: ignore[call-overload]
                if kid >= 0 and not first.get(kid, {}).get(lane, j) < j:
                    for o in options(kid, lane, j):
                        useful[o] = useful.get(o, 0) + 1
    where: dict[int, dict[int, int]] = {}
    shifted: set[tuple[int, int]] = set()  # the (step, shift) rotations used so far
    # per step: bits, and per operand its leaf inputs and its sources (step, shift) -> lanes
    Source = tuple[int, int]
    plan: list[tuple[list[tuple[str, int]], list[tuple[list[tuple[str, int]], dict[Source, list[int]]]]]] = []
    for j, st in enumerate(steps):
        opnds = []
        for side in (1, 2):
            leaves: dict[int, LeafKey] = {}
            srcs: dict[Source, list[int]] = {}
            for lane, x in sorted(st.items()):
                ref = dag.sel[x][side]
                if ref[0] == "leaf":
                    leaves[lane] = ref[1]  # type: ignore[assignment]
                    continue
                at = where.get(int(ref[1]), {})  # type: ignore[call-overload]
                if lane in at:
                    src = (at[lane], 0)
                elif at:
                    # from another lane: a rotation already made, else the most useful one
                    opts = sorted((s, ln - lane) for ln, s in at.items())
                    src = min(opts, key=lambda o: (o not in shifted, -useful.get(o, 0), o))
                    shifted.add(src)
                else:
                    raise AssertionError(f"select {ref[1]} used at step {j} before it is computed")
                srcs.setdefault(src, []).append(lane)
            opnds.append((inputs(leaves) if leaves else [], srcs))
        plan.append((inputs({lane: dag.sel[x][0] for lane, x in st.items()}), opnds))
        for lane, x in st.items():
            where.setdefault(x, {}).setdefault(lane, j)

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
        lay = Layout("select-lanes", ty.shape, max(1, len(pls)), W, tuple(tuple(p) for p in places))
        layouts[name] = lay
        cts[name] = [b.arg(an, vty) for an in arg_names(name, lay)]

    def total(refs: list[tuple[str, int]]) -> int | None:
        v: int | None = None
        for arg, c in refs:
            v = cts[arg][c] if v is None else b.add(v, cts[arg][c])
        return v

    vec: list[int] = []  # the result vector of each step
    rotated: dict[Source, int] = {}
    for bits, opnds in plan:
        vec.append(select_step(b, bits, opnds, vec, rotated, total, vty))
    res = b.extract(vec[-1], 0)
    return Packed(b.finish([res]), layouts, [Layout("scalar", (), 1, 1, (((0, 0),),))])


def counts(prog: Program) -> tuple[int, int]:
    """(rotations, ct*ct products) of a program."""
    rot = sum(1 for n in prog.nodes if n.op == "rotate")
    mul = sum(1 for n in prog.nodes if n.op == "mul" and all(prog.nodes[a].type.secret for a in n.args))
    return rot, mul


def select_candidates(prog: Program) -> list[Packed]:
    """The level assignments of ``lanes`` and the one- and two-rotation schedules, on the Pareto front of
    (rotations, ct*ct products), fewest rotations first (of equal counts, the smaller program)."""
    found: dict[tuple[int, int], Packed] = {counts(c.program): c for c in lanes(prog)}
    dag = select_dag(prog) if all(ty.secret for _, ty in prog.args) else None
    for make in (two_lane, two_rotations):
        sched = make(dag) if dag is not None else None
        if dag is not None and sched is not None and make is two_rotations and sched[0] >= one_rotation(dag):
            continue  # the second rotation saves nothing
        extra = build(prog, dag, sched[1]) if dag is not None and sched is not None else None
        if extra is not None and check_packed(prog, extra):
            k = counts(extra.program)
            if k not in found or len(extra.program.nodes) < len(found[k].program.nodes):
                found[k] = extra
    front = [k for k in found if not any(o != k and o[0] <= k[0] and o[1] <= k[1] for o in found)]
    return [found[k] for k in sorted(front)]
