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

from eqsat.ir import Builder, Program
from eqsat.mgmt.edit import PlacementError, insert_after, is_ct_mul, strip_mgmt
from eqsat.milp import Milp


# -- levels --------------------------------------------------------------------------
def level_cost(prog: Program, i: int, scheme: str) -> int:
    """Levels node ``i`` consumes: a ct x ct mul (BGV) or any secret mul (CKKS, rescaled)."""
    n = prog.nodes[i]
    if scheme == "bgv":
        return 1 if is_ct_mul(prog, i) else 0
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
            drop = 1 if is_ct_mul(src, i) and scheme == "bgv" else 0
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
    # bootstraps have no ILP-free fallback: their ILP gets a second even past the deadline
    boot = bootstrap_points(base, scheme, lv, allow=bootstrap, time_limit=max(time_limit, 1.0))
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
    m = Milp()
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
    # no time left for the lazy ILP (``time_limit <= 0``): rescale after every product
    points = rescale_points(booted, time_limit=time_limit) if lazy and time_limit > 0 else None
    return _Leveler(booted, lv, points).run("ckks")


