"""Load-time template vectorizer: an insertion chain as whole-vector operations, by construction.

In: the ``Program`` being loaded (through ``ChainVectorizer``, a base of ``Loader``), after its
nodes are emitted. Out: for every insertion chain (``insert`` chain or ``from_elements``), a
vector form unioned with the chain's class, and for several scalar results one vector form
whose slot ``k`` is result ``k`` (``Ext(V, k)``); the source stays, extraction chooses by cost.

Each written slot ``s`` holds a scalar element. It is read as a polynomial over *atoms* with
constant coefficients (``_poly``): an atom is a read ``x[j]`` of a tensor with the chain's slot
count, keyed by ``(x, (j - s) mod n)`` -- the offset relative to the slot, so every slot of a
stencil reads the same keys, and a wrapped read (``remui``) is just another offset -- a scalar
that is the same in every slot (a secret scalar argument, broadcast), or a nested sum that a
product keeps unexpanded. Sums are flattened and products are sorted multisets, so any
association or operand order gives one polynomial; constants (literals, slots of constant
tensors) are the coefficients. Nested sums that differ between slots only by missing terms
align into one (``_align_nested``).

The chain is then ``sum over monomials m of C_m * vec(m)``, where ``vec(m)`` is the product of
``Rot(x, offset)`` (a broadcast for a uniform scalar, a nested sum's own form) and ``C_m`` is
the per-slot coefficient vector: 0 where a slot lacks the monomial (zero padding reads outside
the image: the same template with that read masked), the slot's constant elsewhere
(``_slots_form``). Monomials are grouped by their support (the slots that hold them):

* monomials with one coefficient on their support: summed -- the linear ones of one input as
  a centered ``LinRot`` core (so separable stencils factor; the direct rotations beside it
  when the core must be rotated back), several inputs under one shared rotation -- then
  placed with one ``Gather`` mask (none when the support is every slot that matters);
* monomials whose coefficient varies by slot: ``vec(m) * Dense(C_m)``;
* the constant term: ``Num`` when uniform over the slots that matter, else ``Dense``.

A slot whose element is not such a polynomial keeps its ``Place``; unwritten slots of the
chain's base keep their ``Gather``. The form is emitted only when it has no more monomials than
vectorized slots, or each monomial is held by two slots on average (else it is the slot-by-slot
program again) -- a property of the chain, not of any kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from eqsat.algebra import linmap, rotpoly
from eqsat.algebra.slot_keys import dense_key, set_key
from eqsat.egraph import linrot_load
from eqsat.egraph.canonical import BALANCED_ONLY_LEAVES, _is_zero
from eqsat.egraph.summaries import Summaries
from eqsat.rulespec import slot_oracles as o

Atom = tuple  # ("r", tensor, offset) | ("u", scalar node) | ("s", nested polynomial key) | ("S", aligned sum)
Mono = tuple[Atom, ...]  # a sorted multiset of atoms; () is the constant monomial
Poly = dict[Mono, int | float]


@dataclass
class KnownChain:
    """An insertion chain's slot polynomials (``ChainVectorizer._poly``), kept by the planning
    (``VectorChains.chain_polys``): as read, and aligned (``_align_nested``: its result and
    the nested sums and joined reads it set); ``vector``: whether the chain may load as its
    vector form (``VectorChains._vector_chain_cover``: one template, a long chain, or
    per-slot data), kept for a chain that may not too (its form is built beside it)."""

    polys: dict[int, Poly]
    aligned: dict[int, Poly]
    nested: dict[int, dict[int, Poly]]
    joined: list[tuple[int, int, Mono]]
    vector: bool = True


def _add_into(acc: Poly, p: Poly, scale: int | float) -> None:
    for m, c in p.items():
        v = acc.get(m, 0) + scale * c
        if v:
            acc[m] = v
        else:
            acc.pop(m, None)


def _key(p: Poly) -> tuple:
    return tuple(sorted(p.items(), key=repr))


class ChainVectorizer(Summaries):
    """Emits the vector forms of the insertion chains of the program being loaded."""

    def _vectorize_chains(self) -> None:
        """Union every chain top with its vector form (``_vector_form``), and several scalar
        results with slots of one (``_vectorize_results``); called by ``load`` after the live
        nodes are emitted, so every tensor and scalar the forms read is named."""
        self._vec_memo: dict[tuple, int] = {}
        self._nested: dict[int, dict[int, Poly]] = {}
        self._nested_id = 0
        self.vector_first_id = self._next  # rows from here on are the vector forms'
        for i in self.prog.live():
            n = self.prog.nodes[i]
            if i not in self.name:
                continue
            if n.op == "from_elements" or (n.op == "insert" and not self._inner_insert(i)):
                if self.name[i] in self.uniform_chains:
                    continue  # its summary is the vector form already (``Summaries._summarized_chain``)
                form = self._vector_form(i)
                if form is not None:
                    self.unions.append((self.name[i], form))
        self._vectorize_results()

    def _realized_template_sum(self, pos: list[int], neg: list[int]) -> int | None:
        """A long sum whose terms are polynomials of slot reads (``x[i] * y[i]``, ``(x[i] -
        y[i])^2``) as ``Ext(LinRot(V, sum over a of rho^a), 0)``: term ``t`` is read relative to
        its anchor ``a`` (its smallest slot read), ``V`` holds term ``t``'s template in slot
        ``a`` (``_slots_form``; the other slots are free), and the reduction over the anchors
        is realized at load (``eqsat.egraph.linrot_load``). None when a term is not such a
        polynomial, two terms share an anchor, reads differ in slot count, ``V`` has nothing
        to share, or the reduction finds no realization."""
        if not hasattr(self, "_vec_memo"):
            self._vec_memo, self._nested, self._nested_id = {}, {}, 0
        polys: dict[int, Poly] = {}
        width = 0
        for sign, terms in ((1, pos), (-1, neg)):
            for t in terms:
                if self._scalar_const(t) == 0:
                    continue  # a loop's sum starts at 0
                reads = self._reads_at([t])
                widths = {self.prog.nodes[x].type.slots for x, _ in reads}
                if len(widths) != 1 or (width and widths != {width}):
                    return None
                width = widths.pop()
                anchor = min(j for _, j in reads)
                p = self._poly(t, anchor, width, {})
                if p is None or anchor in polys or any(a[0] != "r" for m in p for a in m if a[0] != "s"):
                    return None
                polys[anchor] = {m: sign * c for m, c in p.items()}
        if width < 2:
            return None
        if len(pos) + len(neg) <= BALANCED_ONLY_LEAVES and len({frozenset(p.items()) for p in polys.values()}) > 1:
            # a short sum loads as its reduction only when every term is one template (a dot
            # product): its terms are not loaded then, and other templates at other anchors
            # need Gather masks that only the slots rules realize (with ``--rules arith`` the
            # sum had no finite program left; fuzz seed 10018)
            return None
        vec = self._slots_form(polys, width, set(polys))
        if vec is None:
            return None
        key = rotpoly.key(rotpoly.normalize(dict.fromkeys(polys, 1), width), width)
        lin, ok = linrot_load.Realizer(self, width).linrot(vec, key)
        return self.node("Ext", lin, 0) if ok else None

    def _reads_at(self, roots: list[int]) -> set[tuple[int, int]]:
        """The slot reads ``(tensor, slot)`` under the scalar arithmetic of ``roots``."""
        return {(self.prog.nodes[x].args[0], int(self.prog.nodes[x].attrs[0]))  # type: ignore[call-overload]
                for x in self._slot_extracts(roots)}

    def _slot_extracts(self, roots: list[int]) -> list[int]:
        """The extracts of tensor slots under the scalar arithmetic of ``roots``."""
        out: list[int] = []
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            node = self.prog.nodes[i]
            if node.op == "extract" and not self.prog.nodes[node.args[0]].type.is_scalar:
                out.append(i)
            elif node.op in ("add", "sub", "mul", "neg"):
                stack.extend(node.args)
        return out

    def _vectorize_results(self) -> None:
        """Several scalar results: result number ``k`` among them is slot ``k`` of one vector
        form over the tensors they read (the other slots are free), unioned as ``Ext(V, k)``."""
        results = [r for r in dict.fromkeys(self.prog.results) if self.prog.nodes[r].type.is_scalar and r in self.name]
        if len(results) < 2:
            return
        widths = sorted({self.prog.nodes[x].type.slots for x in self._reads(results)})
        for n in widths:
            if n < len(results):
                continue
            polys: dict[int, Poly] = {}
            for k, r in enumerate(results):
                p = self._poly(r, k, n, {})
                if p is not None:
                    polys[k] = p
            if len(polys) < 2:
                continue
            polys = self._align_nested(polys)
            vec = self._slots_form(polys, n, set(polys))
            if vec is None:
                continue
            for k in polys:
                self.unions.append((self.name[results[k]], self.node("Ext", vec, k)))
            return

    def _reads(self, roots: list[int]) -> set[int]:
        """The tensors whose slots the scalar arithmetic under ``roots`` extracts."""
        out: set[int] = set()
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            node = self.prog.nodes[i]
            if node.op == "extract":
                out.add(node.args[0])
            elif node.op in ("add", "sub", "mul", "neg"):
                stack.extend(node.args)
        return out

    # -- templates -----------------------------------------------------------------
    def _poly(self, e: int, slot: int, n: int, memo: dict[int, Poly | None]) -> Poly | None:
        """Element ``e`` written at ``slot`` of an ``n``-slot chain as a polynomial over atoms
        (reads relative to ``slot``, uniform scalars, nested sums), or None."""
        if e in memo:
            return memo[e]
        memo[e] = None  # a cycle cannot occur in an SSA DAG; this guards re-entry only
        node = self.prog.nodes[e]
        c = self._scalar_const(e)
        out: Poly | None
        if c is not None:
            out = {(): c} if c else {}
        elif node.op == "extract":
            src = self.prog.nodes[node.args[0]]
            j = int(node.attrs[0])  # type: ignore[call-overload]
            if src.type.slots == n and not src.type.is_scalar:
                out = {(("r", node.args[0], (j - slot) % n),): 1}
            else:
                out = self._uniform(e)
        elif node.op in ("add", "sub"):
            a = self._poly(node.args[0], slot, n, memo)
            b = self._poly(node.args[1], slot, n, memo)
            if a is None or b is None:
                out = None
            else:
                out = dict(a)
                _add_into(out, b, 1 if node.op == "add" else -1)
        elif node.op == "neg":
            a = self._poly(node.args[0], slot, n, memo)
            out = None if a is None else {m: -v for m, v in a.items()}
        elif node.op == "mul":
            a = self._poly(node.args[0], slot, n, memo)
            b = self._poly(node.args[1], slot, n, memo)
            out = None if a is None or b is None else _mul(a, b)
        elif node.op in ("input",) and node.type.is_scalar:
            out = self._uniform(e)
        else:
            out = None
        memo[e] = out
        return out

    def chain_polys(self) -> dict[int, KnownChain]:
        """Chain top -> its slots' polynomials, when planned already (``VectorChains``)."""
        return {}

    def _uniform(self, e: int) -> Poly | None:
        """A scalar the same in every slot (broadcast), when it has a term of its own."""
        if e in self.name and self.prog.nodes[e].type.is_scalar:
            return {(("u", e),): 1}
        return None

    def _scalar_const(self, i: int) -> int | float | None:
        value = self._int_const(i)
        if value is not None:
            return value
        n = self.prog.nodes[i]
        if n.op == "const" and n.type.is_scalar and isinstance(n.attrs[0], float):
            return n.attrs[0]
        return None

    # -- nested sums ---------------------------------------------------------------------
    def _align_nested(self, polys: dict[int, Poly]) -> dict[int, Poly]:
        """Nested sums (a product's factors that are sums, ``("s", key)`` atoms) that differ
        between slots only by missing terms -- a zero-padded ``gx`` at an edge -- become one
        atom ``("S", r)``: the sum over the terms of the largest variant ``r``, each with a
        per-slot coefficient (0 where the slot's variant lacks it; ``_slots_form`` builds
        it). A factor that is one read inside such a sum (a corner's ``x[i] * x[i]``) joins it
        when the product it then forms exists in another slot. Per slot the value is exact
        whatever variant is chosen; only sharing depends on the choice."""
        self._nested_id += 1
        self._nested = {}
        self._joined: list[tuple[int, int, Mono]] = []  # (sum, slot, term) joined by _join_reads
        variants: dict[tuple, Poly] = {}
        for p in polys.values():
            for m in p:
                for a in m:
                    if a[0] == "s" and all(b[0] != "s" for mm, _ in a[1] for b in mm):
                        variants[a[1]] = dict(a[1])
        if not variants:
            return polys
        sets = {k: frozenset(v) for k, v in variants.items()}
        tops = {t for t in sets.values() if not any(t < u for u in sets.values())}
        maximal = sorted(tops, key=lambda t: sorted(map(repr, t)))
        rep_of_set = {t: r for r, t in enumerate(maximal)}

        reps: dict[tuple, int] = {}

        def rep(k: tuple) -> int:
            r = reps.get(k)
            if r is None:  # the smallest maximal variant holding it (asked once per slot)
                t = sets[k]
                cands = [u for u in maximal if t <= u]
                r = reps[k] = rep_of_set[min(cands, key=len)]
            return r

        assign: dict[tuple[int, int], tuple] = {}  # (representative, slot) -> variant key
        out: dict[int, Poly] = {}
        pending: list[tuple[int, Mono, int | float]] = []
        mapped_keys: set[Mono] = set()
        for slot, p in polys.items():
            q: Poly = {}
            for m, c in p.items():
                atoms = []
                for a in m:
                    if a[0] == "s" and a[1] in variants:
                        r = rep(a[1])
                        if assign.setdefault((r, slot), a[1]) == a[1]:
                            atoms.append(("S", r))
                            continue
                    atoms.append(a)
                key = tuple(sorted(atoms, key=repr))
                if key != m:
                    mapped_keys.add(key)
                if len(key) >= 2 and any(a[0] == "r" for a in key):
                    pending.append((slot, key, c))  # its reads may still join an aligned sum
                    continue
                q[key] = q.get(key, 0) + c
            out[slot] = q
        for slot, m, c in pending:  # single reads that join an aligned sum
            key = self._join_reads(slot, m, maximal, mapped_keys, assign)
            q = out[slot]
            q[key] = q.get(key, 0) + c
        for (r, slot), k in assign.items():
            if k in variants:
                self._nested.setdefault(r, {})[slot] = variants[k]
        for r, slot, term in self._joined:
            self._nested.setdefault(r, {})[slot] = {term: 1}
        return {slot: {m: c for m, c in q.items() if c} for slot, q in out.items()}

    def _join_reads(self, slot: int, m: Mono, maximal: list[frozenset], mapped_keys: set[Mono],
                    assign: dict[tuple[int, int], tuple]) -> Mono:
        """``m`` with its reads replaced by aligned sums holding them, when the result is a
        product another slot forms; else ``m``."""
        options: list[list[Atom]] = []
        for a in m:
            opts: list[Atom] = [a]
            if a[0] == "r":
                opts += [("S", r) for r, t in enumerate(maximal) if (a,) in t]
            options.append(opts)
        combos: list[list[Atom]] = [[]]
        for opts in options:  # the first 64 choices bound the work on long products
            combos = [[*c, o] for c in combos for o in opts][:64]
        for combo in combos:
            key = tuple(sorted(combo, key=repr))
            if key == m or key not in mapped_keys:
                continue
            joins = {(o[1], a) for o, a in zip(combo, m, strict=True) if o[0] == "S" and a[0] == "r"}
            reps = {r for r, _ in joins}
            if len(joins) != len(reps) or any((r, slot) in assign for r in reps):
                continue  # one variant per sum and slot
            for r, a in joins:
                assign[(r, slot)] = ("joined", a)
                self._joined.append((r, slot, (a,)))
            return key
        # a sub-product that is a term of an aligned sum (``x[i+2] * (x[i+1] * x[i-2] - d[i])``
        # where ``d[i]`` is 0: the slot's sum is the one product, and the constant is missing)
        for size in range(2, len(m)):
            for sub in sorted({tuple(sorted(c, key=repr)) for c in combinations(m, size)}, key=repr):
                rest = list(m)
                for a in sub:
                    rest.remove(a)
                for r, t in enumerate(maximal):
                    if sub not in t or (r, slot) in assign:
                        continue
                    key = tuple(sorted([*rest, ("S", r)], key=repr))
                    if key in mapped_keys:
                        assign[(r, slot)] = ("joined", sub)
                        self._joined.append((r, slot, sub))
                        return key
        return m

    # -- the vector form -------------------------------------------------------------
    def _vector_form(self, top: int) -> int | None:
        n = self.prog.nodes[top].type.slots
        written, base = self._written_slots(top)
        polys: dict[int, Poly] = {}
        places: list[int] = []
        known = self.chain_polys().get(top)  # the planning's polynomials of the chain, when kept
        for slot, e in sorted(written.items()):
            p = known.polys[slot] if known is not None else self._poly(e, slot, n, {})
            if p is None:
                if e not in self.name:
                    return None
                places.append(self.node("Place", self.name[e], slot, n))
            else:
                polys[slot] = p
        if known is None:
            polys = self._align_nested(polys)
        else:  # the planning's alignment of the same polynomials, and what it set beside it
            self._nested_id += 1
            self._nested, self._joined = known.nested, known.joined
            polys = known.aligned
        form = self._slots_form(polys, n, set(range(n)))
        if form is None:
            return None
        parts = [form, *places]
        if base is not None:
            surviving = [j for j in range(n) if j not in written]
            if surviving and not _is_zero(self.prog, base):
                if base not in self.name:
                    return None
                parts.append(self.node("Gather", self.name[base], 0, set_key(surviving), n))
        if not parts:
            return self._num(0, n)
        return self._balanced("Add", parts)

    def _slots_form(self, polys: dict[int, Poly], n: int, care: set[int], nested: bool = False) -> int | None:
        """``sum_m C_m * vec(m)``, holding polynomial ``polys[s]`` in each slot ``s``; the slots
        of ``care`` outside ``polys`` hold 0, other slots anything. None when there is nothing
        to share (more monomials than slots and than half the (slot, monomial) pairs, unless
        ``nested``: a nested sum is built once whatever it holds) or a read has no term. The
        linear monomials of an input whose
        coefficients vary by slot (a masked or weighted stencil, a matrix) are a linear map in
        diagonal form; its cheapest plan (``eqsat.algebra.linmap``: baby-step/giant-step, a
        row pass then a column pass for a zero-padded stencil) is unioned beside the form."""
        monos: dict[Mono, dict[int, int | float]] = {}
        for slot, p in polys.items():
            for m, coef in p.items():
                monos.setdefault(m, {})[slot] = coef
        nonconst = [m for m in monos if m]
        # nothing to share: more monomials than slots, and fewer than two slots per monomial on
        # average (a template of five reads on four slots shares every monomial by all four:
        # seed 396 of the slot-uniform programs kept three of its four slots scalar)
        pairs = sum(len(slots) for m, slots in monos.items() if m)
        unshared = len(nonconst) > max(len(polys), pairs // 2)
        if not polys or (unshared and not nested) or any(self._atom_vec_missing(m) for m in nonconst):
            return None
        tail = self._const_part(monos.get((), {}), n, care)
        terms = self._grouped(nonconst, monos, n, care) + tail
        # every slot's polynomial cancelled (``x[i] - x[i]``): the form is the zero vector
        form = self._balanced("Add", terms) if terms else self._num(0, n)
        maps = self._diagonal_maps(nonconst, monos, n)
        if maps:
            rest = [m for m in nonconst if not (len(m) == 1 and m[0][0] == "r" and m[0][1] in maps)]
            # the map as a LinMap term: the linmap rules realize it (its cheapest plan pinned,
            # halves, giant steps, diagonal products) and extraction chooses by cost, as for
            # linalg.matvec
            planned = [self.node("LinMap", self.name[x], linmap.register(lm), n) for x, lm in sorted(maps.items())]
            self.unions.append((form, self._balanced("Add", self._grouped(rest, monos, n, care) + planned + tail)))
        return form

    def _grouped(self, nonconst: list[Mono], monos: dict[Mono, dict[int, int | float]], n: int,
                 care: set[int]) -> list[int]:
        """``C_m * vec(m)`` for the monomials ``nonconst``, grouped by support (one mask each)."""
        parts: list[int] = []
        by_support: dict[tuple[int, ...], list[tuple[Mono, int | float]]] = {}
        for m in sorted(nonconst, key=repr):
            coefs = monos[m]
            values = set(coefs.values())
            if len(values) == 1:
                by_support.setdefault(tuple(sorted(coefs)), []).append((m, values.pop()))
            else:
                dense = tuple(coefs.get(j, 0) for j in range(n))
                parts.append(self.node("Mul", self._mono_vec(m, n), self._dense(dense, n)))
        for support, terms in sorted(by_support.items()):
            group = self._group_sum(terms, n)
            if care.issubset(support):
                parts.append(group)
            else:
                parts.append(self.node("Gather", group, 0, set_key(support), n))
        return parts

    def _const_part(self, consts: dict[int, int | float], n: int, care: set[int]) -> list[int]:
        if not consts:
            return []
        dense = tuple(consts.get(j, 0) for j in range(n))
        values = {dense[j] for j in care}
        if len(values) == 1 and care.issubset(consts):
            return [self._num(values.pop(), n)]
        return [self._dense(dense, n)]

    def _diagonal_maps(self, nonconst: list[Mono], monos: dict[Mono, dict[int, int | float]],
                       n: int) -> dict[int, linmap.LinearMap]:
        """Input -> the plan of its linear map, for inputs whose diagonals are not uniform
        and whose best plan needs fewer rotations than one per diagonal."""
        diags: dict[int, dict[int, tuple[int | float, ...]]] = {}
        for m in nonconst:
            if len(m) == 1 and m[0][0] == "r":
                coefs = monos[m]
                diags.setdefault(m[0][1], {})[m[0][2]] = tuple(coefs.get(j, 0) for j in range(n))
        out: dict[int, linmap.LinearMap] = {}
        for x, ds in diags.items():
            lm = linmap.from_diagonals({d: np.array(v) for d, v in ds.items()}, n)
            if len(lm.diags) < 2 or linmap.uniform_poly(lm) is not None:
                continue  # one diagonal, or a rotation polynomial (LinRot factors it)
            plan = linmap.best_plan(lm)
            if plan.rotations < linmap.plan_direct(lm).rotations:
                out[x] = lm
        return out

    def _atom_vec_missing(self, m: Mono) -> bool:
        for a in m:
            if a[0] == "r" and a[1] not in self.name:
                return True
            if a[0] == "s" and any(self._atom_vec_missing(mm) for mm, _ in a[1]):
                return True
            if a[0] == "S" and any(self._atom_vec_missing(mm) for v in self._nested[a[1]].values() for mm in v):
                return True
        return False

    def _group_sum(self, terms: list[tuple[Mono, int | float]], n: int) -> int:
        """The sum of ``c * vec(m)``; linear monomials of one tensor as one ``LinRot``."""
        linear: dict[int, dict[int, int]] = {}
        parts: list[int] = []
        for m, c in terms:
            if len(m) == 1 and m[0][0] == "r" and isinstance(c, int):
                q = linear.setdefault(m[0][1], {})
                q[m[0][2]] = q.get(m[0][2], 0) + c
            else:
                parts.append(self._scaled(self._mono_vec(m, n), c, n))
        polys = {x: p for x, q in sorted(linear.items()) if (p := rotpoly.normalize(q, n))}
        # one rotation shared by several inputs: sum_x LinRot(x, p_x) = rot(sum_x LinRot(x,
        # rho^-s p_x), s) for the offset s that the most inputs read (ties: the smallest |s|)
        count: dict[int, int] = {}
        for p in polys.values():
            for k in p:
                count[k] = count.get(k, 0) + 1
        s = min(count, key=lambda k: (-count[k], abs(k), k)) if len(polys) >= 2 else 0
        if polys:
            direct = self._balanced("Add", [self._linear_term(x, p, n) for x, p in polys.items()])
            if s:
                inner = [self._linear_term(x, rotpoly.shift(p, -s, n), n) for x, p in polys.items()]
                self.unions.append((direct, self._rot(self._balanced("Add", inner), s % n)))
            parts.append(direct)
        return self._balanced("Add", parts)

    def _linear_term(self, x: int, poly: dict[int, int], n: int) -> int:
        """``LinRot(x, poly)`` by its centered core (the realization rules -- factorizations
        of stencils and reductions -- fire on canonical keys). A core that must be rotated
        back costs one more rotation, so then the direct sum of scaled rotations (one per
        term, shared by the whole program) is unioned beside it."""
        if len(poly) == 1:
            ((k, c),) = poly.items()
            return self._scaled(self._rot(self.name[x], k % n), c, n)
        shift, core = rotpoly.centered(poly, n)
        lin = self._rot(self.node("LinRot", self.name[x], rotpoly.key(core, n), n), shift % n)
        if shift % n == 0 and len(poly) > o.MAX_DIRECT_TERMS:
            return lin
        # beside a centered core too (small polynomials): the realization rules split it into
        # halves that need not be canonical, and a half with no term at offset 0 and no
        # enclosing Place or Gather has no realization of its own (x[i-1] + x[i+3] + x[i-2]
        # on 128 slots came back unvectorized)
        direct = self._balanced("Add", [self._scaled(self._rot(self.name[x], k % n), c, n) for k, c in poly.items()])
        self.unions.append((direct, lin))
        return direct

    def _scaled(self, v: int, c: int | float, n: int) -> int:
        if c == 1:
            return v
        if c == -1:
            return self.node("Neg", v)
        return self.node("Mul", v, self._num(c, n))

    def _mono_vec(self, m: Mono, n: int) -> int:
        memo_key = ("m", m, n, self._nested_id if any(a[0] == "S" for a in m) else 0)
        if memo_key in self._vec_memo:
            return self._vec_memo[memo_key]
        factors = []
        for a in m:
            if a[0] == "r":
                factors.append(self._rot(self.name[a[1]], a[2]))
            elif a[0] == "u":
                factors.append(self._splat(self.name[a[1]], n))
            elif a[0] == "S":  # an aligned nested sum: its own per-slot form (``_align_nested``)
                variants = self._nested[a[1]]
                nested = self._slots_form(variants, n, set(variants), nested=True)
                if nested is None:  # pragma: no cover - _atom_vec_missing ruled it out
                    raise AssertionError("nested sum without a form")
                factors.append(nested)
            else:
                inner = [(mm, c) for mm, c in a[1] if mm]
                const = [c for mm, c in a[1] if not mm]
                parts = [self._scaled(self._mono_vec(mm, n), c, n) for mm, c in inner]
                parts += [self._num(c, n) for c in const]
                factors.append(self._balanced("Add", parts))
        out = self._balanced("Mul", factors)
        self._vec_memo[memo_key] = out
        return out

    def _rot(self, v: int, k: int) -> int:
        if k == 0:
            return v
        key = ("rot", v, k)
        if key not in self._vec_memo:
            self._vec_memo[key] = self.node("Rot", v, k)
        return self._vec_memo[key]

    def _splat(self, s: int, n: int) -> int:
        key = ("splat", s, n)
        if key not in self._vec_memo:
            self._vec_memo[key] = self.node("Splat", s, n)
        return self._vec_memo[key]

    def _num(self, c: int | float, n: int) -> int:
        return self.node("NumF", float(c), n) if isinstance(c, float) else self.node("Num", int(c), n)

    def _dense(self, values: tuple[int | float, ...], n: int) -> int:
        if any(isinstance(v, float) for v in values):
            values = tuple(float(v) for v in values)
        return self.node("Dense", dense_key(values), n)


def _mul(a: Poly, b: Poly) -> Poly:
    """The product of two polynomials: a constant scales; two monomials multiply; a sum of
    several terms stays a nested factor (no expansion: its ct x ct products stay shared)."""
    for x, y in ((a, b), (b, a)):
        if len(x) == 1 and () in x:
            c = x[()]
            return {m: c * v for m, v in y.items()}
    if not a or not b:
        return {}
    fa, ca = _as_factor(a)
    fb, cb = _as_factor(b)
    return {tuple(sorted(fa + fb, key=repr)): ca * cb}


def _as_factor(p: Poly) -> tuple[Mono, int | float]:
    """``p`` as (atoms, coefficient): a single monomial is its atoms, a sum one nested atom."""
    if len(p) == 1:
        ((m, c),) = p.items()
        return m, c
    return (("s", _key(p)),), 1

