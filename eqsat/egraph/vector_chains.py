"""Insertion chains that load as their vector form, with the slot-by-slot source inert beside it.

In: the ``Program`` being loaded (through ``VectorChains``, a base of ``Loader``). Out: for
every insertion chain (``insert`` chain or ``from_elements``) whose written elements are all
one polynomial of reads relative to their slot (a shift-invariant template: a wrapping
stencil, an element-wise polynomial; above ``SUMMARY_CHAIN_SLOTS`` written slots also one
with per-slot coefficients, a zero-padded template whose edges mask reads; at any length one
with per-slot data, ``_per_slot_data``), that writes
every slot or starts from zero, and that the template vectorizer turns into one vector form
(``eqsat.egraph.vectorize``): the chain's elements and inner inserts are not loaded as live
terms; the chain loads as a sum of ``Place`` terms over *inert* twins of its elements
(``AddI``, ``SubI``, ``MulI``, ``NegI``, ``ExtI``: extraction reads them as the originals,
no rewrite matches them), unioned with the vector form. A chain whose form fails after all
is loaded live as before (``_uncover``).

Why: with the source live, the slot rules lift every slot of such a chain to whole-vector
terms one rewrite at a time (``ext-to-slot0``, ``ext-of-rot``, ``rot-compose``, ``lin-mono``
on each of its 256 slots for a 16x16 stencil), and the e-graph of the Roberts cross 16x16 grew
from 2,063 to 15,624 e-nodes over 17 iterations to find what the vector form states at load:
the rules then work on the vector form's O(monomials) terms instead of O(slots). The inert
twin keeps the source extractable, as for the summaries of long linear chains
(``eqsat.egraph.summaries``).
"""

from __future__ import annotations

from itertools import islice

from eqsat.egraph.canonical import _is_zero
from eqsat.egraph.summaries import SUMMARY_CHAIN_SLOTS
from eqsat.egraph.vectorize import ChainVectorizer, KnownChain, Mono, Poly

#: the inert twin of each element op (``_inert_elem``)
_TWINS = {"add": "AddI", "sub": "SubI", "mul": "MulI", "neg": "NegI"}


class VectorChains(ChainVectorizer):
    """Plans the chains that load as vector forms (``_plan_vector_chains``) and emits them."""

    def _vector_chain_instead(self, top: int, others: list[int]) -> set[int] | None:
        """A long chain (above ``SUMMARY_CHAIN_SLOTS``) whose elements ``others`` are no
        linear forms, asked by ``Summaries._plan_summaries`` before it summarizes the linear
        ones: when more than ``SUMMARY_CHAIN_SLOTS`` of ``others`` read a slot that is
        no constant (products, not a zero-padded edge's constants) and the vector form would
        state every slot (``_vector_chain_cover``), the nodes it covers (the chain is left to
        ``_plan_vector_chains``); else None. A summary keeps the other elements live, and the slot rules
        lift them one slot at a time -- as for short chains, the bound below which they are
        left to the rules: a zero-padded product template on 189 slots whose edge slots
        degenerate to linear forms ran past the time limit in saturation and came back
        unvectorized."""
        reading = (e for e in others if self._reads_a_slot(e))
        if next(islice(reading, SUMMARY_CHAIN_SLOTS, None), None) is None:  # at most that many: counted no further
            return None
        return self._vector_chain_elems(top)

    def _vector_chain_elems(self, top: int) -> set[int] | None:
        """The nodes the chain topped at ``top`` covers when it loads as its vector form
        (``_vector_chain_cover``, with no summary planned yet), or None. ``_plan_summaries``
        asks it of every chain it does not summarize, before it plans the summaries of sums
        and products, and plans none inside those nodes: a summary there covered the interior
        of an element and so hid the chain from its vector form (``_vector_chain_cover``
        stops at a covered node). Slot-uniform seed 104793, ``x0[i+3] * ((x1[i-3] + d[i]) -
        (x1[i] - x1[i]))`` zero-padded on 138 slots: the self-cancelling term gave the inner
        sum three slot reads of one vector, summarized as one realized rotation per slot, and
        the chain stayed slot by slot (269 extracts, 135 inserts)."""
        if top in self.covered:
            return None
        if not hasattr(self, "_vec_memo"):
            self._vec_memo, self._nested, self._nested_id = {}, {}, 0
        self._planning = True
        try:
            cover = self._vector_chain_cover(top, self._users(), set(self.prog.results))
        finally:
            self._planning = False
        if cover is not None:  # asked again by ``_plan_vector_chains``: the same unless what it walked is covered since
            self._early_covers()[top] = (cover, self._walked)
        return cover

    def _early_covers(self) -> dict[int, tuple[set[int], set[int]]]:
        """Chain top -> (its cover, the nodes its ``_vector_chain_cover`` walked), from
        ``_vector_chain_elems``."""
        if not hasattr(self, "_early_covers_memo"):
            self._early_covers_memo: dict[int, tuple[set[int], set[int]]] = {}
        return self._early_covers_memo

    def _reads_a_slot(self, e: int) -> bool:
        """Whether the scalar arithmetic of ``e`` reads a slot of a tensor that is not a constant."""
        return any(self._int_const(x) is None and self._scalar_const(x) is None
                   for x in self._slot_extracts([e]))

    def _plan_vector_chains(self) -> None:
        """Choose the chains whose vector form is complete; cover their element interiors."""
        self.vector_chains: dict[int, set[int]] = {}  # chain top -> the nodes covered for it
        if not hasattr(self, "_vec_memo"):
            self._vec_memo, self._nested, self._nested_id = {}, {}, 0
        users = self._users()
        results = set(self.prog.results)
        self._planning = True
        try:
            for i in self.prog.live():
                n = self.prog.nodes[i]
                if i in self.covered or i in self.summarized_chains or not (
                        n.op == "from_elements" or (n.op == "insert" and not self._inner_insert(i))):
                    continue
                early = self._early_covers().get(i)
                if early is not None and i in self.chain_polys() and early[1].isdisjoint(self.covered):
                    cover: set[int] | None = early[0]  # as asked before the summaries (the same polynomials)
                else:
                    cover = self._vector_chain_cover(i, users, results)
                if cover is not None:
                    self.vector_chains[i] = cover
                    self.covered.update(cover)
        finally:
            self._planning = False

    def _vector_chain_cover(self, top: int, users: dict[int, list[int]], results: set[int]) -> set[int] | None:
        """The nodes the chain topped at ``top`` covers when its vector form is complete (its
        inner inserts and the element arithmetic nothing else reads), else None."""
        n = self.prog.nodes[top]
        slots = n.type.slots
        written: dict[int, int] = {}
        chain = {top}
        if n.op == "from_elements":
            written = dict(enumerate(n.args))
        else:
            cur = top
            while self.prog.nodes[cur].op == "insert":
                c = self.prog.nodes[cur]
                written.setdefault(int(c.attrs[0]), c.args[0])  # type: ignore[call-overload]
                cur = c.args[1]
                if self.prog.nodes[cur].op == "insert" and self._inner_insert(cur):
                    chain.add(cur)
                elif self.prog.nodes[cur].op == "insert":
                    return None  # a shared partial chain: it stays live (and so does this one)
            if cur in self.covered:
                return None
            if len(written) < slots and not _is_zero(self.prog, cur):
                # slots kept from the base: the Place sum would need a ``Gather`` of it, which
                # only the slot rules make extractable (a schedule without them: no program)
                return None
        if len(written) < 2:
            return None
        known = self.chain_polys().get(top)
        if known is None:
            self._read_uniform = False
            polys: dict[int, Poly] = {}
            for slot, e in sorted(written.items()):
                p = self._poly(e, slot, slots, {})
                if p is None:
                    return None
                polys[slot] = p
            # per-slot coefficients of a template's zero-padded edges: the slot rules do better
            # on a short chain; on a long one, or with per-slot data, they lift every slot
            # (``_vector_chain_instead``, ``_per_slot_data``)
            vector = _shift_invariant(polys) or len(written) > SUMMARY_CHAIN_SLOTS or _per_slot_data(polys)
            aligned = self._align_nested(polys)  # (kept when not: the vector form beside the chain reads it)
            if not self._read_uniform:  # the same whenever asked (``chain_polys``)
                self.chain_polys()[top] = KnownChain(polys, aligned, self._nested, self._joined, vector)
        else:
            polys, aligned, vector = known.polys, known.aligned, known.vector
        if not vector:
            return None
        if len({m for p in aligned.values() for m in p if m}) > len(polys):
            return None  # no vector form (``_slots_form``): the chain is its slots
        # the element arithmetic: add/sub/neg/mul nodes and the reads of ``slots``-slot tensors
        reach: set[int] = set()
        stack = list(written.values())
        seen: set[int] = set() if n.op == "from_elements" else {cur}  # what was walked (``_early_covers``)
        while stack:
            x = stack.pop()
            if x in seen or x in results:
                continue
            seen.add(x)
            if x in self.covered:
                return None  # read by a summary or a canonical tree already
            node = self.prog.nodes[x]
            if node.op in ("add", "sub", "mul", "neg"):
                reach.add(x)
                stack.extend(node.args)
            elif node.op == "extract" and self.prog.nodes[node.args[0]].type.slots == slots \
                    and not self.prog.nodes[node.args[0]].type.is_scalar:
                reach.add(x)
        # keep live what something outside the chain reads (a fixpoint: its operands too)
        inner = chain - {top}
        changed = True
        while changed:
            changed = False
            for x in list(reach):
                if any(u not in reach and u not in chain for u in users.get(x, [])):
                    reach.discard(x)
                    changed = True
        self._walked = seen
        return reach | inner

    def chain_polys(self) -> dict[int, KnownChain]:
        """Chain top -> its slots' polynomials, aligned too (``KnownChain``), kept from the
        first ``_vector_chain_cover`` of the chain for the next one and for its vector form
        (``ChainVectorizer._vector_form``): the planning asks twice (``_vector_chain_instead``,
        then ``_plan_vector_chains``), and the polynomials of a 256-slot stencil were most of
        its loading. Kept only when no polynomial read a uniform scalar (``_uniform``), the one
        part that depends on what is covered or named so far; the rest is the program's."""
        if not hasattr(self, "_chain_polys"):
            self._chain_polys: dict[int, KnownChain] = {}
        return self._chain_polys

    def _uniform(self, e: int) -> Poly | None:
        self._read_uniform = True
        if getattr(self, "_planning", False):  # before emission: a scalar that will have a term
            node = self.prog.nodes[e]
            return {(("u", e),): 1} if node.type.is_scalar and e not in self.covered else None
        return super()._uniform(e)

    def _vector_chain(self, top: int) -> int:
        """The inert Place sum of a planned chain (``_plan_vector_chains``); its node id."""
        slots = self.prog.nodes[top].type.slots
        cover = self.vector_chains[top]
        written, _base = self._written_slots(top)
        built: dict[int, int] = {}
        parts = [self.node("Place", self._inert_elem(written[s], cover, built), s, slots) for s in sorted(written)]
        # every slot is written or the base is zero (``_vector_chain_cover``): no base part
        return self._balanced("AddI", parts)

    def _inert_elem(self, e: int, cover: set[int], built: dict[int, int]) -> int:
        """Element ``e`` with inert twins for the nodes of ``cover`` (others by their term)."""
        stack = [(e, False)]
        while stack:
            i, ready = stack.pop()
            if i in built:
                continue
            if i not in cover:
                built[i] = self.name[i]
                continue
            node = self.prog.nodes[i]
            if node.op == "extract":
                built[i] = self.node("ExtI", self.name[node.args[0]], int(node.attrs[0]))  # type: ignore[call-overload]
            elif not ready:
                stack.append((i, True))
                stack.extend((a, False) for a in node.args)
            else:
                built[i] = self.node(_TWINS[node.op], *[built[a] for a in node.args])
        return built[e]

    def _vector_form(self, top: int) -> int | None:
        form = super()._vector_form(top)
        if form is None and top in getattr(self, "vector_chains", {}):
            return self._vector_chain_failed(top)  # the live chain, unioned with the inert one
        return form

    def _vector_chain_failed(self, top: int) -> int:
        """A planned chain whose vector form failed after all: its covered nodes emitted live
        and its live Place sum (``_chain``); the caller unions it with the inert one."""
        cover = self.vector_chains.pop(top)
        self._uncover(sorted(cover))
        live = self._chain(top)
        assert live is not None  # a planned chain writes at least two slots
        return live


def _shift_invariant(polys: dict[int, Poly]) -> bool:
    """Every written slot holds the same polynomial of reads relative to the slot (one
    template): the vector form is that template on whole vectors, with no mask. A
    form with per-slot coefficients (a zero-padded stencil's edges) is left beside the live
    source: there the slot rules find masked sharing the form lacks (a zero-padded Sobel
    magnitude 4x4: 6 rotations with the source live, 8 from the form alone) -- up to
    ``SUMMARY_CHAIN_SLOTS`` written slots, the bound below which summaries leave chains to
    the slot rules too."""
    first = next(iter(polys.values()), None)
    if first is None:
        return False
    return all(p == first for p in polys.values())


#: the most monomials ``_expanded`` makes of one slot's polynomial (beyond: undecided, and
#: the chain is left as before)
EXPAND_MAX_TERMS = 4096


def _per_slot_data(polys: dict[int, Poly]) -> bool:
    """The chain carries per-slot data (a dense tensor read at the slot, a per-slot constant),
    not one template with zero-padded edges: in the slots' polynomials with their nested sums
    multiplied out (``_expanded``), a monomial holds two different nonzero coefficients in two
    slots, or the constant term differs between slots. Zero padding sets the reads past the
    border to 0, which deletes the monomials holding them and leaves every other coefficient
    as the template has it (the constant term in every slot). With per-slot data the slot rules
    share nothing between slots: they lift each one to whole-vector terms and align it with
    the rotations of the others (slot-uniform seed 166, ``dense0[i] * x0[i+1] + (x1[i-3] -
    x2[i-1]) - 4`` zero-padded on 49 slots: 44,000 e-nodes after 16 iterations and 12 s, where
    its vector form, complete at load, has 3 rotations; seed 47 of sizes up to 64, ``x0[i+3] *
    x0[i-3] * dense0[i]`` on 26 slots: 23,500 e-nodes in 6 s; seed 634, the dense tensor inside
    a product's sum, wrapping on 12 slots: 734,000 e-nodes in one iteration), so the chain
    loads as that form with the source inert."""
    seen: dict[Mono, int | float] = {}
    constant: set[int | float] = set()
    for p in polys.values():
        flat = _expanded(p)
        if flat is None:
            return False
        constant.add(flat.get((), 0))
        for m, c in flat.items():
            if seen.setdefault(m, c) != c:
                return True
    return len(constant) > 1


def _expanded(p: Poly) -> Poly | None:
    """``p`` with its nested sums (``("s", key)`` atoms) multiplied out: a polynomial over
    reads and uniform scalars alone; None past ``EXPAND_MAX_TERMS`` monomials."""
    out: Poly = {}
    for m, c in p.items():
        terms: Poly = {(): c}
        for a in m:
            factor = _expanded(dict(a[1])) if a[0] == "s" else {(a,): 1}
            if factor is None:
                return None
            prod: Poly = {}
            for x, cx in terms.items():
                for y, cy in factor.items():
                    k = tuple(sorted(x + y, key=repr))
                    prod[k] = prod.get(k, 0) + cx * cy
            terms = prod
            if len(terms) > EXPAND_MAX_TERMS:
                return None
        for k, v in terms.items():
            out[k] = out.get(k, 0) + v
        if len(out) > EXPAND_MAX_TERMS:
            return None
    return {k: v for k, v in out.items() if v}
