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
  ``Ext(LinRot(v, p), 0)``.

So the rules work on O(groups) e-nodes instead of O(slots), and the inert source remains a
fallback when no summary can be realized.
"""

from __future__ import annotations

from eqsat.algebra import rotpoly
from eqsat.algebra.slot_keys import dense_key, set_key
from eqsat.egraph import linrot_load
from eqsat.egraph.canonical import BALANCED_ONLY_LEAVES, CanonicalForms

CONST_TERM = (-1, 0)  # the key of a linear form's constant term (``Summaries._linear_form``)
# longer chains of linear forms load as summaries (Summaries._plan_summaries); up to 64 slots the
# rules vectorize slot by slot, which finds shared rotations the summaries' factorizations
# miss (HEIR's rank-2 gx 8x8: 4 rotations slot by slot, 6 from the summary)
SUMMARY_CHAIN_SLOTS = 64


class Summaries(CanonicalForms):
    """Plans and emits the summaries of the program being loaded."""

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
        src = {self.prog.nodes[x].args[0] for x in pos + neg}
        v = src.pop()
        if self.prog.nodes[v].op in ("const", "empty"):
            return None
        slots = self.prog.nodes[v].type.slots
        poly: dict[int, int] = {}
        for sign, leaves in ((1, pos), (-1, neg)):
            for leaf in leaves:
                k = int(self.prog.nodes[leaf].attrs[0])  # type: ignore[call-overload]
                poly[k] = poly.get(k, 0) + sign
        p = rotpoly.normalize(poly, slots)
        if not p:
            return None
        key = rotpoly.key(p, slots)
        realizer = linrot_load.Realizer(self, slots)
        lin, ok = realizer.linrot(self.name[v], key)
        return self.node("Ext", lin, 0) if ok else None

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
        * a sum of more than ``BALANCED_ONLY_LEAVES`` slots of one vector
          (``_slot_sum_summary``).
        Their interiors and the extracts only they use are not loaded as live terms:
        the rules work on the summaries (O(groups) e-nodes, not O(slots)), and the
        inert source stays extractable when a summary finds nothing better.
        """
        self.linear: dict[int, dict[tuple[int, int], int]] = {}
        self.summarized_chains: set[int] = set()
        self.summarized_sums: set[int] = set()
        self.uniform_chains: set[int] = set()  # realized summaries of one shift-invariant form
        self.template_sums: set[int] = set()
        leaves: set[int] = set()
        absorbed: set[int] = set(self.covered)
        for i in self.prog.live():
            n = self.prog.nodes[i]
            if n.op == "from_elements" or (n.op == "insert" and not self._inner_insert(i)):
                elems = self._chain_elements(i)
                if len(elems) <= SUMMARY_CHAIN_SLOTS:
                    continue
                forms = {e: self._linear_form(e) for e in elems}
                linear = {e: f for e, f in forms.items() if f is not None and all(
                    self.prog.nodes[v].type.slots == n.type.slots for v, _ in f[0] if (v, _) != CONST_TERM)}
                if len(linear) < len(forms) and self._vector_chain_instead(i, [e for e in forms if e not in linear]):
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
            elif n.op in ("add", "sub") and not self._inner(i, ("add", "sub", "neg")):
                pos: list[int] = []
                neg: list[int] = []
                self._sum_leaves(i, 1, pos, neg, top=True)
                srcs = {self.prog.nodes[x].args[0] if self.prog.nodes[x].op == "extract" else -1 for x in pos + neg}
                if len(pos) + len(neg) > BALANCED_ONLY_LEAVES and len(srcs) == 1 and -1 not in srcs:
                    self.summarized_sums.add(i)
                    absorbed.add(i)
                    leaves.update(pos + neg)
                elif len(pos) + len(neg) > BALANCED_ONLY_LEAVES:
                    self.template_sums.add(i)  # a sum of slot templates? (``_realized_template_sum``)
        # the interiors of linear elements, and the extracts nothing else reads
        for e, _ in self.linear.items():
            if self.prog.nodes[e].op != "extract" and self._single_use(e):
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
        # the terms of a template sum, where nothing else reads them: not loaded when the sum
        # is realized (``_realized_template_sum``), emitted after all when it is not (``_uncover``)
        self.template_cover: dict[int, list[int]] = {}
        self.template_sums -= absorbed | self.covered  # inside a summarized chain: never emitted
        for i in self.template_sums:
            pos, neg = [], []
            self._sum_leaves(i, 1, pos, neg, top=True)
            sub: set[int] = set()
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

    def _vector_chain_instead(self, top: int, others: list[int]) -> bool:
        """Whether the long chain topped at ``top``, whose elements ``others`` are no linear
        forms, loads as its vector form instead of a summary; no here (``eqsat.egraph.vector_chains``)."""
        return False

    def _uncover(self, nodes: list[int]) -> None:
        """Emit ``nodes`` (covered for a template sum that found no realization) after all."""
        self.covered.difference_update(nodes)
        for x in sorted(nodes):
            if x not in self.name:
                self._emit(x)  # type: ignore[attr-defined]

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
