"""The e-graph driver: load a program, saturate under limits, serialize.

In: an IR ``Program``, a schedule (a list of named rulesets from
``eqsat.rules.REGISTRY``) and ``Limits``.  Out: a ``Session`` holding the egglog
``EGraph``, its result markers (``Root(k)``), and a ``RunReport``
with a typed ``StopReason``.

Loading writes the program as rows of node tables -- one TSV file per constructor, a
node id per row, children by id -- that egglog reads with ``input``; the rules of
ruleset ``ld`` build the terms level by level (``ld_ref``: node id -> term), apply the
loader's unions and mark results, and ``ld-clean`` empties the tables (``ld_name`` keeps
each program value's class).  Measured on box blur 64x64 (82k nodes): one ``let``
command per value took 141 s (egglog 13.2 makes every global ``let`` a table, and
each command re-parses spans holding its chunk's text); the tables load in well under
a second.  Beside the literal program it unions canonical forms:

* a maximal tree of additions/subtractions (or of multiplications) whose inner nodes
  have one use becomes a balanced tree over its leaves sorted by (base, slot), so like
  terms are neighbours and merge in O(log n) rule iterations, with no raw
  associativity or commutativity;
* an insertion chain (``insert``/``from_elements``) becomes a balanced sum of
  ``Place`` terms (one per written slot) plus the surviving slots of its base as a
  ``Gather``.

Management ops in the input (``reduce_noise``, ``relinearize``...) are dropped on
load: they are identities on values, and extraction places them anew.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from egglog import EGraph, Ruleset, back_off, run, unstable_combine_rulesets

from eqsat import term
from eqsat.algebra import rotpoly
from eqsat.algebra.slot_keys import dense_key, set_key
from eqsat.ir import MGMT_OPS, Program


class StopReason(StrEnum):
    SATURATED = "saturated"
    ITERATION_LIMIT = "iteration_limit"
    NODE_LIMIT = "node_limit"
    TIME_LIMIT = "time_limit"


@dataclass(frozen=True)
class Limits:
    """Bounds on saturation.  Each is checked after every iteration."""

    iterations: int = 40
    nodes: int = 400_000
    time_s: float = 20.0
    match_limit: int = 0  # > 0: egglog's back-off scheduler with this many matches per rule per iteration


@dataclass
class RunReport:
    stop_reason: StopReason
    iterations: int
    nodes: int
    time_s: float
    rule_matches: dict[str, int] = field(default_factory=dict)


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# Columns of each constructor in the load tables: T = a node id (a T value), I = i64,
# F = f64, S = String.
LOAD_COLUMNS: dict[str, str] = {
    "In": "SI", "Num": "II", "NumF": "FI", "Dense": "SI", "Mask": "SI",
    "Add": "TT", "Sub": "TT", "Mul": "TT", "Neg": "T", "Encode": "T", "Decode": "T",
    "Rot": "TI", "Ext": "TI", "Ins": "TTI", "Place": "TII", "Splat": "TI",
    "LinRot": "TSI", "Gather": "TISI",
    "AddI": "TT", "SubI": "TT", "MulI": "TT", "NegI": "T", "ExtI": "TI",
}
_SORT = {"T": "i64", "I": "i64", "F": "f64", "S": "String"}
Arg = int | float | str


def _declarations() -> str:
    """egglog text: the node table ``ld_ref``, one row table per constructor, the rules that
    build terms from rows (ruleset ``ld``) and the rules that empty the tables (``ld-clean``)."""
    out = ["(function ld_ref (i64) T :merge old)", "(function ld_name (i64) T :merge old)",
           "(ruleset ld)", "(ruleset ld-clean)", "(relation ld_alias (i64 i64))",
           "(relation ld_union (i64 i64))", "(relation ld_root (i64 i64))", "(relation ld_src (i64))"]
    for op, cols in LOAD_COLUMNS.items():
        names = [f"a{j}" for j in range(len(cols))]
        out.append(f"(relation ld_{op} (i64 {' '.join(_SORT[c] for c in cols)}))")
        refs = " ".join(f"(= x{j} (ld_ref a{j}))" for j, c in enumerate(cols) if c == "T")
        args = " ".join(f"x{j}" if c == "T" else f"a{j}" for j, c in enumerate(cols))
        row = f"(ld_{op} id {' '.join(names)})"
        out.append(f"(rule ({row} {refs}) ((set (ld_ref id) ({op} {args}))) :ruleset ld :name \"ld-{op}\")")
        out.append(f"(rule ({row}) ((delete {row})) :ruleset ld-clean :name \"ld-clean-{op}\")")
    out += [
        '(rule ((ld_union a b) (= x (ld_ref a)) (= y (ld_ref b))) ((union x y)) :ruleset ld :name "ld-union")',
        '(rule ((ld_root k a) (= x (ld_ref a))) ((union (Root k) x)) :ruleset ld :name "ld-root")',
        '(rule ((ld_src a) (= x (ld_ref a))) ((src_rot x)) :ruleset ld :name "ld-src")',
        '(rule ((ld_alias i a) (= x (ld_ref a))) ((set (ld_name i) x)) :ruleset ld :name "ld-alias")',
        '(rule ((ld_alias i a)) ((delete (ld_alias i a))) :ruleset ld-clean :name "ld-clean-alias")',
        '(rule ((ld_union a b)) ((delete (ld_union a b))) :ruleset ld-clean :name "ld-clean-union")',
        '(rule ((ld_root k a)) ((delete (ld_root k a))) :ruleset ld-clean :name "ld-clean-root")',
        '(rule ((ld_src a)) ((delete (ld_src a))) :ruleset ld-clean :name "ld-clean-src")',
        # ``ld_name`` keeps each program value's class; the node table is forgotten
        '(rule ((= x (ld_ref a))) ((delete (ld_ref a))) :ruleset ld-clean :name "ld-clean-ref")',
    ]
    return "\n".join(out)


def _field(v: Arg, col: str) -> str:
    if col == "F":
        return repr(float(v))
    text = str(v)
    if "\t" in text or "\n" in text:
        raise ValueError(f"cannot load {text!r}: tabs and newlines are not allowed in names and keys")
    return text


class Loader:
    """Translates a Program into rows of node tables (``LOAD_COLUMNS``): node ``i`` of the
    program is row id ``i``; the canonical forms get fresh ids above the program's."""

    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.rows: dict[str, list[tuple[Arg, ...]]] = {op: [] for op in LOAD_COLUMNS}
        self.unions: list[tuple[int, int]] = []
        self.root_rows: list[tuple[int, int]] = []
        self.src_rots: list[int] = []
        self.name: dict[int, int] = {}  # IR node id -> node id of its term
        self.uses = prog.uses()
        self.covered: set[int] = set()
        self.user_op: dict[int, str] = {}
        self.insert_base: dict[int, bool] = {}
        for j in prog.live():
            nj = prog.nodes[j]
            for a in nj.args:
                self.user_op[a] = nj.op
            if nj.op == "insert":
                self.insert_base[nj.args[1]] = True
        self._next = len(prog.nodes)  # the loader's own nodes are numbered after the program's

    def node(self, op: str, *args: Arg, at: int | None = None) -> int:
        """A row for ``op(args)`` (T columns are node ids); its node id (``at``, or fresh)."""
        if at is None:
            at = self._next
            self._next += 1
        self.rows[op].append((at, *args))
        return at

    def write(self, directory: Path) -> list[str]:
        """Write the tables as TSV files under ``directory``; the egglog commands that load them."""
        cmds = []
        tables: dict[str, tuple[str, list[tuple[Arg, ...]]]] = {
            f"ld_{op}": ("T" + cols, rows) for op, cols in LOAD_COLUMNS.items() for rows in [self.rows[op]]
        }
        tables["ld_union"] = ("TT", list(self.unions))
        tables["ld_root"] = ("IT", list(self.root_rows))
        tables["ld_src"] = ("T", [(a,) for a in self.src_rots])
        tables["ld_alias"] = ("IT", sorted(self.name.items()))
        for table, (cols, rows) in tables.items():
            if not rows:
                continue
            path = directory / f"{table}.tsv"
            with open(path, "w") as f:
                f.write("".join("\t".join(_field(v, c) for v, c in zip(row, cols, strict=True)) + "\n" for row in rows))
            cmds.append(f"(input {table} {_quote(str(path))})")
        return cmds

    def load(self) -> list[int]:
        """Emit every live node; return the result numbers (``Root`` markers).

        A single-use sum or product tree of three or more leaves gets its canonical
        balanced form beside the source's own tree. Above ``BALANCED_ONLY_LEAVES`` leaves
        only the balanced form is loaded (same op count; the source's shape can be less
        noisy when its leaves' noise differs, which matters for small trees, not for
        reductions): loading a 4096-term chain beside its balanced tree took 4.7 s, and
        the 4096-deep chain cost the slots analysis 4096 iterations; without it, 1.0 s.
        """
        self.covered = self._covered_interiors()
        self._plan_summaries()
        for i in self.prog.live():
            if i not in self.covered:
                self._emit(i)
        roots = []
        for k, r in enumerate(self.prog.results):
            self.root_rows.append((k, self.name[r]))
            roots.append(k)
        return roots

    # -- per node -------------------------------------------------------------
    def _emit(self, i: int) -> None:
        n = self.prog.nodes[i]
        ty = n.type
        op = n.op
        if op in ("add", "sub", "mul") and any(x in self.covered for x in n.args):
            self.name[i] = self._tree_root(i)  # only the balanced form (see ``load``)
            return
        if i in self.summarized_chains or (op == "insert" and n.args[1] in self.covered):
            chain = self._chain(i)  # only the Place sum (see ``_covered_interiors``)
            assert chain is not None  # an insert writes a slot
            self.name[i] = chain
            return
        a = [self.name[x] for x in n.args]
        if op in MGMT_OPS:
            self.name[i] = a[0]
            return
        slots = ty.slots
        if op == "input":
            self.node("In", str(n.attrs[0]), slots, at=i)
        elif op == "const":
            c = n.attrs[0]
            if isinstance(c, tuple):
                self.node("Dense", dense_key(c), slots, at=i)
            elif isinstance(c, float):
                self.node("NumF", c, slots, at=i)
            else:
                self.node("Num", int(c), slots, at=i)  # type: ignore[call-overload]
        elif op == "empty":
            self._zero(ty.is_float, slots, at=i)
        elif op in ("add", "sub", "mul"):
            self.node(op.capitalize(), a[0], a[1], at=i)
        elif op in ("neg", "encode", "decode"):
            self.node(op.capitalize(), a[0], at=i)
        elif op == "rotate":
            self.node("Rot", a[0], int(n.attrs[0]), at=i)  # type: ignore[call-overload]
            self.src_rots.append(i)
        elif op == "extract":
            self.node("Ext", a[0], int(n.attrs[0]), at=i)  # type: ignore[call-overload]
        elif op == "insert":
            self.node("Ins", a[0], a[1], int(n.attrs[0]), at=i)  # type: ignore[call-overload]
        elif op == "from_elements":
            acc = self._zero(ty.is_float, slots)
            for j, x in enumerate(a):
                acc = self.node("Ins", x, acc, j, at=i if j == len(a) - 1 else None)
        elif op == "splat":
            self.node("Splat", a[0], slots, at=i)
        else:  # pragma: no cover - ir.Builder rejects unknown ops
            raise ValueError(f"cannot load op {op}")
        self.name[i] = i
        self._canonical(i)

    def _zero(self, is_float: bool, slots: int, at: int | None = None) -> int:
        return self.node("NumF", 0.0, slots, at=at) if is_float else self.node("Num", 0, slots, at=at)

    # -- canonical forms --------------------------------------------------------
    def _covered_interiors(self) -> set[int]:
        """Interior nodes of the trees whose roots ``_canonical`` rebuilds balanced."""
        covered: set[int] = set()
        for i in self.prog.live():
            n = self.prog.nodes[i]
            if n.op in ("add", "sub") and not self._inner(i, ("add", "sub", "neg")):
                pos: list[int] = []
                neg: list[int] = []
                interior: list[int] = []
                self._sum_leaves(i, 1, pos, neg, top=True, interior=interior)
                if len(pos) + len(neg) > BALANCED_ONLY_LEAVES:
                    covered.update(interior)
            elif n.op == "mul" and not self._inner(i, ("mul",)):
                leaves: list[int] = []
                interior = []
                self._prod_leaves(i, leaves, top=True, interior=interior)
                if len(leaves) > BALANCED_ONLY_LEAVES:
                    covered.update(interior)
            elif n.op == "insert" and not self._inner_insert(i):
                # a long insertion chain loads only as its Place sum: the nested chain was
                # as deep as it is long (the slots analysis needed one iteration per insert)
                inner: list[int] = []
                cur = n.args[1]
                while self.prog.nodes[cur].op == "insert" and self._inner_insert(cur):
                    inner.append(cur)
                    cur = self.prog.nodes[cur].args[1]
                if len(inner) + 1 > BALANCED_ONLY_LEAVES:
                    covered.update(inner)
        return covered

    def _single_use(self, i: int) -> bool:
        return self.uses.get(i, 0) == 1 and i not in self.prog.results

    def _inner_insert(self, i: int) -> bool:
        """True when ``i`` is only used as the vector operand of another insert (not a chain top)."""
        return self._single_use(i) and self.insert_base.get(i, False)

    def _inner(self, i: int, ops: tuple[str, ...]) -> bool:
        """True when ``i`` is an inner node of a larger tree of ``ops`` (its root is canonicalized)."""
        return self._single_use(i) and self.user_op.get(i) in ops

    def _canonical(self, i: int) -> None:
        """Unions a tree root with its balanced form, an insertion chain's top with its
        Place sum (trees above ``BALANCED_ONLY_LEAVES`` were emitted balanced already)."""
        n = self.prog.nodes[i]
        if n.op in ("add", "sub") and not self._inner(i, ("add", "sub", "neg")):
            pos: list[int] = []
            neg: list[int] = []
            self._sum_leaves(i, 1, pos, neg, top=True)
            if len(pos) + len(neg) >= 3:
                self._union(i, self._signed_tree(pos, neg))
        elif n.op == "mul" and not self._inner(i, ("mul",)):
            leaves: list[int] = []
            self._prod_leaves(i, leaves, top=True)
            if len(leaves) >= 3:
                self._union(i, self._balanced("Mul", self._sorted(leaves)))
        elif n.op == "from_elements" or (n.op == "insert" and not self._inner_insert(i)):
            form = self._chain(i)
            if form is not None:
                self._union(i, form)

    def _tree_root(self, i: int) -> int:
        """The balanced canonical tree of the sum or product rooted at ``i``, emitted; its name."""
        if self.prog.nodes[i].op == "mul":
            leaves: list[int] = []
            self._prod_leaves(i, leaves, top=True)
            return self._balanced("Mul", self._sorted(leaves))
        pos: list[int] = []
        neg: list[int] = []
        self._sum_leaves(i, 1, pos, neg, top=True)
        name = self._signed_tree(pos, neg, inert=i in self.summarized_sums)
        self._slot_sum_summary(name, pos, neg)
        return name

    def _slot_sum_summary(self, name: int, pos: list[int], neg: list[int]) -> None:
        """A large signed sum of slots of one vector also gets its summary
        ``Ext(LinRot(v, sum of +-rho^i), 0)`` -- the reduction as one polynomial, the
        container form of the sum -- so rotate-and-reduce starts from the whole reduction
        instead of climbing the balanced tree one ``lin-add`` per level (a 4096-slot sum:
        12 iterations earlier)."""
        src: int | None = None
        poly: dict[int, int] = {}
        for sign, leaves in ((1, pos), (-1, neg)):
            for leaf in leaves:
                n = self.prog.nodes[leaf]
                if n.op != "extract" or (src is not None and n.args[0] != src):
                    return
                src = n.args[0]
                k = int(n.attrs[0])  # type: ignore[call-overload]
                poly[k] = poly.get(k, 0) + sign
        if src is None:
            return
        slots = self.prog.nodes[src].type.slots
        p = rotpoly.normalize(poly, slots)
        if not p:
            return
        summary = self.node("LinRot", self.name[src], rotpoly.key(p, slots), slots)
        self.unions.append((name, self.node("Ext", summary, 0)))

    def _union(self, i: int, other: int) -> None:
        self.unions.append((self.name[i], other))

    def _sum_leaves(
        self, root: int, sign: int, pos: list[int], neg: list[int], top: bool = False,
        interior: list[int] | None = None,
    ) -> None:
        """Signed leaves of the maximal single-use add/sub/neg tree at ``root`` (iterative);
        its interior nodes (not the root) go to ``interior``."""
        stack = [(root, sign, top)]
        while stack:
            i, sg, is_top = stack.pop()
            n = self.prog.nodes[i]
            if n.op in ("add", "sub", "neg") and (is_top or self._single_use(i)):
                if interior is not None and not is_top:
                    interior.append(i)
                if n.op == "neg":
                    stack.append((n.args[0], -sg, False))
                    continue
                stack.append((n.args[1], sg if n.op == "add" else -sg, False))
                stack.append((n.args[0], sg, False))
                continue
            (pos if sg > 0 else neg).append(i)

    def _prod_leaves(self, root: int, out: list[int], top: bool = False, interior: list[int] | None = None) -> None:
        stack = [(root, top)]
        while stack:
            i, is_top = stack.pop()
            n = self.prog.nodes[i]
            if n.op == "mul" and (is_top or self._single_use(i)):
                if interior is not None and not is_top:
                    interior.append(i)
                stack.append((n.args[1], False))
                stack.append((n.args[0], False))
                continue
            out.append(i)

    def _sort_key(self, i: int) -> tuple[int, int, int]:
        n = self.prog.nodes[i]
        if n.op in ("const", "empty"):
            return (1 << 60, 0, i)  # constants last: they gather at the top of the tree
        if n.op in ("extract", "rotate"):
            return (n.args[0], int(n.attrs[0]), i)  # type: ignore[call-overload]
        if n.op == "mul" and len(n.args) == 2:
            # products of slots (dot products) sort by their first factor's slot
            k0 = self._sort_key(n.args[0])
            return (k0[0], k0[1], i)
        return (i, 0, i)

    def _sorted(self, leaves: list[int]) -> list[int]:
        return [self.name[x] for x in sorted(leaves, key=self._sort_key)]

    def _inert_leaf(self, leaf: int) -> int:
        """An extract leaf as an inert ``ExtI`` (any other leaf as itself)."""
        n = self.prog.nodes[leaf]
        if n.op == "extract":
            return self.node("ExtI", self.name[n.args[0]], int(n.attrs[0]))  # type: ignore[call-overload]
        return self.name[leaf]

    def _balanced(self, op: str, names: list[int]) -> int:
        while len(names) > 1:
            nxt = [self.node(op, names[j], names[j + 1]) for j in range(0, len(names) - 1, 2)]
            if len(names) % 2:
                nxt.append(names[-1])
            names = nxt
        return names[0]

    def _signed_tree(self, pos: list[int], neg: list[int], inert: bool = False) -> int:
        """The balanced sum of ``pos`` minus that of ``neg`` (with inert twins: ``inert``)."""
        add, sub, negate = ("AddI", "SubI", "NegI") if inert else ("Add", "Sub", "Neg")

        def names(xs: list[int]) -> list[int]:
            return [self._inert_leaf(x) for x in sorted(xs, key=self._sort_key)] if inert else self._sorted(xs)

        if not pos:
            return self.node(negate, self._balanced(add, names(neg)))
        p = self._balanced(add, names(pos))
        if not neg:
            return p
        return self.node(sub, p, self._balanced(add, names(neg)))

    def _chain(self, i: int) -> int | None:
        """Emit the Place-sum form of the chain topped at ``i``; its node id (None if empty)."""
        n = self.prog.nodes[i]
        ty = n.type
        written: dict[int, int] = {}
        base: int | None = None
        if n.op == "from_elements":
            written = dict(enumerate(n.args))
        else:
            cur = i
            while self.prog.nodes[cur].op == "insert":
                c = self.prog.nodes[cur]
                written.setdefault(int(c.attrs[0]), c.args[0])  # type: ignore[call-overload]
                cur = c.args[1]
            base = cur
        parts: list[int] = []
        surviving = [j for j in range(ty.slots) if j not in written]
        base_part = []
        if base is not None and surviving and not _is_zero(self.prog, base):
            base_part.append(self.node("Gather", self.name[base], 0, set_key(surviving), ty.slots))
        if i in self.summarized_chains:
            return self._summarized_chain(written, base_part, ty.slots)
        for slot in sorted(written, key=lambda sl: self._place_key(written[sl], sl, ty.slots)):
            parts.append(self.node("Place", self.name[written[slot]], slot, ty.slots))
        parts += base_part  # last: the places next to each other are the ones that merge
        if not parts:
            return None
        return self._balanced("Add", parts)

    def _place_key(self, elem: int, slot: int, slots: int) -> tuple[int, int, int, int]:
        """Order of a chain's places in its balanced sum: slots read from one source at one
        offset are neighbours (they become one gather), other elements by slot.  In slot
        order, slots alternating between two sources never met: one mask per slot."""
        n = self.prog.nodes[elem]
        if n.op == "extract" and self.prog.nodes[n.args[0]].type.slots == slots:
            return (0, n.args[0], (int(n.attrs[0]) - slot) % slots, slot)  # type: ignore[call-overload]
        return (1, 0, 0, slot)

    def _summarized_chain(self, written: dict[int, int], base_parts: list[int], slots: int) -> int:
        """A long chain whose elements are linear forms of slots: its source form with inert
        elements, unioned with the gathers of the linear forms (``_plan_summaries``)."""
        source = list(base_parts)
        groups: dict[tuple[int, str], list[int]] = {}
        consts: dict[int, int] = {}
        summary = list(base_parts)
        for slot in sorted(written):
            e = written[slot]
            form = self.linear.get(e)
            if form is None:
                place = self.node("Place", self.name[e], slot, slots)
                source.append(place)
                summary.append(place)
                continue
            source.append(self.node("Place", self._inert_tree(e), slot, slots))
            by_src: dict[int, dict[int, int]] = {}
            for (v, j), c in form.items():
                if (v, j) == CONST_TERM:
                    consts[slot] = c
                    continue
                q = by_src.setdefault(v, {})
                q[(j - slot) % slots] = q.get((j - slot) % slots, 0) + c
            for v, q in by_src.items():
                poly = rotpoly.normalize(q, slots)
                if poly:
                    groups.setdefault((v, rotpoly.key(poly, slots)), []).append(slot)
        for (v, key), sel in groups.items():
            lin = self.node("LinRot", self.name[v], key, slots)
            summary.append(self.node("Gather", lin, 0, set_key(sel), slots))
        if any(consts.values()):
            summary.append(self.node("Dense", dense_key(tuple(consts.get(j, 0) for j in range(slots))), slots))
        top = self._balanced("AddI", source)
        if summary:
            self.unions.append((top, self._balanced("Add", summary)))
        return top

    def _inert_tree(self, e: int) -> int:
        """The element ``e`` (a linear form, ``_linear_form``) built from inert twins."""
        built: dict[int, int] = {}
        stack = [(e, False)]
        while stack:
            i, ready = stack.pop()
            if i in built:
                continue
            n = self.prog.nodes[i]
            value = self._int_const(i)
            if value is not None:
                built[i] = self.node("Num", value, n.type.slots)
            elif n.op == "extract":
                built[i] = self._inert_leaf(i)
            elif not ready:
                stack.append((i, True))
                stack.extend((a, False) for a in n.args)
            else:
                twin = {"add": "AddI", "sub": "SubI", "mul": "MulI", "neg": "NegI"}[n.op]
                built[i] = self.node(twin, *[built[a] for a in n.args])
        return built[e]

    # -- summaries of long chains and sums ---------------------------------------
    def _plan_summaries(self) -> None:
        """Choose the structures that load as summaries beside an inert source form.

        * an insertion chain of more than ``SUMMARY_CHAIN_SLOTS`` slots whose elements
          are (single-use) linear forms of extracted slots: element ``i`` of
          ``sum_j c_j v[j]`` is slot ``i`` of ``LinRot(v, sum_j c_j rho^(j - i))``, and
          slots with the same polynomial share one ``Gather``;
        * a sum of more than ``BALANCED_ONLY_LEAVES`` slots of one vector
          (``_slot_sum_summary``).
        Their interiors and the extracts only they use are not loaded as live terms:
        the rules work on the summaries (O(groups) e-nodes, not O(slots)), and the
        inert source stays extractable when a summary finds nothing better.
        """
        self.linear: dict[int, dict[tuple[int, int], int]] = {}
        self.summarized_chains: set[int] = set()
        self.summarized_sums: set[int] = set()
        leaves: set[int] = set()
        absorbed: set[int] = set(self.covered)
        for i in self.prog.live():
            n = self.prog.nodes[i]
            if n.op == "from_elements" or (n.op == "insert" and not self._inner_insert(i)):
                elems = self._chain_elements(i)
                if len(elems) <= SUMMARY_CHAIN_SLOTS:
                    continue
                found = False
                for e in elems:
                    form = self._linear_form(e)
                    if form is not None and all(
                        self.prog.nodes[v].type.slots == n.type.slots for v, _ in form[0] if (v, _) != CONST_TERM
                    ):
                        self.linear[e], found = form[0], True
                        absorbed.update(form[1])
                        leaves.update(form[2])
                        if self.prog.nodes[e].op != "extract":
                            absorbed.add(e)
                if found:
                    self.summarized_chains.add(i)
                    absorbed.add(i)
            elif n.op in ("add", "sub") and not self._inner(i, ("add", "sub", "neg")):
                pos: list[int] = []
                neg: list[int] = []
                self._sum_leaves(i, 1, pos, neg, top=True)
                srcs = {self.prog.nodes[x].args[0] if self.prog.nodes[x].op == "extract" else -1 for x in pos + neg}
                if len(pos) + len(neg) > BALANCED_ONLY_LEAVES and len(srcs) == 1 and -1 not in srcs:
                    self.summarized_sums.add(i)
                    absorbed.add(i)
                    leaves.update(pos + neg)
        # the interiors of linear elements, and the extracts nothing else reads
        for e, _ in self.linear.items():
            if self.prog.nodes[e].op != "extract":
                self.covered.add(e)
        self.covered.update(x for x in absorbed if x not in self.summarized_chains and x not in self.summarized_sums
                            and self.prog.nodes[x].op in ("add", "sub", "neg", "mul"))
        users: dict[int, list[int]] = {}
        for j in self.prog.live():
            for a in self.prog.nodes[j].args:
                users.setdefault(a, []).append(j)
        results = set(self.prog.results)
        # shared nodes and leaves: covered when every user is (a fixpoint: x[j] under x[j] * w)
        pending = {x for x in leaves if x not in results}
        changed = True
        while changed:
            changed = False
            for x in list(pending):
                if all(u in absorbed or u in self.covered for u in users.get(x, [])):
                    self.covered.add(x)
                    pending.discard(x)
                    changed = True

    def _chain_elements(self, top: int) -> list[int]:
        n = self.prog.nodes[top]
        if n.op == "from_elements":
            return list(n.args)
        written: dict[int, int] = {}
        cur = top
        while self.prog.nodes[cur].op == "insert":
            c = self.prog.nodes[cur]
            written.setdefault(int(c.attrs[0]), c.args[0])  # type: ignore[call-overload]
            cur = c.args[1]
            if cur != top and not self._inner_insert(cur):
                break
        return list(written.values())

    def _linear_form(self, e: int) -> tuple[dict[tuple[int, int], int], list[int], list[int]] | None:
        """``e`` as ``c0 + sum c * v[j]`` over single-use add/sub/neg/mul-by-integer nodes:
        ({(v, j): c, CONST_TERM: c0}, single-use interior nodes, extract leaves and shared
        interior nodes), or None."""
        form: dict[tuple[int, int], int] = {}
        interior: list[int] = []
        leaves: list[int] = []
        stack = [(e, 1)]
        while stack:
            i, c = stack.pop()
            n = self.prog.nodes[i]
            value = self._int_const(i)
            if value is not None:  # an additive constant (HEIR's loops start their sums at 0)
                form[CONST_TERM] = form.get(CONST_TERM, 0) + c * value
                continue
            if n.op == "extract":
                if n.args[0] in self.covered:
                    return None
                key = (n.args[0], int(n.attrs[0]))  # type: ignore[call-overload]
                form[key] = form.get(key, 0) + c
                leaves.append(i)
                continue
            if i == e and not self._single_use(i):
                return None
            shared = i != e and not self._single_use(i)  # e.g. x[j] * w read by three slots
            if n.op in ("add", "sub"):
                stack.append((n.args[0], c))
                stack.append((n.args[1], c if n.op == "add" else -c))
            elif n.op == "neg":
                stack.append((n.args[0], -c))
            elif n.op == "mul":
                consts = [a for a in n.args if self._int_const(a) is not None]
                if len(consts) != 1:
                    return None
                other = n.args[1] if consts[0] == n.args[0] else n.args[0]
                stack.append((other, c * self._int_const(consts[0])))  # type: ignore[operator]
            else:
                return None
            (leaves if shared else interior).append(i)
        if not any(self.prog.nodes[x].op == "extract" for x in leaves):
            return None
        return form, interior, leaves

    def _int_const(self, i: int) -> int | None:
        """The integer of a plaintext scalar constant: a ``const``, or a slot of a constant
        tensor or of ``from_elements`` of constants (a stencil's weight matrix); else None."""
        n = self.prog.nodes[i]
        if not n.type.is_scalar or n.type.secret:
            return None
        if n.op == "const":
            c = n.attrs[0]
            return c if isinstance(c, int) and not isinstance(c, bool) else None
        if n.op == "extract":
            src = self.prog.nodes[n.args[0]]
            j = int(n.attrs[0])  # type: ignore[call-overload]
            if src.op == "from_elements" and 0 <= j < len(src.args):
                return self._int_const(src.args[j])
            if src.op == "const" and isinstance(src.attrs[0], tuple) and 0 <= j < len(src.attrs[0]):
                c = src.attrs[0][j]
                return c if isinstance(c, int) and not isinstance(c, bool) else None
        return None


def _is_zero(prog: Program, i: int) -> bool:
    n = prog.nodes[i]
    return n.op == "empty" or (n.op == "const" and not isinstance(n.attrs[0], tuple) and n.attrs[0] == 0)


LOAD_CHUNK = 256
TERM_OPS = term.CONCRETE_OPS | term.SUMMARY_OPS | term.INERT_OPS | {"Root"}
CONST_TERM = (-1, 0)  # the key of a linear form's constant term (``Loader._linear_form``)
BALANCED_ONLY_LEAVES = 32  # larger single-use sum/product trees load only balanced (Loader.load)
# longer chains of linear forms load as summaries (Loader._plan_summaries); up to 64 slots the
# rules vectorize slot by slot, which finds shared rotations the summaries' factorizations
# miss (HEIR's rank-2 gx 8x8: 4 rotations slot by slot, 6 from the summary)
SUMMARY_CHAIN_SLOTS = 64
ANALYSIS_PREFIX = "slots-"  # names of the rules of term.slots_analysis


class Session:
    """One program in one e-graph."""

    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.egraph = EGraph()
        term.declare(self.egraph)
        loader = Loader(prog)
        self.roots = loader.load()
        self.node_ids = dict(loader.name)  # IR node id -> loader node id (see ``node_classes``)
        with tempfile.TemporaryDirectory(prefix="eqsat-load-") as tmp:
            cmds = loader.write(Path(tmp))
            self._run_text(_declarations())
            self._run_text("\n".join(cmds))
            self._run_text("(run-schedule (saturate (run ld)))\n(run ld-clean 1)")
        self.egraph.run(term.slots_analysis.saturate())

    def _run_text(self, text: str) -> None:
        self.egraph._egraph.run_program(*self.egraph._egraph.parse_program(text))

    def size(self) -> int:
        """E-nodes of the term language (analysis tables such as ``slots`` are not counted)."""
        return sum(size for fn, size in self.egraph.all_function_sizes() if str(fn) in TERM_OPS)

    def saturate(self, rulesets: list[Ruleset], limits: Limits) -> RunReport:
        """Run the rulesets (after the analyses, every iteration) until a limit or saturation."""
        start = time.perf_counter()
        matches: dict[str, int] = {}
        if not rulesets:
            return RunReport(StopReason.SATURATED, 0, self.size(), 0.0, matches)
        combined = rulesets[0] if len(rulesets) == 1 else unstable_combine_rulesets(*rulesets)
        # our rules contain no raw associativity/commutativity, so by default every rule runs on
        # every match; egglog's back-off scheduler (4x slower per iteration here) is opt-in
        scheduler = back_off(match_limit=limits.match_limit, ban_length=2) if limits.match_limit > 0 else None
        step = run(term.slots_analysis).saturate() + run(combined, scheduler=scheduler)  # type: ignore[arg-type]
        stop = StopReason.ITERATION_LIMIT
        it = 0
        quiet = 0
        while it < limits.iterations:
            it += 1
            rep = self.egraph.run(step)
            for rdecl, cnt in rep.num_matches_per_rule.items():
                name = getattr(rdecl, "name", None) or str(rdecl)[:40]
                if cnt and not name.startswith(ANALYSIS_PREFIX):  # report rewrites, not analyses
                    matches[name] = matches.get(name, 0) + cnt
            # the back-off scheduler may ban rules for an iteration: then only report
            # saturation after two quiet iterations in a row
            quiet = quiet + 1 if not rep.updated else 0
            if quiet >= (2 if scheduler is not None else 1):
                stop = StopReason.SATURATED
                break
            if self.size() > limits.nodes:
                stop = StopReason.NODE_LIMIT
                break
            if time.perf_counter() - start > limits.time_s:
                stop = StopReason.TIME_LIMIT
                break
        self.egraph.run(term.slots_analysis.saturate())
        return RunReport(stop, it, self.size(), time.perf_counter() - start, matches)

    def node_classes(self, js: dict[str, object]) -> dict[int, str]:
        """IR node id -> its serialized e-class, read from ``ld_name`` in ``js`` (a ``serialize``)."""
        nodes: dict[str, dict[str, object]] = js["nodes"]  # type: ignore[assignment]
        out: dict[int, str] = {}
        for node in nodes.values():
            if node["op"] == "ld_name":
                child = str(node["children"][0])  # type: ignore[index]
                out[int(str(nodes[child]["op"]))] = str(node["eclass"])
        return out

    def serialize(self) -> dict[str, object]:
        ser = self.egraph._egraph.serialize([], max_functions=None, max_calls_per_function=None)
        return json.loads(ser.to_json())  # type: ignore[no-any-return]
