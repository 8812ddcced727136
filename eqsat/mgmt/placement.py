"""BGV/CKKS management: relinearize, bootstrap, lazy rescale (exact ILPs), modswitch; a checker.

In: an IR ``Program`` (management ops, if any, are stripped first).  Out: the program
with explicit ``relinearize`` / ``modswitch`` / ``rescale`` ops, and ``check`` /
``MgmtReport`` validating ciphertext degrees, levels and (CKKS) scales.

* ``place_relinearize``: a ct x ct product is a degree-3 ciphertext; it stays
  legal through additions, negation and plaintext ops, and must be relinearized before
  it is multiplied by a ciphertext, rotated (key switching), moved between slots, or
  returned.  Where to relinearize is an ILP (HiGHS): a binary ``r_i`` per secret value,
  degree indicators ``d_i`` (before) and ``e_i`` (after relinearization) with
  ``e_i >= d_i - r_i``, ``d_i >= e_arg`` through additions, ``d_i = 1`` after a ct x ct
  mul, ``e_arg = 0`` where degree 2 is required; minimise ``sum r_i``.  This is HEIR's
  optimize-relinearization problem; the relinearization is shared by all uses.
* ``bootstrap_points``: when a path needs more levels than ``max_level`` and
  bootstrapping is allowed, the fewest bootstraps by an ILP (the noisy article's
  placement model with levels for bits: ``eqsat.extract.ilp.solve`` with bounds
  (0, max_level)); not allowed -> ``PlacementError`` naming the first value over budget.
* ``place_modswitch`` (BGV) and ``place_rescale`` (CKKS): levels start at ``max_level``
  (and again after each bootstrap); operands of a multi-operand op are brought to the
  same level by modswitch (level-down); BGV switches both operands of every ct x ct mul
  down one more level before it (HEIR's before-mul policy).
* ``rescale_points`` (CKKS, lazy): the fewest rescales by an ILP over scales (Delta or
  Delta^2): a sum of products is rescaled once after the sum; ``lazy=False`` rescales
  after every multiplication (ct x ct and ct x pt).
* ``manage(prog, scheme)`` runs all of these in order and checks the result.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from eqsat.extract.ilp import _Milp
from eqsat.ir import MGMT_OPS, Builder, Program

# ops whose secret operands must be degree 2 (key switching or lowering through masks)
NEEDS_LINEAR = frozenset({"rotate", "extract", "insert", "from_elements", "splat", "bootstrap", "decode"})


class PlacementError(RuntimeError):
    """No placement fits (e.g. the program needs more levels than the chain has)."""


def strip_mgmt(prog: Program, keep: frozenset[str] = frozenset()) -> Program:
    """The program without management ops (identities on values), except ``keep``."""
    b = Builder(prog.name, style=prog.style)
    b.meta.update(prog.meta)
    remap: dict[int, int] = {}
    for name, ty in prog.args:
        b.arg(name, ty)
    for i in prog.live():
        n = prog.nodes[i]
        if n.op in MGMT_OPS and n.op not in keep:
            remap[i] = remap[n.args[0]]
        elif n.op == "input":
            remap[i] = b._arg_ids[str(n.attrs[0])]
        else:
            remap[i] = b.add_node(n.op, tuple(remap[a] for a in n.args), n.attrs, n.type)
    return b.finish([remap[r] for r in prog.results])


def _ct_mul(prog: Program, i: int) -> bool:
    n = prog.nodes[i]
    return n.op == "mul" and all(prog.nodes[a].type.secret for a in n.args)


def count(prog: Program, op: str) -> int:
    return sum(1 for i in prog.live() if prog.nodes[i].op == op)


# -- relinearization --------------------------------------------------------------
def relinearize_points(prog: Program, *, time_limit: float = 10.0) -> set[int]:
    """The nodes after which to relinearize (an optimal set, see the module docstring)."""
    if not any(_ct_mul(prog, i) for i in prog.live()):
        return set()  # no degree-3 value anywhere: nothing to place (and no ILP to build)
    m = _Milp()
    d: dict[int, int] = {}
    e: dict[int, int] = {}
    r: dict[int, int] = {}
    live = [i for i in prog.live() if prog.nodes[i].type.secret]
    for i in live:
        cm = _ct_mul(prog, i)
        fresh = prog.nodes[i].op in ("input", "encode")
        d[i] = m.var(1.0 if cm else 0.0, 0.0 if fresh else 1.0, 0.0, True)
        e[i] = m.var(0.0, 1.0, 0.0, True)
        r[i] = m.var(0.0, 1.0, 1.0, True)
        m.row({e[i]: 1.0, d[i]: -1.0, r[i]: 1.0}, 0.0, float("inf"))
        m.row({r[i]: 1.0, d[i]: -1.0}, float("-inf"), 0.0)
    for i in live:
        n = prog.nodes[i]
        sargs = [a for a in set(n.args) if a in d]
        if _ct_mul(prog, i) or n.op in NEEDS_LINEAR:
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
    if x is None:
        raise PlacementError(f"relinearization ILP failed ({status})")
    return {i for i in live if x[r[i]] > 0.5}


def insert_after(prog: Program, after: set[int], op: str, drop: frozenset[int] = frozenset()) -> Program:
    """``prog`` with the unary ``op`` right after every node in ``after`` (all uses rewired);
    the unary value-identities in ``drop`` (management ops) are removed."""
    b = Builder(prog.name, style=prog.style)
    b.meta.update(prog.meta)
    for name, ty in prog.args:
        b.arg(name, ty)
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


# -- levels --------------------------------------------------------------------------
def level_cost(prog: Program, i: int, scheme: str) -> int:
    """Levels node ``i`` consumes: a ct x ct mul (BGV) or any secret mul (CKKS, rescaled)."""
    n = prog.nodes[i]
    if scheme == "bgv":
        return 1 if _ct_mul(prog, i) else 0
    return 1 if n.op == "mul" and n.type.secret else 0


def level_depths(prog: Program, scheme: str) -> dict[int, int]:
    """Levels used on the longest path to every live secret node since a fresh value
    (input, encode, reduce_noise, bootstrap)."""
    depth: dict[int, int] = {}
    for i in prog.live():
        n = prog.nodes[i]
        if not n.type.secret:
            continue
        if n.op in ("input", "encode", "reduce_noise", "bootstrap"):
            depth[i] = 0
            continue
        depth[i] = max((depth[a] for a in n.args if a in depth), default=0) + level_cost(prog, i, scheme)
    return depth


def bootstrap_points(
    prog: Program, scheme: str, max_level: int, *, allow: bool = True, time_limit: float = 10.0
) -> set[int]:
    """Fewest nodes after which to bootstrap so that no path uses more than ``max_level`` levels.

    Empty when the program fits.  Otherwise an ILP (HiGHS, the noisy article's placement
    model with levels for noise: ``eqsat.extract.ilp.solve`` with bounds (0, max_level),
    +1 per level-consuming multiplication) chooses the bootstraps; a bootstrap resets a
    value to the top of the chain.  Raises ``PlacementError`` naming the first node over
    the budget when bootstrapping is not allowed, or when no placement fits at all.
    """
    from eqsat.extract.ilp import Cand, Problem, solve

    depth = level_depths(prog, scheme)
    over = [i for i in prog.live() if depth.get(i, 0) > max_level]
    if not over:
        return set()
    first = over[0]
    where = f"value %{first} ({prog.nodes[first].op}) needs {depth[first]} levels"
    if not allow:
        raise PlacementError(
            f"{where}, more than the {max_level} levels of the modulus chain "
            "(no placement fits; allow bootstrapping or a longer chain)")
    secret = [False] * len(prog.nodes)
    cands: list[Cand] = []
    for i in prog.live():
        n = prog.nodes[i]
        secret[i] = n.type.secret
        if not n.type.secret:
            kind, inc = "plain", 0.0
        elif n.op in ("input", "encode", "reduce_noise", "bootstrap"):
            kind, inc = "fresh", 0.0
        else:
            kind, inc = "max", float(level_cost(prog, i, scheme))
        cands.append(Cand(i, 0.0, n.args, kind, inc, i))
    pb = Problem(len(prog.nodes), secret, cands, list(prog.results))
    sol = solve(pb, with_noise=True, reduce_cost=1.0, time_limit=time_limit,
                bounds=(0.0, float(max_level)), warm=_greedy_boot_warm(pb))
    if not sol.pick:
        raise PlacementError(f"{where}; no bootstrap placement fits {max_level} levels ({sol.status})")
    return set(sol.reduce)


def _greedy_boot_warm(pb: object) -> dict[int, int]:
    """The identity choice (one candidate per node) as the ILP's warm start."""
    return {cd.cls: j for j, cd in enumerate(pb.cands)}  # type: ignore[attr-defined]


class _Leveler:
    """Rebuilds a program, tracking each secret value's level and inserting level ops.

    ``bootstrap`` nodes already in the program reset a value to ``max_level``.  CKKS:
    ``rescale_after`` (source node ids) says where to rescale; ``None`` rescales after
    every secret multiplication (eager).
    """

    def __init__(self, prog: Program, max_level: int, rescale_after: set[int] | None = None) -> None:
        self.src = prog
        self.b = Builder(prog.name, style=prog.style)
        self.b.meta.update(prog.meta)
        for name, ty in prog.args:
            self.b.arg(name, ty)
        self.max_level = max_level
        self.rescale_after = rescale_after
        self.level: dict[int, int] = {}
        self._down: dict[tuple[int, int], int] = {}

    def down(self, v: int, target: int) -> int:
        """``v`` switched down to ``target`` (chains shared between uses)."""
        cur = v
        while self.level[cur] > target:
            key = (v, self.level[cur] - 1)
            nxt = self._down.get(key)
            if nxt is None:
                nxt = self.b.unary("modswitch", cur)
                self.level[nxt] = self.level[cur] - 1
                self._down[key] = nxt
            cur = nxt
        return cur

    def match(self, i: int, args: list[int], drop: int) -> tuple[list[int], int]:
        """Secret operands brought to a common level, then ``drop`` more levels down."""
        sec = [a for a in args if self.b.type_of(a).secret]
        if not sec:
            return args, -1
        target = min(self.level[a] for a in sec) - drop
        if target < 0:
            raise PlacementError(
                f"value %{i} ({self.src.nodes[i].op}) needs more than the {self.max_level} levels "
                "of the chain")
        return [self.down(a, target) if self.b.type_of(a).secret else a for a in args], target

    def run(self, scheme: str) -> Program:
        src, b = self.src, self.b
        remap: dict[int, int] = {}
        for i in src.live():
            n = src.nodes[i]
            if n.op == "input":
                out = b._arg_ids[str(n.attrs[0])]
                if n.type.secret:
                    self.level[out] = self.max_level
                remap[i] = out
                continue
            args = [remap[a] for a in n.args]
            if n.op == "bootstrap":
                out = b.unary("bootstrap", args[0])
                self.level[out] = self.max_level
                remap[i] = out
                continue
            drop = 1 if _ct_mul(src, i) and scheme == "bgv" else 0
            args, lvl = self.match(i, args, drop)
            out = b.add_node(n.op, tuple(args), n.attrs, n.type)
            if n.type.secret:
                self.level[out] = lvl if lvl >= 0 else self.max_level
                lazy = self.rescale_after is not None and i in self.rescale_after
                if scheme == "ckks" and (lazy or (self.rescale_after is None and n.op == "mul")):
                    if self.level[out] == 0:
                        raise PlacementError(f"value %{i} ({n.op}) cannot be rescaled at level 0")
                    resc = b.unary("rescale", out)
                    self.level[resc] = self.level[out] - 1
                    out = resc
            remap[i] = out
        return b.finish([remap[r] for r in src.results])


def levels_needed(prog: Program, scheme: str) -> int:
    """Levels the placement uses: the ct x ct depth (BGV) or the depth of all muls (CKKS),
    over every secret value (also those only decoded, never returned)."""
    return max(level_depths(strip_mgmt(prog), scheme).values(), default=0)


def _with_bootstraps(base: Program, scheme: str, lv: int, bootstrap: bool, time_limit: float) -> Program:
    """``base`` (no management ops) with the ILP's bootstraps inserted (none if it fits)."""
    boot = bootstrap_points(base, scheme, lv, allow=bootstrap, time_limit=time_limit)
    return insert_after(base, boot, "bootstrap") if boot else base


def place_modswitch(prog: Program, max_level: int | None = None, *, bootstrap: bool = False,
                    fixed_bootstraps: bool = False, time_limit: float = 10.0) -> Program:
    """BGV: match levels by modswitch, and modswitch both operands before each ct x ct mul.

    When the program needs more than ``max_level`` levels, ``bootstrap=True`` inserts the
    fewest bootstraps (ILP); otherwise ``PlacementError``.  ``fixed_bootstraps=True`` keeps
    the program's own bootstraps and places none.
    """
    keep = frozenset({"relinearize", "bootstrap"} if fixed_bootstraps else {"relinearize"})
    base = strip_mgmt(prog, keep=keep)
    lv = levels_needed(base, "bgv") if max_level is None else max_level
    booted = base if fixed_bootstraps else _with_bootstraps(base, "bgv", lv, bootstrap, time_limit)
    return _Leveler(booted, lv).run("bgv")


# -- CKKS rescale: eager or lazy ------------------------------------------------------------
# ops whose secret operands must be at scale Delta (rescaled)
NEEDS_RESCALED = frozenset({"mul", "bootstrap", "decode"})


def rescale_points(prog: Program, *, time_limit: float = 10.0) -> set[int]:
    """Lazy rescaling: the fewest nodes after which to rescale (ILP, HiGHS).

    A secret product sits at scale Delta^2 until rescaled.  Additions (and every other
    op with several secret operands) need equal scales; multiplications, bootstraps and
    results need scale Delta.  Variables per secret value: ``d`` (1 = scale Delta^2
    before rescaling), ``r`` (rescale after it), ``e = d - r`` (after); minimise
    ``sum r``.  A sum of products is therefore rescaled once, after the sum, where the
    eager policy rescales every product.
    """
    m = _Milp()
    d: dict[int, int] = {}
    e: dict[int, int] = {}
    r: dict[int, int] = {}
    live = [i for i in prog.live() if prog.nodes[i].type.secret]
    inf = float("inf")
    for i in live:
        n = prog.nodes[i]
        fresh = n.op in ("input", "encode", "bootstrap", "reduce_noise")
        is_mul = n.op == "mul"
        d[i] = m.var(1.0 if is_mul else 0.0, 0.0 if fresh else 1.0, 0.0, True)
        e[i] = m.var(0.0, 1.0, 0.0, True)
        r[i] = m.var(0.0, 1.0, 1.0, True)
        m.row({e[i]: 1.0, d[i]: -1.0, r[i]: 1.0}, 0.0, 0.0)
    for i in live:
        n = prog.nodes[i]
        sargs = sorted({a for a in n.args if a in d})
        if n.op in NEEDS_RESCALED:
            for a in sargs:
                m.row({e[a]: 1.0}, -inf, 0.0)
            continue
        if n.op in ("input", "encode", "reduce_noise"):
            continue
        for a, c in itertools.pairwise(sargs):
            m.row({e[a]: 1.0, e[c]: -1.0}, 0.0, 0.0)
        if sargs:
            m.row({d[i]: 1.0, e[sargs[0]]: -1.0}, 0.0, 0.0)
    for res in prog.results:
        if res in e:
            m.row({e[res]: 1.0}, -inf, 0.0)
    status, x, _, _ = m.solve(time_limit, None)
    if x is None:
        raise PlacementError(f"rescale ILP failed ({status})")
    return {i for i in live if x[r[i]] > 0.5}


def place_rescale(prog: Program, max_level: int | None = None, *, bootstrap: bool = False, lazy: bool = True,
                  fixed_bootstraps: bool = False, time_limit: float = 10.0) -> Program:
    """CKKS: rescale products (lazily by default, see ``rescale_points``; ``lazy=False``
    after every multiplication), match levels by modswitch before multi-operand ops;
    bootstraps as in ``place_modswitch``."""
    keep = frozenset({"relinearize", "bootstrap"} if fixed_bootstraps else {"relinearize"})
    base = strip_mgmt(prog, keep=keep)
    lv = levels_needed(base, "ckks") if max_level is None else max_level
    booted = base if fixed_bootstraps else _with_bootstraps(base, "ckks", lv, bootstrap, time_limit)
    points = rescale_points(booted, time_limit=time_limit) if lazy else None
    return _Leveler(booted, lv, points).run("ckks")


# -- checker ---------------------------------------------------------------------------
@dataclass
class MgmtReport:
    legal: bool
    max_level: int
    min_level: int
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"model": "levels", "levels_used": self.max_level - self.min_level, "budget": self.max_level,
                "legal": self.legal, "errors": self.errors[:5]}


def check(prog: Program, scheme: str, max_level: int) -> MgmtReport:
    """Validate degrees, levels and (CKKS) scales of an explicitly managed program."""
    lvl: dict[int, int] = {}
    deg: dict[int, int] = {}
    scl: dict[int, int] = {}  # CKKS: the scale's power of Delta
    errors: list[str] = []
    for i in prog.live():
        n = prog.nodes[i]
        if not n.type.secret:
            continue
        sec = [a for a in n.args if a in lvl]
        where = f"%{i} ({n.op})"
        if n.op in ("input", "encode"):
            lvl[i], deg[i], scl[i] = max_level, 2, 1
            continue
        if n.op in NEEDS_LINEAR or (n.op == "mul" and len(sec) == 2):
            for a in sec:
                if deg[a] != 2:
                    errors.append(f"{where}: operand %{a} is degree {deg[a]}, needs relinearization")
        if len({lvl[a] for a in sec}) > 1:
            errors.append(f"{where}: operands at levels {sorted({lvl[a] for a in sec})}")
        if scheme == "ckks" and len({scl[a] for a in sec}) > 1:
            errors.append(f"{where}: operands at different scales")
        level = min(lvl[a] for a in sec)
        degree = max(deg[a] for a in sec)
        scale = max(scl[a] for a in sec)
        if n.op == "mul":
            if scheme == "ckks" and scale != 1:
                errors.append(f"{where}: multiplies a ciphertext that was not rescaled")
            scale += 1 if len(sec) == 1 else scl[sec[1]]
            if len(sec) == 2:
                degree = 3
        elif n.op == "relinearize":
            if degree != 3:
                errors.append(f"{where}: relinearizes a degree-2 ciphertext")
            degree = 2
        elif n.op == "modswitch":
            level -= 1
        elif n.op == "rescale":
            level -= 1
            if scheme == "ckks":
                if scale < 2:
                    errors.append(f"{where}: rescales a ciphertext at scale Delta")
                scale -= 1
        elif n.op == "bootstrap":
            level, degree, scale = max_level, 2, 1
        if level < 0:
            errors.append(f"{where}: level {level} below 0")
        lvl[i], deg[i], scl[i] = level, degree, scale
    for res in prog.results:
        if res in deg and deg[res] != 2:
            errors.append(f"result %{res} is degree {deg[res]}, needs relinearization")
        if scheme == "ckks" and res in scl and scl[res] != 1:
            errors.append(f"result %{res} is not rescaled")
    low = min(lvl.values(), default=max_level)
    return MgmtReport(not errors, max_level, low, errors)


def manage(prog: Program, scheme: str, max_level: int | None = None, *, bootstrap: bool = False,
           lazy_rescale: bool = True, time_limit: float = 10.0) -> Program:
    """Bootstraps (ILP, only if allowed and needed), levels (modswitch or lazy/eager
    rescale), then optimal relinearization; checked before returning."""
    if scheme not in ("bgv", "ckks"):
        raise ValueError(f"manage() is for bgv/ckks, not '{scheme}'")
    base = strip_mgmt(prog)
    lv = levels_needed(base, scheme) if max_level is None else max_level
    if scheme == "bgv":
        leveled = place_modswitch(base, lv, bootstrap=bootstrap, time_limit=time_limit)
    else:
        leveled = place_rescale(base, lv, bootstrap=bootstrap, lazy=lazy_rescale, time_limit=time_limit)
    out = relinearize_first(insert_after(leveled, relinearize_points(leveled, time_limit=time_limit), "relinearize"))
    rep = check(out, scheme, lv)
    if not rep.legal:
        raise PlacementError(f"management placement failed its own check: {rep.errors[0]}")
    return out
