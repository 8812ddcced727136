"""The loader: a ``Program`` as node-table rows, with canonical forms and summaries beside it.

In: an IR ``Program``. Out: a ``Loader`` whose rows, unions and result markers
(``eqsat.egraph.tables``) egglog reads; ``load`` returns the result numbers. Every live node
is emitted once (``_emit``); canonical forms (``eqsat.egraph.canonical``) and load-time
summaries (``eqsat.egraph.summaries``) and the vector forms of insertion chains
(``eqsat.egraph.vectorize``) are unioned beside the source. Management ops in the
input (``reduce_noise``, ``relinearize``...) are dropped on load: they are identities on
values, and extraction places them anew.
"""

from __future__ import annotations

from eqsat.algebra.slot_keys import dense_key
from eqsat.egraph import linmap_load
from eqsat.egraph.vector_chains import VectorChains
from eqsat.ir import MGMT_OPS, Program, VecRef


class Loader(VectorChains):
    """Translates a Program into rows of node tables (``LOAD_COLUMNS``): node ``i`` of the
    program is row id ``i``; the canonical forms get fresh ids above the program's."""

    def __init__(self, prog: Program) -> None:
        super().__init__(prog)

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
        self._plan_vector_chains()  # chains that load as their vector form (``eqsat.egraph.vector_chains``)
        for i in self.prog.live():
            if i not in self.covered:
                self._emit(i)
        self._vectorize_chains()  # beside every insertion chain (``eqsat.egraph.vectorize``)
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
            root = self._tree_root(i)  # only the balanced form (see ``load``)
            if root is not None:
                self.name[i] = root
                return
        if i in self.vector_chains:
            self.name[i] = self._vector_chain(i)  # inert, beside its vector form
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
            if isinstance(c, VecRef):
                self.node("Dense", c.handle, slots, at=i)
            elif isinstance(c, tuple):
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
        elif op == "linmap":
            real = linmap_load.realize(self, a[0], str(n.attrs[0]), slots)  # the linmap rules, at load
            if real is not None:
                self.name[i] = real
                return
            self.node("LinMap", a[0], str(n.attrs[0]), slots, at=i)
        else:  # pragma: no cover - ir.Builder rejects unknown ops
            raise ValueError(f"cannot load op {op}")
        self.name[i] = i
        self._canonical(i)
        if i in self.rotation_trees:  # its realized summary beside it (``eqsat.egraph.summaries``)
            self.unions.append((i, self._rotation_tree(i)))

    def _zero(self, is_float: bool, slots: int, at: int | None = None) -> int:
        return self.node("NumF", 0.0, slots, at=at) if is_float else self.node("Num", 0, slots, at=at)
























