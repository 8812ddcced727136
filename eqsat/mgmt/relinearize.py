"""Relinearization placement (BGV/CKKS): the fewest relinearize ops, by an ILP (in one pass
when the values that may be degree 3 form a forest: ``_forest_points``).

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
