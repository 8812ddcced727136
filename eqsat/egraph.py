"""The e-graph driver: load a program, saturate under limits, serialize.

In: an IR ``Program``, a schedule (a list of named rulesets from
``eqsat.rules.REGISTRY``) and ``Limits``.  Out: a ``Session`` holding the egglog
``EGraph``, the e-class name of every result (``$r0``, ``$r1``...), and a ``RunReport``
with a typed ``StopReason``.

Loading writes egglog program text (one ``let`` per SSA value, which egglog parses in
milliseconds even for thousands of values; building nested Python expressions
overflows the recursion limit).  Beside the literal program it unions canonical forms:

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
import time
from dataclasses import dataclass, field
from enum import StrEnum

from egglog import EGraph, Ruleset, back_off, run, unstable_combine_rulesets

from . import rotpoly, term
from .ir import MGMT_OPS, Program
from .keys import dense_key, set_key


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


def _f64(x: float) -> str:
    r = repr(float(x))
    return r if any(ch in r for ch in ".eEn") else r + ".0"


class Loader:
    """Translates a Program into egglog ``let`` commands (text)."""

    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.lines: list[str] = []
        self.name: dict[int, str] = {}  # IR node id -> egglog let name
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
        self._fresh = 0

    def fresh(self, expr: str) -> str:
        self._fresh += 1
        nm = f"$t{self._fresh}"
        self.lines.append(f"(let {nm} {expr})")
        return nm

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
        for i in self.prog.live():
            if i not in self.covered:
                self._emit(i)
        roots = []
        for k, r in enumerate(self.prog.results):
            self.lines.append(f"(pending (Root {k}) {self.name[r]})")
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
        if op == "insert" and n.args[1] in self.covered:
            self.name[i] = self._chain(i)  # only the Place sum (see ``_covered_interiors``)
            return
        a = [self.name[x] for x in n.args]
        if op in MGMT_OPS:
            self.name[i] = a[0]
            return
        if op == "input":
            expr = f"(In {_quote(str(n.attrs[0]))} {ty.slots})"
        elif op == "const":
            c = n.attrs[0]
            if isinstance(c, tuple):
                expr = f"(Dense {_quote(dense_key(c))} {ty.slots})"
            elif isinstance(c, float):
                expr = f"(NumF {_f64(c)} {ty.slots})"
            else:
                expr = f"(Num {c} {ty.slots})"
        elif op == "empty":
            expr = f"(NumF 0.0 {ty.slots})" if ty.is_float else f"(Num 0 {ty.slots})"
        elif op in ("add", "sub", "mul"):
            expr = f"({op.capitalize()} {a[0]} {a[1]})"
        elif op == "neg":
            expr = f"(Neg {a[0]})"
        elif op == "encode":
            expr = f"(Encode {a[0]})"
        elif op == "decode":
            expr = f"(Decode {a[0]})"
        elif op == "rotate":
            expr = f"(Rot {a[0]} {n.attrs[0]})"
        elif op == "extract":
            expr = f"(Ext {a[0]} {n.attrs[0]})"
        elif op == "insert":
            expr = f"(Ins {a[0]} {a[1]} {n.attrs[0]})"
        elif op == "from_elements":
            zero = f"(NumF 0.0 {ty.slots})" if ty.is_float else f"(Num 0 {ty.slots})"
            acc = zero
            for j, s in enumerate(a):
                acc = self.fresh(f"(Ins {s} {acc} {j})")
            expr = acc
        elif op == "splat":
            expr = f"(Splat {a[0]} {ty.slots})"
        else:  # pragma: no cover - ir.Builder rejects unknown ops
            raise ValueError(f"cannot load op {op}")
        nm = f"$v{i}"
        self.lines.append(f"(let {nm} {expr})")
        self.name[i] = nm
        if op == "rotate":
            self.lines.append(f"(src_rot {nm})")
        self._canonical(i)

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
            if form:
                self._union(i, form)

    def _tree_root(self, i: int) -> str:
        """The balanced canonical tree of the sum or product rooted at ``i``, emitted; its name."""
        if self.prog.nodes[i].op == "mul":
            leaves: list[int] = []
            self._prod_leaves(i, leaves, top=True)
            return self._balanced("Mul", self._sorted(leaves))
        pos: list[int] = []
        neg: list[int] = []
        self._sum_leaves(i, 1, pos, neg, top=True)
        name = self._signed_tree(pos, neg)
        self._slot_sum_summary(name, pos, neg)
        return name

    def _slot_sum_summary(self, name: str, pos: list[int], neg: list[int]) -> None:
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
        self._union_name(name, f"(Ext (LinRot {self.name[src]} {_quote(rotpoly.key(p, slots))} {slots}) 0)")

    def _union_name(self, name: str, expr: str) -> None:
        self.lines.append(f"(pending {name} {expr})")  # applied at the end (term.pending)

    def _union(self, i: int, expr: str) -> None:
        self._union_name(self.name[i], expr)

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

    def _sorted(self, leaves: list[int]) -> list[str]:
        return [self.name[x] for x in sorted(leaves, key=self._sort_key)]

    def _balanced(self, op: str, names: list[str]) -> str:
        while len(names) > 1:
            nxt = [self.fresh(f"({op} {names[j]} {names[j + 1]})") for j in range(0, len(names) - 1, 2)]
            if len(names) % 2:
                nxt.append(names[-1])
            names = nxt
        return names[0]

    def _signed_tree(self, pos: list[int], neg: list[int]) -> str:
        if not pos:
            return f"(Neg {self._balanced('Add', self._sorted(neg))})"
        p = self._balanced("Add", self._sorted(pos))
        if not neg:
            return p
        return f"(Sub {p} {self._balanced('Add', self._sorted(neg))})"

    def _chain(self, i: int) -> str:
        """Emit the Place-sum form of the chain topped at ``i``; its name ("" if empty)."""
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
        parts: list[str] = []
        surviving = [j for j in range(ty.slots) if j not in written]
        if base is not None and surviving and not _is_zero(self.prog, base):
            parts.append(f"(Gather {self.name[base]} 0 {_quote(set_key(surviving))} {ty.slots})")
        for slot in sorted(written):
            parts.append(self.fresh(f"(Place {self.name[written[slot]]} {slot} {ty.slots})"))
        if not parts:
            return ""
        return self._balanced("Add", parts)


def _is_zero(prog: Program, i: int) -> bool:
    n = prog.nodes[i]
    return n.op == "empty" or (n.op == "const" and not isinstance(n.attrs[0], tuple) and n.attrs[0] == 0)


LOAD_CHUNK = 256
TERM_OPS = term.CONCRETE_OPS | term.SUMMARY_OPS | {"Root"}
BALANCED_ONLY_LEAVES = 32  # larger single-use sum/product trees load only balanced (Loader.load)
ANALYSIS_PREFIX = "slots-"  # names of the rules of term.slots_analysis


class Session:
    """One program in one e-graph."""

    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.egraph = EGraph()
        term.declare(self.egraph)
        loader = Loader(prog)
        self.roots = loader.load()
        # parse and run in chunks: parsing the whole program at once keeps every command's
        # type environment alive (16 GB for a 4096-term sum); chunks are freed as they run
        for start in range(0, len(loader.lines), LOAD_CHUNK):
            text = "\n".join(loader.lines[start : start + LOAD_CHUNK])
            self.egraph._egraph.run_program(*self.egraph._egraph.parse_program(text))
        self.egraph.run(term.load_unions)
        self.egraph.run(term.slots_analysis.saturate())

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

    def serialize(self) -> dict[str, object]:
        ser = self.egraph._egraph.serialize([], max_functions=None, max_calls_per_function=None)
        return json.loads(ser.to_json())  # type: ignore[no-any-return]
