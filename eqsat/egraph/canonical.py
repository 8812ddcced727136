"""Canonical forms of sums, products and insertion chains, unioned beside the source on load.

In: the ``Program`` being loaded (through ``CanonicalForms``, a base of ``Loader``). Out: rows
of balanced forms and the unions that tie them to the source's values:

* a maximal tree of additions/subtractions (or of multiplications) whose inner nodes have one
  use becomes a balanced tree over its leaves sorted by (base, slot), so like terms are
  neighbours and merge in O(log n) rule iterations, with no raw associativity or
  commutativity; above ``BALANCED_ONLY_LEAVES`` leaves only the balanced form is loaded;
* an insertion chain (``insert``/``from_elements``) becomes a balanced sum of ``Place`` terms
  (one per written slot) plus the surviving slots of its base as a ``Gather``.

Summaries of long chains and sums hook in through ``_slot_sum_summary`` and
``_summarized_chain`` (``eqsat.egraph.summaries``).
"""

from __future__ import annotations

from eqsat.algebra.slot_keys import set_key
from eqsat.egraph.tables import Tables
from eqsat.ir import Program

BALANCED_ONLY_LEAVES = 32  # larger single-use sum/product trees load only balanced (Loader.load)


class CanonicalForms(Tables):
    """Balanced sums/products and Place sums of the program being loaded."""

    def __init__(self, prog: Program) -> None:
        super().__init__(len(prog.nodes))  # the loader's own nodes are numbered after the program's
        self.prog = prog
        self.uses = prog.uses()
        self.covered: set[int] = set()
        self.user_op: dict[int, str] = {}
        self.insert_base: dict[int, bool] = {}
        self.summarized_chains: set[int] = set()  # planned by ``Summaries._plan_summaries``
        self.summarized_sums: set[int] = set()
        self.summarized_prods: set[int] = set()
        self.uniform_chains: set[int] = set()
        self.template_sums: set[int] = set()
        self.template_cover: dict[int, list[int]] = {}
        for j in prog.live():
            nj = prog.nodes[j]
            for a in nj.args:
                self.user_op[a] = nj.op
            if nj.op == "insert":
                self.insert_base[nj.args[1]] = True
        #: the signed leaves and interior of each sum (product) tree asked for (``_sum_tree``,
        #: ``_prod_tree``): the planning, the covered interiors and the emission each walked it
        self._sum_trees: dict[int, tuple[list[int], list[int], list[int]]] = {}
        self._prod_trees: dict[int, tuple[list[int], list[int]]] = {}

    # -- hooks for summaries (``eqsat.egraph.summaries``) -------------------------
    def _slot_sum_summary(self, name: int, pos: list[int], neg: list[int]) -> None:
        """Union a summary beside the balanced sum ``name``; none here."""

    def _summarized_chain(self, written: dict[int, int], base_parts: list[int], slots: int) -> int:
        raise NotImplementedError("only Summaries plans summarized chains")

    def _realized_sum_summary(self, pos: list[int], neg: list[int]) -> int | None:
        raise NotImplementedError("only Summaries plans summarized sums")

    def _realized_prod_summary(self, factors: list[int]) -> int | None:
        raise NotImplementedError("only Summaries plans summarized products")

    def _realized_template_sum(self, pos: list[int], neg: list[int]) -> int | None:
        return None  # the vectorizer's (``eqsat.egraph.vectorize``)

    def _uncover(self, nodes: list[int]) -> None:
        """Emit nodes covered for a template sum (``eqsat.egraph.summaries``)."""

    # -- canonical forms --------------------------------------------------------
    def _covered_interiors(self) -> set[int]:
        """Interior nodes of the trees whose roots ``_canonical`` rebuilds balanced."""
        covered: set[int] = set()
        for i in self.prog.live():
            n = self.prog.nodes[i]
            if n.op in ("add", "sub") and not self._inner(i, ("add", "sub", "neg")):
                pos, neg, interior = self._sum_tree(i)
                if len(pos) + len(neg) > BALANCED_ONLY_LEAVES:
                    covered.update(interior)
            elif n.op == "mul" and not self._inner(i, ("mul",)):
                leaves, interior = self._prod_tree(i)
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

    def _users(self) -> dict[int, list[int]]:
        """Live node -> the live nodes that read it, in live order (computed once per load; the
        caller must not change it)."""
        if not hasattr(self, "_users_memo"):
            self._users_memo: dict[int, list[int]] = {}
            for j in self.prog.live():
                for a in self.prog.nodes[j].args:
                    self._users_memo.setdefault(a, []).append(j)
        return self._users_memo

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
            pos, neg, _ = self._sum_tree(i)
            if len(pos) + len(neg) >= 3:
                self._union(i, self._signed_tree(pos, neg))
        elif n.op == "mul" and not self._inner(i, ("mul",)):
            leaves, _ = self._prod_tree(i)
            if len(leaves) >= 3:
                self._union(i, self._balanced("Mul", self._sorted(leaves)))
        elif n.op == "from_elements" or (n.op == "insert" and not self._inner_insert(i)):
            form = self._chain(i)
            if form is not None:
                self._union(i, form)

    def _tree_root(self, i: int) -> int | None:
        """The balanced canonical tree of the sum or product rooted at ``i``, emitted; its name.
        None for a small template sum (``Summaries``) that found no realization: its covered
        terms are emitted again and the caller loads the root as any small tree."""
        if self.prog.nodes[i].op == "mul":
            leaves, _ = self._prod_tree(i)
            if i in self.summarized_prods:
                realized = self._realized_prod_summary(leaves)
                if realized is not None:
                    return realized
            return self._balanced("Mul", self._sorted(leaves))
        pos, neg, _ = self._sum_tree(i)
        if i in self.summarized_sums:
            realized = self._realized_sum_summary(pos, neg)
            if realized is not None:
                return realized
        if i in self.template_sums:
            realized = self._realized_template_sum(pos, neg)
            if realized is not None:
                return realized  # as a realized sum of slots: no tree (``_realized_sum_summary``)
            self._uncover(self.template_cover.get(i, []))
            if len(pos) + len(neg) <= BALANCED_ONLY_LEAVES and not any(
                    a in self.covered for a in self.prog.nodes[i].args):
                return None  # a small tree loads as it would have: its source beside its balanced form
            # (an operand covered by another plan, e.g. a summarized chain's linear element
            # reading the same partial sum, is never emitted: the balanced tree, as before)
        name = self._signed_tree(pos, neg, inert=i in self.summarized_sums)
        self._slot_sum_summary(name, pos, neg)
        return name

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

    def _sum_tree(self, root: int) -> tuple[list[int], list[int], list[int]]:
        """``_sum_leaves`` of the tree topped at ``root``: (positive leaves, negative leaves,
        interior), each a new list; walked once per load (it depends on the program alone)."""
        got = self._sum_trees.get(root)
        if got is None:
            pos: list[int] = []
            neg: list[int] = []
            interior: list[int] = []
            self._sum_leaves(root, 1, pos, neg, top=True, interior=interior)
            got = self._sum_trees[root] = (pos, neg, interior)
        return list(got[0]), list(got[1]), list(got[2])

    def _prod_tree(self, root: int) -> tuple[list[int], list[int]]:
        """``_prod_leaves`` of the tree topped at ``root``: (leaves, interior), new lists; walked
        once per load."""
        got = self._prod_trees.get(root)
        if got is None:
            leaves: list[int] = []
            interior: list[int] = []
            self._prod_leaves(root, leaves, top=True, interior=interior)
            got = self._prod_trees[root] = (leaves, interior)
        return list(got[0]), list(got[1])

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

    def _written_slots(self, top: int) -> tuple[dict[int, int], int | None]:
        """The chain topped at ``top`` (``from_elements`` or an insert chain): slot -> the
        element written there last, and the base the inserts start from (None for
        ``from_elements``)."""
        n = self.prog.nodes[top]
        if n.op == "from_elements":
            return dict(enumerate(n.args)), None
        written: dict[int, int] = {}
        cur = top
        while self.prog.nodes[cur].op == "insert":
            c = self.prog.nodes[cur]
            written.setdefault(int(c.attrs[0]), c.args[0])  # type: ignore[call-overload]
            cur = c.args[1]
        return written, cur

    def _chain(self, i: int) -> int | None:
        """Emit the Place-sum form of the chain topped at ``i``; its node id (None if empty)."""
        ty = self.prog.nodes[i].type
        written, base = self._written_slots(i)
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


def _is_zero(prog: Program, i: int) -> bool:
    n = prog.nodes[i]
    return n.op == "empty" or (n.op == "const" and not isinstance(n.attrs[0], tuple) and n.attrs[0] == 0)
