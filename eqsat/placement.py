"""BGV/CKKS management placement: relinearize (exact ILP), modswitch, rescale; a checker.

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
* ``place_modswitch`` (BGV) and ``place_rescale`` (CKKS): levels start at ``max_level``;
  operands of a ct x ct op are brought to the same level by modswitch (level-down);
  BGV switches both operands of every ct x ct mul down one more level before it
  (HEIR's before-mul policy), CKKS rescales after every mul (ct x ct and ct x pt).
  When a multiplication would need a level below 0 the program is infeasible
  (``PlacementError``), or, with ``bootstrap=True``, its operands are bootstrapped.
* ``manage(prog, scheme)`` runs all of these in order and checks the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .extract_ilp import _Milp
from .ir import MGMT_OPS, Builder, Program, multiplicative_depth

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


def insert_after(prog: Program, after: set[int], op: str) -> Program:
    """``prog`` with the unary ``op`` right after every node in ``after`` (all uses rewired)."""
    b = Builder(prog.name, style=prog.style)
    b.meta.update(prog.meta)
    for name, ty in prog.args:
        b.arg(name, ty)
    remap: dict[int, int] = {}
    for i in prog.live():
        n = prog.nodes[i]
        out = b._arg_ids[str(n.attrs[0])] if n.op == "input" else b.add_node(
            n.op, tuple(remap[a] for a in n.args), n.attrs, n.type)
        if i in after:
            out = b.unary(op, out)
        remap[i] = out
    return b.finish([remap[r] for r in prog.results])


def place_relinearize(prog: Program, *, time_limit: float = 10.0) -> Program:
    """Fewest relinearizations making every degree-3 use legal (existing ones are replaced)."""
    base = strip_mgmt(prog, keep=MGMT_OPS - {"relinearize"})
    return insert_after(base, relinearize_points(base, time_limit=time_limit), "relinearize")


# -- levels --------------------------------------------------------------------------
class _Leveler:
    """Rebuilds a program, tracking each secret value's level and inserting level ops."""

    def __init__(self, prog: Program, max_level: int, bootstrap: bool) -> None:
        self.src = prog
        self.b = Builder(prog.name, style=prog.style)
        self.b.meta.update(prog.meta)
        for name, ty in prog.args:
            self.b.arg(name, ty)
        self.max_level = max_level
        self.bootstrap = bootstrap
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

    def refresh(self, v: int) -> int:
        out = self.b.unary("bootstrap", v)
        self.level[out] = self.max_level
        return out

    def match(self, args: list[int], drop: int) -> tuple[list[int], int]:
        """Secret operands brought to a common level, then ``drop`` more levels down."""
        sec = [a for a in args if self.b.type_of(a).secret]
        if not sec:
            return args, -1
        target = min(self.level[a] for a in sec) - drop
        if target < 0:
            if not self.bootstrap:
                raise PlacementError(
                    f"the program needs more than the {self.max_level} levels of the modulus chain "
                    "(no placement fits; allow bootstrapping or a longer chain)")
            args = [self.refresh(a) if self.b.type_of(a).secret else a for a in args]
            target = self.max_level - drop
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
            ct_mul = _ct_mul(src, i)
            drop = 1 if ct_mul and scheme == "bgv" else 0
            args, lvl = self.match(args, drop)
            out = b.add_node(n.op, tuple(args), n.attrs, n.type)
            if n.type.secret:
                self.level[out] = lvl if lvl >= 0 else self.max_level
                if scheme == "ckks" and n.op == "mul":
                    if self.level[out] == 0:
                        if not self.bootstrap:
                            raise PlacementError(f"the program needs more than {self.max_level} levels")
                        out = self.refresh(out)
                    resc = b.unary("rescale", out)
                    self.level[resc] = self.level[out] - 1
                    out = resc
            remap[i] = out
        return b.finish([remap[r] for r in src.results])


def levels_needed(prog: Program, scheme: str) -> int:
    """Levels the placement uses: the ct x ct depth (BGV) or the depth of all muls (CKKS)."""
    if scheme == "bgv":
        return multiplicative_depth(prog)
    depth: dict[int, int] = {}
    for i in prog.live():
        n = prog.nodes[i]
        dd = max((depth[a] for a in n.args), default=0)
        if n.op == "mul" and n.type.secret:
            dd += 1
        depth[i] = dd
    return max((depth[r] for r in prog.results), default=0)


def place_modswitch(prog: Program, max_level: int | None = None, *, bootstrap: bool = False) -> Program:
    """BGV: match levels by modswitch, and modswitch both operands before each ct x ct mul."""
    base = strip_mgmt(prog, keep=frozenset({"relinearize"}))
    lv = levels_needed(base, "bgv") if max_level is None else max_level
    return _Leveler(base, lv, bootstrap).run("bgv")


def place_rescale(prog: Program, max_level: int | None = None, *, bootstrap: bool = False) -> Program:
    """CKKS: rescale after each mul, match levels (level-down by modswitch) before add/mul."""
    base = strip_mgmt(prog, keep=frozenset({"relinearize"}))
    lv = levels_needed(base, "ckks") if max_level is None else max_level
    return _Leveler(base, lv, bootstrap).run("ckks")


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
           time_limit: float = 10.0) -> Program:
    """Levels (modswitch or rescale), then optimal relinearization; checked before returning."""
    if scheme not in ("bgv", "ckks"):
        raise ValueError(f"manage() is for bgv/ckks, not '{scheme}'")
    base = strip_mgmt(prog)
    lv = levels_needed(base, scheme) if max_level is None else max_level
    leveled = (place_modswitch if scheme == "bgv" else place_rescale)(base, lv, bootstrap=bootstrap)
    out = insert_after(leveled, relinearize_points(leveled, time_limit=time_limit), "relinearize")
    rep = check(out, scheme, lv)
    if not rep.legal:
        raise PlacementError(f"management placement failed its own check: {rep.errors[0]}")
    return out
