"""Load-time summaries: long sums of slots and long chains of linear forms as O(groups) terms.

In: the ``Program`` being loaded (through ``Summaries``, a base of ``Loader``). Out: summary
rows unioned beside an inert source form (``AddI``, ``SubI``, ``MulI``, ``NegI``, ``ExtI``:
extraction reads them as the originals, no rewrite matches them):

* an insertion chain of more than ``SUMMARY_CHAIN_SLOTS`` slots whose elements are linear
  forms of extracted slots: element ``i`` of ``sum_j c_j v[j]`` is slot ``i`` of
  ``LinRot(v, sum_j c_j rho^(j - i))``, and slots with the same polynomial share one
  ``Gather`` (a chain with other elements too is left to ``eqsat.egraph.vector_chains``
  when its vector form states every slot: a summary keeps those elements live);
* a sum of more than ``BALANCED_ONLY_LEAVES`` slots of one vector as
  ``Ext(LinRot(v, p), 0)``; a smaller one (``SUMMARY_SUM_SLOTS`` slots or more, integer
  constants beside them, not a chain's element; also linear forms of slots only the sum
  reads, and slot reads of trees of vector sums and rotations) as its realization at load
  alone, when there is one (``Summaries._one_vector_sum``);
* a sum of polynomials of slot reads (a dot product) of more than ``BALANCED_ONLY_LEAVES``
  terms, or a returned one of ``SUMMARY_SUM_SLOTS`` or more (one template), as its template
  reduction (``_realized_template_sum`` of ``eqsat.egraph.vectorize``): its terms and, for a
  short sum, its partial sums are not loaded when that is realized, and load as before when
  it is not.

So the rules work on O(groups) e-nodes instead of O(slots), and the inert source remains a
fallback when no summary can be realized.
"""

from __future__ import annotations

from eqsat.algebra import rotpoly
from eqsat.algebra.slot_keys import dense_key, set_key
from eqsat.egraph import linrot_load, prodrot_load
from eqsat.egraph.canonical import BALANCED_ONLY_LEAVES, CanonicalForms
from eqsat.egraph.linrot_load import DryRun, RowRealizer
from eqsat.egraph.rotation_trees import RotationTree, interior_forms, rotation_tree
from eqsat.ir import Program

CONST_TERM = (-1, 0)  # the key of a linear form's constant term (``Summaries._linear_form``)
# longer chains of linear forms load as summaries (Summaries._plan_summaries); up to 64 slots the
# rules vectorize slot by slot, which finds shared rotations the summaries' factorizations
# miss (HEIR's rank-2 gx 8x8: 4 rotations slot by slot, 6 from the summary)
SUMMARY_CHAIN_SLOTS = 64
#: a sum of at least this many slots of one vector (and integer constants) loads as its
#: realized summary (``Summaries._one_vector_sum``): the smallest sum the balanced form
#: rewrites (``eqsat.egraph.canonical``)
SUMMARY_SUM_SLOTS = 3
#: at most this many steps for one slot read through a tree of rotations and sums
#: (``Summaries._read_through``); a bigger tree's read is left to the rules
READ_THROUGH_STEPS = 4096


class Summaries(CanonicalForms):
    """Plans and emits the summaries of the program being loaded."""

    def __init__(self, prog: Program) -> None:
        super().__init__(prog)
        #: the dry runs of this load's realizations, by constructor, slot count and key (``_dry_run``)
        self._dry_runs: dict[tuple[str, int, str], DryRun] = {}
        #: the key of each interior form of a rotation tree (slot count, its terms in their
        #: order) this load (``_rotation_tree``): a sum and a product of one shape (the 32-slot
        #: sum-and-product) have the same forms, and their keys took a third of the emission
        self._form_keys: dict[tuple[int | tuple[int, int], ...], str] = {}
        #: ``_walk_through`` of each (vector, slot) asked this load (``_read_through``)
        self._through_memo: dict[tuple[int, int], tuple[dict[tuple[int, int], int], list[int], set[int]] | None] = {}

    def _dry_run(self, realizer: type[RowRealizer], n: int, key: str) -> DryRun:
        """The realization at load of ``key`` over ``n`` slots by ``realizer``, run once per
        load without writing (``linrot_load.DryRun``): the planning asks whether it is realized,
        the emission replays it over its base."""
        ident = (realizer.OP, n, key)
        run = self._dry_runs.get(ident)
        if run is None:
            run = self._dry_runs[ident] = DryRun.of(realizer, n, key)
        return run

    def _realize_row(self, realizer: type[RowRealizer], n: int, base: int, key: str) -> tuple[int, bool]:
        """The row ``OP(base, key)`` realized at load: its dry run's replay when the planning
        ran one (the same rows and unions), else realized here; its node id, whether realized."""
        run = self._dry_runs.get((realizer.OP, n, key))
        if run is not None:
            return run.replay(self, base), run.ok
        return realizer(self, n).row(base, key)

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

    def _realized_sum_summary(self, pos: list[int], neg: list[int]) -> int | None:
        """A summarized sum (``summarized_sums``) as ``Ext(LinRot(v, p), 0)`` realized at load
        (``eqsat.egraph.linrot_load``), or None when the rules find no realization there: then
        the caller loads the inert source beside the summary (``_slot_sum_summary``). A
        realized summary needs no inert twin: the source program itself stays the fallback of
        the whole call (``eqsat.pipeline.optimize`` never returns something costlier), and
        the twin was most of the e-graph (16,383 ``AddI`` and 16,384 ``ExtI`` for a
        16,384-slot sum) that every stage after saturation walked."""
        form = self._sum_poly(pos, neg)
        if form is None:
            return None
        vectors, key, const = form
        base = self._balanced("Add", [self.name[v] for v in vectors])
        lin, ok = self._realize_row(linrot_load.Realizer, self.prog.nodes[vectors[0]].type.slots, base, key)
        if not ok:
            return None
        out = self.node("Ext", lin, 0)
        return out if const == 0 else self.node("Add", out, self.node("Num", const, 1))

    def _sum_poly(self, pos: list[int], neg: list[int]) -> tuple[list[int], str, int] | None:
        """A sum of slots of vectors and integer constants (``_one_vector_sum``) whose
        vectors all have one polynomial ``p`` as ``(vectors, key of p, c)``: the sum is
        ``LinRot(v1 + ... + vk, p)[0] + c`` (``lin-pull-add``, at load); None when the
        polynomials differ, ``p`` is 0, or a vector is a constant."""
        polys: dict[int, dict[int, int]] = {}
        const = 0  # the integer constant leaves (HEIR's loops start their sums at 0)
        for sign, leaves in ((1, pos), (-1, neg)):
            for leaf in leaves:
                n = self.prog.nodes[leaf]
                c = self._int_const(leaf) if n.op != "extract" else None
                if c is not None:
                    const += sign * c
                    continue
                if n.op != "extract" or self._reads_tree(leaf):  # a scaled sum of slots (``_scaled_slots``)
                    lin = self._scaled_slots(leaf)
                    if lin is None:
                        return None
                    for (v, k), c in lin[0].items():
                        if (v, k) == CONST_TERM:
                            const += sign * c
                        else:
                            q = polys.setdefault(v, {})
                            q[k] = q.get(k, 0) + sign * c
                    continue
                poly = polys.setdefault(n.args[0], {})
                k = int(n.attrs[0])  # type: ignore[call-overload]
                poly[k] = poly.get(k, 0) + sign
        vectors = sorted(polys)
        slots = {self.prog.nodes[v].type.slots for v in vectors}
        if len(slots) != 1 or any(self.prog.nodes[v].op in ("const", "empty") for v in vectors):
            return None
        n_slots = slots.pop()
        keys = {rotpoly.key(rotpoly.normalize(p, n_slots), n_slots) for p in polys.values()}
        if len(keys) != 1 or "0" in keys:
            return None
        return vectors, keys.pop(), const

    def _plan_rotation_trees(self, absorbed: set[int]) -> None:
        """Vector sums (products) over rotations of one vector with at least
        ``SUMMARY_SUM_SLOTS`` terms (``eqsat.egraph.rotation_trees``) that the load-time
        realization realizes: their realized ``LinRot`` (``ProdRot``) is unioned beside the
        source tree, and each interior step with its own ``LinRot`` (``ProdRot``,
        ``_rotation_tree``), so the rules find the chain's polynomials (offset sets) at load
        instead of one source step per iteration (HEIR's 17-rotation linear chain of 32 slots:
        32 -> 8 iterations; the sum-and-product of 32 slots: 33 -> 10). Products were left
        out while the product rule also merged the realizations' own rotations: the sets
        realized at load made it the costliest rule, and the run slower; it now fires on
        source rotations only, as ``lin-rot`` (both eager, ``RuleFamily.rule``). The source
        stays live: loaded alone,
        the realization lost what the rules find from the source's own rotations (HEIR's
        duplicated-rotation sum read at slot 1: 4 rotations instead of 2; the sum-and-product
        of 32 slots: 10 instead of 9)."""
        self.rotation_trees: dict[int, RotationTree] = {}
        users = self._users()
        self.product_trees: set[int] = set()
        for i in self.prog.live():
            n = self.prog.nodes[i]
            product = n.op == "mul"
            if n.type.is_scalar or n.op not in ("add", "sub", "mul") or i in absorbed or i in self.covered:
                continue
            inside = ("mul", "rotate") if product else ("add", "sub", "neg", "rotate", "mul")
            if self._single_use(i) and self.prog.nodes[users[i][0]].op in inside:
                continue  # inside a larger tree
            tree = rotation_tree(self.prog, i, self._single_use, product=product)
            if tree is None or tree.rotations == 0 or len(tree.terms) < SUMMARY_SUM_SLOTS:
                continue
            if any(x in absorbed or x in self.covered for x in tree.interior):
                continue
            slots = n.type.slots
            key = rotpoly.key(tree.terms, slots)
            if product:
                if self._dry_run(prodrot_load.ProdRealizer, slots, key).ok:
                    self.rotation_trees[i] = tree
                    self.product_trees.add(i)
            elif self._dry_run(linrot_load.Realizer, slots, key).ok:
                self.rotation_trees[i] = tree

    def _rotation_tree(self, i: int) -> int:
        """The planned rotation tree at ``i`` (``_plan_rotation_trees``), realized; its node."""
        tree = self.rotation_trees[i]
        slots = self.prog.nodes[i].type.slots
        v = self.name[tree.base]
        product = i in self.product_trees
        op = "ProdRot" if product else "LinRot"
        keys = self._form_keys
        for j, terms in interior_forms(self.prog, tree, product=product).items():
            # each step of the chain as its polynomial (offset set) too: the rules that would
            # derive them one step per iteration (``lin-rot`` with ``lin-add``, ``prod-rot``
            # with ``prod-merge``) find them present
            form: tuple[int | tuple[int, int], ...] = (slots, *terms.items())
            key = keys.get(form)
            if key is None:
                key = keys[form] = rotpoly.key(terms, slots)
            self.unions.append((self.name[j], self.node(op, v, key, slots)))
        key = rotpoly.key(tree.terms, slots)
        realizer = prodrot_load.ProdRealizer if product else linrot_load.Realizer
        return self._realize_row(realizer, slots, v, key)[0]

    def _prod_set(self, factors: list[int]) -> tuple[int, str, int] | None:
        """A product of distinct slots of one vector and integer constants as ``(v, key of
        S, c)``: the product is ``ProdRot(v, S)[0] * c``; None for any other product."""
        v: int | None = None
        offsets: set[int] = set()
        const = 1
        for x in factors:
            n = self.prog.nodes[x]
            if n.op == "extract" and self.prog.nodes[n.args[0]].op not in ("const", "empty"):
                k = int(n.attrs[0])  # type: ignore[call-overload]
                if (v is not None and n.args[0] != v) or k in offsets:
                    return None  # two vectors, or a slot twice (a power: not a ProdRot set)
                v = n.args[0]
                offsets.add(k)
                continue
            c = self._int_const(x)
            if c is None:
                return None
            const *= c
        if v is None or const == 0:
            return None
        slots = self.prog.nodes[v].type.slots
        return v, rotpoly.key({k % slots: 1 for k in offsets}, slots), const

    def _one_vector_product(self, root: int, factors: list[int]) -> bool:
        """Whether a product tree with leaves ``factors`` loads as its realization at load
        alone (``_realized_prod_summary``): at least ``SUMMARY_SUM_SLOTS`` distinct slots of
        one vector times integer constants, no chain element (as ``_one_vector_sum``), and
        the product rules realize its ``ProdRot`` (``eqsat.egraph.prodrot_load``)."""
        if sum(self.prog.nodes[x].op == "extract" for x in factors) < SUMMARY_SUM_SLOTS:
            return False  # checked first: cheaper than the set's key (a stencil's pixel * weight)
        form = self._prod_set(factors)
        if form is None or root in self._chain_elems:
            return False
        v, key, _ = form
        return self._dry_run(prodrot_load.ProdRealizer, self.prog.nodes[v].type.slots, key).ok

    def _realized_prod_summary(self, factors: list[int]) -> int | None:
        """A summarized product (``summarized_prods``) as ``Ext(ProdRot(v, S), 0)`` (times its
        constant), realized at load; None when it is not (then the balanced tree loads)."""
        form = self._prod_set(factors)
        if form is None:
            return None
        v, key, const = form
        row, ok = self._realize_row(prodrot_load.ProdRealizer, self.prog.nodes[v].type.slots, self.name[v], key)
        if not ok:
            return None
        out = self.node("Ext", row, 0)
        return out if const == 1 else self.node("Mul", out, self.node("Num", const, 1))

    def _summarized_chain(self, written: dict[int, int], base_parts: list[int], slots: int) -> int:
        """A long chain whose elements are linear forms of slots: the gathers of the linear
        forms (``_plan_summaries``), realized at load (``eqsat.egraph.linrot_load``); when
        some gather finds no realization there, its source form with inert elements is loaded
        too and unioned with them. (A realized chain needs no inert twin, as a realized sum:
        ``_realized_sum_summary``; the twin of a 128x128 box blur was 150,000 e-nodes.)"""
        source: list[int | tuple[int, int]] = list(base_parts)  # (element, slot): its inert form, if needed
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
            source.append((e, slot))
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
        realizer = linrot_load.Realizer(self, slots)
        realized = True
        for (v, key), sel in groups.items():
            lin = self.node("LinRot", self.name[v], key, slots)
            if self.prog.nodes[v].op in ("const", "empty"):  # the rules' guard: a base that varies
                summary.append(self.node("Gather", lin, 0, set_key(sel), slots))
                realized = False
                continue
            gather, ok = realizer.gather(lin, self.name[v], key, 0, set_key(sel))
            summary.append(gather)
            realized = realized and ok
        if any(consts.values()):
            summary.append(self.node("Dense", dense_key(tuple(consts.get(j, 0) for j in range(slots))), slots))
        if realized and summary:
            top = self._balanced("Add", summary)
            if len(summary) == 1 and len(groups) == 1 and len(next(iter(groups.values()))) == slots:
                # every slot holds one relative linear form of one vector: the vector form
                # (``eqsat.egraph.vectorize``) would be this very ``LinRot``, read slot by slot
                self.uniform_chains.add(top)
            return top
        parts = [x if isinstance(x, int) else self.node("Place", self._inert_tree(x[0]), x[1], slots) for x in source]
        top = self._balanced("AddI", parts)
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
        * a sum of slots of one vector and integer constants (``_one_vector_sum``).
        Their interiors and the extracts only they use are not loaded as live terms:
        the rules work on the summaries (O(groups) e-nodes, not O(slots)), and the
        inert source stays extractable when a summary finds nothing better.

        The chains are planned first: a chain not summarized that loads as its vector form
        (``_vector_chain_elems``) gets no sum or product summary inside its elements, whose
        covered interior would hide the chain from that form (``eqsat.egraph.vector_chains``).
        """
        self.linear: dict[int, dict[tuple[int, int], int]] = {}
        self.summarized_chains: set[int] = set()
        self.summarized_sums: set[int] = set()
        self.summarized_prods: set[int] = set()
        self.uniform_chains: set[int] = set()  # realized summaries of one shift-invariant form
        self.template_sums: set[int] = set()
        leaves: set[int] = set()
        absorbed: set[int] = set(self.covered)
        self._chain_elems = {a for j in self.prog.live() for a in self._chain_args(j)}
        # the chains first: the element arithmetic of a chain left to its vector form
        # (``vector_elems``) is no sum or product summary's (below)
        vector_elems: set[int] = set()
        for i in self.prog.live():
            n = self.prog.nodes[i]
            if n.op == "from_elements" or (n.op == "insert" and not self._inner_insert(i)):
                elems = self._chain_elements(i)
                if len(elems) <= SUMMARY_CHAIN_SLOTS:
                    vector_elems |= self._vector_chain_elems(i) or set()
                    continue
                forms = {e: self._linear_form(e) for e in elems}
                linear = {e: f for e, f in forms.items() if f is not None and all(
                    self.prog.nodes[v].type.slots == n.type.slots for v, _ in f[0] if (v, _) != CONST_TERM)}
                if len(linear) < len(forms):
                    instead = self._vector_chain_instead(i, [e for e in forms if e not in linear])
                    if instead is not None:
                        vector_elems |= instead
                        continue  # elements beyond linear forms, all one template: its vector form states them
                found = False
                for e, form in linear.items():
                    self.linear[e], found = form[0], True
                    absorbed.update(form[1])
                    leaves.update(form[2])
                    if self.prog.nodes[e].op != "extract":
                        # an element another element extends (a builder sharing partial
                        # sums) stays loaded while something outside the summaries reads it
                        (absorbed if self._single_use(e) else leaves).add(e)
                if found:
                    self.summarized_chains.add(i)
                    absorbed.add(i)
                else:
                    vector_elems |= self._vector_chain_elems(i) or set()
        for i in self.prog.live():
            n = self.prog.nodes[i]
            if i in vector_elems:
                # inside a chain's element that its vector form states (``_vector_chain_elems``):
                # a summary here covered that element's interior and hid the chain from its
                # vector form (a self-cancelling ``x1[i] - x1[i]`` made a sub-sum of three slot
                # reads, ``(x1[i-3] + d[i]) - (x1[i] - x1[i])``, a realized one-vector sum;
                # slot-uniform seed 104793: 269 extracts, 135 inserts)
                continue
            if n.op in ("add", "sub") and not self._inner(i, ("add", "sub", "neg")):
                pos, neg, interior = self._sum_tree(i)
                if self._one_vector_sum(i, pos, neg):
                    self.summarized_sums.add(i)
                    absorbed.add(i)
                    absorbed.update(interior)  # a small tree's interior is not covered yet
                    leaves.update(x for x in pos + neg if self.prog.nodes[x].op == "extract")
                    for x in pos + neg:  # scaled sums of slots, read by this sum alone
                        plain = self.prog.nodes[x].op == "extract" and not self._reads_tree(x)
                        scaled = None if plain else self._scaled_slots(x)
                        if scaled is not None:
                            absorbed.update(scaled[1])
                            leaves.update(scaled[2])
                elif len(pos) + len(neg) > BALANCED_ONLY_LEAVES or (
                        len(pos) + len(neg) >= SUMMARY_SUM_SLOTS and i in self.prog.results
                        and i not in self._chain_elems):
                    # (a short one only as a result: inside a chain's element its covered
                    # terms hid the element from the chain's vector form; slot-uniform seed 6520024)
                    self.template_sums.add(i)  # a sum of slot templates? (``_realized_template_sum``)
            elif n.op == "mul" and not self._inner(i, ("mul",)):
                factors, interior = self._prod_tree(i)
                if self._one_vector_product(i, factors):
                    self.summarized_prods.add(i)
                    absorbed.add(i)
                    absorbed.update(interior)
                    leaves.update(x for x in factors if self.prog.nodes[x].op == "extract")
        self._plan_rotation_trees(absorbed)
        # the interiors of linear elements, and the extracts nothing else reads
        for e, _ in self.linear.items():
            if self.prog.nodes[e].op != "extract" and self._single_use(e):
                self.covered.add(e)
        self.covered.update(x for x in absorbed if x not in self.summarized_chains and x not in self.summarized_sums
                            and x not in self.summarized_prods
                            and self.prog.nodes[x].op in ("add", "sub", "neg", "mul", "rotate"))
        users = self._users()
        results = set(self.prog.results)
        # shared nodes and leaves: covered when every user is (a fixpoint: x[j] under x[j] * w)
        # (never a chain's element that is no linear form: the summarized chain places it as
        # it is -- a zero-padded edge slot's constant dense0[0] - 7, hash-consed with the same
        # constant inside another slot's linear form, was covered and had no term; seed 76379)
        pending = {x for x in leaves if x not in results and not (x in self._chain_elems and x not in self.linear)}
        changed = True
        while changed:
            changed = False
            for x in list(pending):
                if all(u in absorbed or u in self.covered for u in users.get(x, [])):
                    self.covered.add(x)
                    pending.discard(x)
                    changed = True
        # the terms of a template sum, where nothing else reads them: not loaded when the sum
        # is realized (``_realized_template_sum``), emitted after all when it is not (``_uncover``)
        self.template_cover: dict[int, list[int]] = {}
        self.template_sums -= absorbed | self.covered  # inside a summarized chain: never emitted
        for i in self.template_sums:
            pos, neg, interior = self._sum_tree(i)
            # a small tree's interior is loaded live otherwise (a large one's is covered already)
            sub: set[int] = set(interior) if len(pos) + len(neg) <= BALANCED_ONLY_LEAVES else set()
            stack = pos + neg
            while stack:
                x = stack.pop()
                op = self.prog.nodes[x].op
                if x in sub or op not in ("add", "sub", "mul", "neg", "extract", "const"):
                    continue
                sub.add(x)
                if op in ("add", "sub", "mul", "neg"):
                    stack.extend(self.prog.nodes[x].args)
            newly: list[int] = []
            for x in sorted(sub, reverse=True):  # users before what they read
                if x not in results and x not in self.covered and all(
                        u == i or u in self.covered for u in users.get(x, [])):
                    self.covered.add(x)
                    newly.append(x)
            self.template_cover[i] = newly

    def _reads_tree(self, x: int) -> bool:
        """Whether ``x`` is a slot read of a tree ``_read_through`` reads through."""
        n = self.prog.nodes[x]
        return n.op == "extract" and self._read_through(n.args[0], int(n.attrs[0])) is not None  # type: ignore[call-overload]

    def _read_through(self, vec: int, j: int) -> tuple[dict[tuple[int, int], int], list[int]] | None:
        """Slot ``j`` of ``vec`` when ``vec`` is a tree of vector add/sub/neg and rotations by
        constants (``(rot(v, 1) + rot(v, 2))[0] = v[1] + v[2]``): ({(base, slot): c}, the
        tree's nodes that only it reads, from ``vec`` down: a sum may absorb those); None
        for any other vector, or a base that is a constant or covered. The caller must not
        change the answer: the walk is made once per load (``_walk_through``, asked four
        times for one slot of the 32-slot sum-and-product), only the covered bases checked
        again (the nodes covered change while the load plans)."""
        if self.prog.nodes[vec].op not in ("add", "sub", "neg", "rotate"):
            return None  # no tree (most slot reads: asked first, before the memo)
        memo = self._through_memo
        if (vec, j) in memo:
            walk = memo[(vec, j)]
        else:
            walk = memo[(vec, j)] = self._walk_through(vec, j)
        if walk is None:
            return None
        terms, nodes, bases = walk
        covered = self.covered
        if any(x in covered for x in bases):
            return None
        return terms, nodes

    def _walk_through(self, vec: int, j: int) -> tuple[dict[tuple[int, int], int], list[int], set[int]] | None:
        """``_read_through`` with its bases (the leaves of the tree) and whether they are
        covered not checked: (terms, nodes, bases), or None."""
        through = ("add", "sub", "neg", "rotate")
        nodes_of = self.prog.nodes
        if nodes_of[vec].op not in through:
            return None
        slots = nodes_of[vec].type.slots
        terms: dict[tuple[int, int], int] = {}
        nodes: list[int] = []
        bases: set[int] = set()
        single_use = self._single_use
        stack = [(vec, j, 1, single_use(vec))]
        budget = READ_THROUGH_STEPS  # a DAG is walked as a tree: x + x, doubled 60 times, has 2^60 paths
        while stack:
            budget -= 1
            if budget < 0:
                return None
            x, at, c, own = stack.pop()
            m = nodes_of[x]
            op = m.op
            if op not in through:
                if op in ("const", "empty") or m.type.slots != slots:
                    return None
                bases.add(x)
                key = (x, at % slots)
                terms[key] = terms.get(key, 0) + c
                continue
            if own:
                nodes.append(x)
            if op == "rotate":
                kids = [(m.args[0], at + int(m.attrs[0]), c)]  # type: ignore[call-overload]
            elif op == "neg":
                kids = [(m.args[0], at, -c)]
            else:
                kids = [(m.args[0], at, c), (m.args[1], at, c if op == "add" else -c)]
            stack.extend((y, a, d, own and single_use(y)) for y, a, d in kids)
        return terms, nodes, bases

    def _scaled_slots(self, x: int) -> tuple[dict[tuple[int, int], int], list[int], list[int]] | None:
        """A leaf of a sum that is itself a linear form of slots (``(x0 + x1) * 2``:
        ``_linear_form``) read by that sum alone, every node under it single-use and every
        slot of a vector that is no constant: (form, interior, extracts); else None."""
        if not self._single_use(x):
            return None
        lf = self._linear_form(x, through=True)
        if lf is None:
            return None
        form, interior, leaves = lf
        for y in leaves:
            n = self.prog.nodes[y]
            if n.op != "extract" or self.prog.nodes[n.args[0]].op in ("const", "empty"):
                return None  # a shared interior node, or a constant's slot
        return form, [x, *interior], leaves

    def _one_vector_sum(self, root: int, pos: list[int], neg: list[int]) -> bool:
        """Whether a sum with signed leaves ``pos``, ``neg`` loads as its summary, realized
        (``_realized_sum_summary``): its leaves are at least ``SUMMARY_SUM_SLOTS`` slots of
        one vector (a ciphertext: a constant's sum folds), or of several vectors read by one
        polynomial (four 32-slot sums added: one reduction of the vectors' sum), integer
        constants, and linear forms of slots that only this sum reads (``(x0 + x1) * 2``,
        ``_scaled_slots``, and slot reads of a sum of rotations, ``_read_through``: such a
        sum is always checked by the dry run below), and, up to ``BALANCED_ONLY_LEAVES``
        leaves of one vector (always for several), the load-time realization realizes it (else the
        balanced tree loads live, as before: the rules realize its partial sums, e.g. three
        slots read at 4, 11 and 15) and it is no element of an insertion chain (the chain's
        vector form reads its elements' source: box blur 8x8 grew 842 -> 5,423 e-nodes with
        its 64 sums summarized). Through saturation the rules rebuild that summary from
        the balanced tree one level per few iterations, and on an 8-slot sum starting from 0
        their rotation and reduction rules kept adding terms up to the iteration limit."""
        srcs: set[int] = set()
        slots = 0
        scaled = False
        for x in pos + neg:
            n = self.prog.nodes[x]
            plain = n.op == "extract" and not self._reads_tree(x)
            if plain and self.prog.nodes[n.args[0]].op not in ("const", "empty"):
                srcs.add(n.args[0])
                slots += 1
            elif self._int_const(x) is None:
                lin = self._scaled_slots(x)
                if lin is None:
                    return False
                terms = [k for k in lin[0] if k != CONST_TERM]
                srcs.update(v for v, _ in terms)
                slots += len(terms)
                scaled = True
        if not srcs or slots < SUMMARY_SUM_SLOTS:
            return False
        if len(srcs) == 1 and len(pos) + len(neg) > BALANCED_ONLY_LEAVES and not scaled:
            return True  # the inert source loads beside a summary that finds no realization
        if root in self._chain_elems:
            return False  # a chain's element: vectorized with its chain (``eqsat.egraph.vector_chains``)
        form = self._sum_poly(pos, neg)
        if form is None:
            return False
        vectors, key, _ = form
        return self._dry_run(linrot_load.Realizer, self.prog.nodes[vectors[0]].type.slots, key).ok

    def _vector_chain_instead(self, top: int, others: list[int]) -> set[int] | None:
        """The nodes the vector form of the long chain topped at ``top`` covers when it loads
        as that form instead of a summary (its elements ``others`` are no linear forms); None
        here: no chain loads as its vector form (``eqsat.egraph.vector_chains``)."""
        return None

    def _vector_chain_elems(self, top: int) -> set[int] | None:
        """The nodes the chain topped at ``top``, not summarized, covers when it loads as its
        vector form (as planned before any summary), or None; None here (``eqsat.egraph.vector_chains``)."""
        return None

    def _uncover(self, nodes: list[int]) -> None:
        """Emit ``nodes`` (covered for a template sum that found no realization) after all."""
        self.covered.difference_update(nodes)
        for x in sorted(nodes):
            self._emit_with_args(x)

    def _emit_with_args(self, x: int) -> None:
        """Emit ``x`` and, first, what it reads that is not emitted yet: a term covered for
        another template sum too (``x[i] * y`` read by two sums' trees is covered once both
        trees' interiors are, and listed under the second sum only)."""
        stack = [x]
        while stack:
            y = stack[-1]
            if y in self.name:
                stack.pop()
                continue
            missing = [a for a in self.prog.nodes[y].args if a not in self.name]
            if missing:
                self.covered.difference_update(missing)
                stack.extend(missing)
                continue
            stack.pop()
            self._emit(y)  # type: ignore[attr-defined]

    def _chain_args(self, j: int) -> list[int]:
        """The elements node ``j`` writes into a vector (an insert's scalar, ``from_elements``'s)."""
        n = self.prog.nodes[j]
        return [n.args[0]] if n.op == "insert" else list(n.args) if n.op == "from_elements" else []

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

    def _linear_form(self, e: int, through: bool = False) -> tuple[dict[tuple[int, int], int], list[int],
                                                                       list[int]] | None:
        """``e`` as ``c0 + sum c * v[j]`` over single-use add/sub/neg/mul-by-integer nodes:
        ({(v, j): c, CONST_TERM: c0}, single-use interior nodes, extract leaves and shared
        interior nodes), or None. ``through``: a slot read of a tree of vector sums and rotations
        reads its bases' slots (``_read_through``; the tree's single-use nodes are interior)."""
        form: dict[tuple[int, int], int] = {}
        interior: list[int] = []
        leaves: list[int] = []
        # ``under``: reached through a shared node, which stays loaded for its other readers,
        # and with it everything below it: such a node is no interior of ``e`` even when single-use
        # (slot-uniform seed 2675: ``(8 - 5) * 3`` read by 153 elements, its ``8 - 5`` covered
        # as an element's interior while the product that reads it was loaded)
        stack = [(e, 1, False)]
        while stack:
            i, c, under = stack.pop()
            n = self.prog.nodes[i]
            value = self._int_const(i)
            if value is not None:  # an additive constant (HEIR's loops start their sums at 0)
                form[CONST_TERM] = form.get(CONST_TERM, 0) + c * value
                continue
            if n.op == "extract":
                read = self._read_through(n.args[0], int(n.attrs[0])) if through else None  # type: ignore[call-overload]
                if read is None and n.args[0] in self.covered:
                    return None
                if read is not None:  # (its tree is covered once planned: read through it still)
                    for key, d in read[0].items():
                        form[key] = form.get(key, 0) + c * d
                    interior.extend(read[1])
                else:
                    key = (n.args[0], int(n.attrs[0]))  # type: ignore[call-overload]
                    form[key] = form.get(key, 0) + c
                leaves.append(i)
                continue
            shared = under or (i != e and not self._single_use(i))  # e.g. x[j] * w read by three slots
            if n.op in ("add", "sub"):
                stack.append((n.args[0], c, shared))
                stack.append((n.args[1], c if n.op == "add" else -c, shared))
            elif n.op == "neg":
                stack.append((n.args[0], -c, shared))
            elif n.op == "mul":
                consts = [a for a in n.args if self._int_const(a) is not None]
                if len(consts) != 1:
                    return None
                other = n.args[1] if consts[0] == n.args[0] else n.args[0]
                stack.append((other, c * self._int_const(consts[0]), shared))  # type: ignore[operator]
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
