"""Relinearization placement (BGV/CKKS): the fewest relinearize ops, by an ILP (in one pass
when the values that may be degree 3 form a forest: ``_forest_points``; by a minimum vertex
cut where the optimum is determined: ``_cut_points``).

In: a leveled ``Program``. Out: the values to relinearize (``relinearize_points``) or the
program with them inserted (``place_relinearize``); ``relinearize_first`` orders a
relinearize before a modswitch of the same value.
"""

from __future__ import annotations

from eqsat.ir import MGMT_OPS, Program
from eqsat.mgmt.edit import PlacementError, insert_after, is_ct_mul, strip_mgmt
from eqsat.milp import Milp

# ops whose secret operands must be degree 2 (key switching or lowering through masks)
NEEDS_LINEAR = frozenset({"rotate", "extract", "insert", "from_elements", "splat", "bootstrap", "decode"})


# -- relinearization --------------------------------------------------------------
def relinearize_points(prog: Program, *, time_limit: float = 10.0) -> set[int]:
    """The nodes after which to relinearize (an optimal set, see the module docstring);
    with ``time_limit <= 0`` (no time left for an ILP) every ciphertext product, which is
    always a valid placement."""
    if not any(is_ct_mul(prog, i) for i in prog.live()):
        return set()  # no degree-3 value anywhere: nothing to place (and no ILP to build)
    if time_limit <= 0:
        return {i for i in prog.live() if is_ct_mul(prog, i)}
    forest = _forest_points(prog)
    if forest is not None:
        return forest
    cut = _cut_points(prog)
    if cut is not None:
        return cut
    return _ilp_points(prog, time_limit)


def _ilp_points(prog: Program, time_limit: float) -> set[int]:
    """The ILP (HiGHS) of the module docstring: an optimal set, or on a time-out every
    ciphertext product."""
    m = Milp()
    d: dict[int, int] = {}
    e: dict[int, int] = {}
    r: dict[int, int] = {}
    live = [i for i in prog.live() if prog.nodes[i].type.secret]
    for i in live:
        cm = is_ct_mul(prog, i)
        fresh = prog.nodes[i].op in ("input", "encode")
        d[i] = m.var(1.0 if cm else 0.0, 0.0 if fresh else 1.0, 0.0, True)
        e[i] = m.var(0.0, 1.0, 0.0, True)
        r[i] = m.var(0.0, 1.0, 1.0, True)
        m.row({e[i]: 1.0, d[i]: -1.0, r[i]: 1.0}, 0.0, float("inf"))
        m.row({r[i]: 1.0, d[i]: -1.0}, float("-inf"), 0.0)
    for i in live:
        n = prog.nodes[i]
        sargs = [a for a in set(n.args) if a in d]
        if is_ct_mul(prog, i) or n.op in NEEDS_LINEAR:
            for a in sargs:
                m.row({e[a]: 1.0}, float("-inf"), 0.0)
            if n.op in NEEDS_LINEAR:
                m.row({d[i]: 1.0}, float("-inf"), 0.0)
        else:  # add, sub, neg, plaintext ops, modswitch/rescale keep the degree
            for a in sargs:
                m.row({d[i]: 1.0, e[a]: -1.0}, 0.0, float("inf"))
    for res in prog.results:
        if res in e:
            m.row({e[res]: 1.0}, float("-inf"), 0.0)
    status, x, _, _ = m.solve(time_limit, None)
    if x is None and status == "time_limit":
        # a time-out is not infeasibility: relinearizing after every ciphertext product is
        # always a valid placement (a 100,000-op program reported "infeasible" here)
        return {i for i in live if is_ct_mul(prog, i)}
    if x is None:
        raise PlacementError(f"relinearization ILP failed ({status})")
    return {i for i in live if x[r[i]] > 0.5}


def _forest_points(prog: Program) -> set[int] | None:
    """The optimal points without an ILP when the values that may be degree 3 form a forest:
    ``None`` otherwise.

    A value may be degree 3 (``maybe``) when it is a ciphertext product or a degree-keeping op
    (add, sub, neg, plaintext ops, modswitch) reading one. When each such value has one user
    (a result counts as one), its degree-3 part reaches exactly one place that needs degree 2
    -- a product, an op of ``NEEDS_LINEAR`` or a result -- through a tree of degree-keeping
    ops; the trees are disjoint, each holds a product, so each needs a relinearization, and one
    at its root (the value that place reads) suffices: the ILP's optimum, found in one pass
    (a 1,024-term sum of squares: 7 s of HiGHS on a loaded machine before)."""
    users: dict[int, set[int]] = {}
    live = prog.live()
    for i in live:
        for a in prog.nodes[i].args:
            users.setdefault(a, set()).add(i)
    results = set(prog.results)
    maybe: set[int] = set()
    roots: set[int] = set()
    for i in live:
        n = prog.nodes[i]
        if not n.type.secret or n.op in ("input", "encode") or n.op in NEEDS_LINEAR:
            continue
        if is_ct_mul(prog, i) or any(a in maybe for a in n.args):
            maybe.add(i)
    for i in maybe:
        us = users.get(i, set())
        if len(us) + (i in results) != 1:
            return None
        if i in results:
            roots.add(i)
            continue
        (u,) = us
        if is_ct_mul(prog, u) or prog.nodes[u].op in NEEDS_LINEAR:
            roots.add(i)
    return roots


#: the most values ``_cut_points`` handles (those left after the forced relinearizations), and
#: the most arcs its augmenting paths may visit in all (about 0.1 s): past either the ILP decides
CUT_MAX_NODES = 2000
CUT_MAX_WORK = 200_000


def _cut_points(prog: Program) -> set[int] | None:
    """The ILP's answer without the ILP where it is determined: ``None`` (the ILP decides)
    when a part of the program has several optimal placements and is no forest, or when more
    than ``CUT_MAX_NODES`` values are left after the forced relinearizations (or the paths take
    more than ``CUT_MAX_WORK`` steps).

    The ILP's feasible sets are the vertex cuts between the ciphertext products and the places
    that need degree 2: degree 3 flows from a product through the degree-keeping ops that read
    it (add, sub, neg, plaintext ops, modswitch) until a relinearization stops it, and may not
    reach an operand of a ciphertext product, of an op of ``NEEDS_LINEAR`` or of an
    ``input``/``encode`` (degree 2 by the ILP's bounds), nor a result; an optimal set is a
    minimum cut. A product read directly by such a place is in every feasible set (forced).
    The rest is cut by augmenting paths (Menger: the fewest relinearizations are the most
    vertex-disjoint paths from a product to such a place), and of its minimum cuts the one
    nearest the products and the one nearest the places are compared, per connected part
    (values joined by a read): where they agree the part's minimum cut is unique, and so the
    ILP's; where they do not and the part is a forest (every value read once), its roots, the
    rule of ``_forest_points``; otherwise ``None``. (rr_reduce_add_and_mul_32: four products
    each read by a rotation and a product, forced, and one read by a sum, which is
    relinearized: HiGHS's first solve in a request cost 5-7 ms of CPU.)"""
    nodes = prog.nodes
    live = prog.live()
    secret = {i for i in live if nodes[i].type.secret}
    keep: set[int] = set()  # secret values of their secret operands' degree (the ILP's else)
    muls: list[int] = []
    need = {r for r in prog.results if r in secret}  # values that must be degree 2 where read
    readers: dict[int, list[int]] = {}  # value -> the degree-keeping values reading it
    users = dict.fromkeys(prog.results, 1)  # value -> live users (and results), as _forest_points
    for i in live:
        n = nodes[i]
        for a in set(n.args):
            users[a] = users.get(a, 0) + 1
        if i not in secret:
            continue
        if n.op == "mul" and all(nodes[a].type.secret for a in n.args):
            muls.append(i)
            need.update(n.args)
        elif n.op in NEEDS_LINEAR or n.op in ("input", "encode"):
            need.update(a for a in n.args if a in secret)
        else:
            keep.add(i)
            for a in dict.fromkeys(n.args):
                if a in secret:
                    readers.setdefault(a, []).append(i)
    forced = {i for i in muls if i in need}
    # the values that may still be degree 3: reached from an unforced product through
    # degree-keeping ops (a forced product passes degree 2 on)
    maybe: set[int] = set()
    stack = [i for i in muls if i not in forced]
    while stack:
        i = stack.pop()
        if i not in maybe:
            maybe.add(i)
            stack.extend(readers.get(i, ()))
    if len(maybe) > CUT_MAX_NODES:
        return None
    if not maybe:
        return forced
    # the flow network: node 0 the source, 1 the sink, 2 + 2k / 3 + 2k the k-th value's in /
    # out with an arc of capacity 1 between them; arcs without a bound from the source to
    # each product's in, from an out to its readers' ins, from a needed value's out to the
    # sink. Arcs come in pairs: ``e ^ 1`` is the reverse of ``e``.
    order = sorted(maybe)
    pos = {v: 2 + 2 * k for k, v in enumerate(order)}
    big = len(order) + 1
    head: list[int] = []
    cap: list[int] = []
    adj: list[list[int]] = [[] for _ in range(2 + 2 * len(order))]

    def arc(a: int, b: int, c: int) -> None:
        adj[a].append(len(head))
        head.append(b)
        cap.append(c)
        adj[b].append(len(head))
        head.append(a)
        cap.append(0)

    for v in order:
        vin = pos[v]
        arc(vin, vin + 1, 1)
        if v not in keep:  # an unforced product: degree 3 from the start
            arc(0, vin, big)
        for u in readers.get(v, ()):
            arc(vin + 1, pos[u], big)
        if v in need:
            arc(vin + 1, 1, big)
    work = 0
    while True:  # augmenting paths, breadth first; each carries one unit (it crosses a unit arc)
        via = [-1] * len(adj)
        via[0] = -2
        frontier = [0]
        while frontier and via[1] == -1:
            nxt = []
            for a in frontier:
                work += len(adj[a])
                if work > CUT_MAX_WORK:
                    return None
                for e in adj[a]:
                    b = head[e]
                    if cap[e] > 0 and via[b] == -1:
                        via[b] = e
                        nxt.append(b)
            frontier = nxt
        if via[1] == -1:
            break
        b = 1
        while b != 0:
            e = via[b]
            cap[e] -= 1
            cap[e ^ 1] += 1
            b = head[e ^ 1]
    # what the source still reaches in the final residual network, and what still reaches the
    # sink: the minimum cuts nearest the products and nearest the places
    near_src = _reach(adj, head, cap, 0, forward=True)
    near_sink = _reach(adj, head, cap, 1, forward=False)
    cut_src = {v for v in order if near_src[pos[v]] and not near_src[pos[v] + 1]}
    cut_sink = {v for v in order if near_sink[pos[v] + 1] and not near_sink[pos[v]]}
    if cut_src == cut_sink:
        return forced | cut_sink
    # the connected parts where the two differ: each must be a forest
    part = {v: v for v in order}

    def find(v: int) -> int:
        while part[v] != v:
            part[v] = part[part[v]]
            v = part[v]
        return v

    for v in order:
        for u in readers.get(v, ()):
            part[find(u)] = find(v)
    open_parts = {find(v) for v in cut_src ^ cut_sink}
    if any(users.get(v, 0) != 1 for v in order if find(v) in open_parts):
        return None
    return forced | cut_sink


def _reach(adj: list[list[int]], head: list[int], cap: list[int], start: int, *, forward: bool) -> list[bool]:
    """The nodes ``start`` reaches (``forward``) or that reach ``start`` through arcs of
    residual capacity."""
    seen = [False] * len(adj)
    seen[start] = True
    stack = [start]
    while stack:
        a = stack.pop()
        for e in adj[a]:
            b = head[e]
            if not seen[b] and cap[e if forward else e ^ 1] > 0:
                seen[b] = True
                stack.append(b)
    return seen

def relinearize_first(prog: Program) -> Program:
    """Move each ``relinearize`` below the single-use ``modswitch``/``rescale`` chain it
    follows: ``relin(ms(ms(x)))`` becomes ``ms(ms(relin(x)))``, same op counts.

    Switching the modulus of a degree-3 ciphertext rounds its ``s^2`` part too: the
    executor measured about 82 bits of BGV noise on optimized x^8 with the switch first
    and about 50 with the relinearization first.
    """
    uses = prog.uses()
    moved: dict[int, int] = {}  # relinearize node -> the node it now applies to
    for i in prog.live():
        n = prog.nodes[i]
        if n.op != "relinearize":
            continue
        cur = n.args[0]
        while (prog.nodes[cur].op in ("modswitch", "rescale") and uses.get(cur, 0) == 1
               and cur not in prog.results):
            cur = prog.nodes[cur].args[0]
        if cur != n.args[0]:
            moved[i] = cur
    if not moved:
        return prog
    # drop each moved relinearize and relinearize its chain's base instead
    return insert_after(prog, set(moved.values()), "relinearize", drop=frozenset(moved))


def place_relinearize(prog: Program, *, time_limit: float = 10.0) -> Program:
    """Fewest relinearizations making every degree-3 use legal (existing ones are replaced)."""
    base = strip_mgmt(prog, keep=MGMT_OPS - {"relinearize"})
    return insert_after(base, relinearize_points(base, time_limit=time_limit), "relinearize")
