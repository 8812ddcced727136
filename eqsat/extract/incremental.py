"""Exact DAG cost of a choice, kept up to date while one class at a time switches e-node.

In: an ``EGraphView``, a choice (chosen e-node per class, -1 for none), the root classes, a
``CostTable`` and the price of one e-node (``eqsat.extract.dag.node_cost``: own cost and
secrecy given the children's secrecy).  Out: ``DagCost`` -- ``total`` is the cost of the program the choice denotes
(each reachable class paid once; ``inf`` when it is cyclic or incomplete), the same number
``eqsat.extract.dag._solution_cost`` computes from scratch; ``switched(c, alt)`` is that cost
with class ``c`` switched to e-node ``alt``, computed from the classes the switch touches only;
``commit(c, alt)`` makes the switch.

Why: the local search of ``eqsat.extract.dag.refine`` tries every alternative e-node of every
reachable class; recomputing the whole DAG per candidate made it O(candidates x program) (5 s
of a 4096x4096 matvec's extraction).  A switch at ``c`` changes only

- the classes that become reachable through ``alt``'s children (walked, each once),
- the classes that become unreachable (reference counts reach zero, cascading down),
- ``c``'s own cost, and the ancestors of ``c`` whose secrecy (plaintext or ciphertext, which
  prices an ``Add`` or ``Mul``) changes because ``c``'s does (walked upward while it changes).

The hoisting term (``eqsat.extract.hoisting.discount``: rotations of one input class after
the first are cheaper, rotations of ragged vectors dearer) depends on which reachable secret
classes rotate which input: ``DagCost`` keeps the count per input class and the ragged count,
and a switch changes them only at the classes it touches (the same three sets and ``c``).

A cycle through the switch exists exactly when ``c`` is reachable from ``alt``'s children; in
the current (acyclic) choice only classes after ``c`` in post-order can reach it, which
bounds that search.  A class that becomes unreachable cannot be an ancestor of ``c`` (that
would make the current choice cyclic), so the three sets are disjoint and their cost changes
add up.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable

from eqsat.egraph.view import EGraphView, ENode
from eqsat.extract import hoisting
from eqsat.models.cost import CostTable

Price = Callable[[ENode, list[bool], CostTable], tuple[float, bool]]


class DagCost:
    """The current choice's cost with cheap what-if switches (see the module docstring)."""

    def __init__(self, g: EGraphView, node_of: list[int], roots: list[int], costs: CostTable, price: Price) -> None:
        self.g, self.node_of, self.roots, self.costs = g, node_of, list(roots), costs
        self.price = price
        self.saving = costs.hoisted_saving
        self.extra = hoisting.ragged_surcharge(costs)
        self.widths = hoisting.class_slots(g) if self.extra else []
        # what-ifs may stop early (``switched``'s ``limit``) when no price is negative: then every
        # class a switch adds costs at least the hoisting saving it can bring (a rotation is
        # priced ``rotate`` or ``extract``, each at least ``hoisted_saving``)
        self.bounded = all(v >= 0 for v in costs.costs.values()) and self.saving >= 0 and self.extra >= 0
        self._rebuild()

    # -- the hoisting term --------------------------------------------------------------------
    def _rotates(self, n: ENode, secret: bool) -> tuple[int | None, int]:
        """(input class, ragged 0/1) of a class whose chosen e-node is ``n``: a secret rotation
        counts toward its input's hoisting group; (None, 0) otherwise."""
        if not secret or not (self.saving or self.extra):
            return None, 0
        src = hoisting.rotation_input(n)
        if src is None:
            return None, 0
        return src, int(bool(self.extra) and n.op == "Rot" and hoisting.is_ragged(self.widths[src]))

    def _discount(self, counts: dict[int, int], ragged: int) -> float:
        return self.saving * sum(k - 1 for k in counts.values() if k > 1) - self.extra * ragged

    # -- the state of the current choice ------------------------------------------------------
    def _rebuild(self) -> None:
        """Reachable classes in post-order, reference counts, secrecy, own costs and users."""
        node_cost = self.price
        g, node_of = self.g, self.node_of
        nodes = g.nodes
        nc = g.num_classes
        self.pos = [-1] * nc  # post-order index of a reachable class, -1 when unreachable
        self.refs = [0] * nc  # edges from reachable classes' chosen e-nodes (+1 per root use)
        self.secret = [False] * nc
        self.own = [0.0] * nc
        self.users: list[list[int]] = [[] for _ in range(nc)]
        self._reach_memo: tuple[int, dict[int, bool]] | None = None
        self.total = math.inf
        state = [0] * nc  # 1: on the stack, 2: done
        order: list[int] = []
        stack: list[tuple[int, int]] = [(r, 0) for r in self.roots]
        while stack:
            c, phase = stack.pop()
            if phase == 0:
                if state[c] == 2:
                    continue
                if state[c] == 1 or node_of[c] < 0:
                    return  # cyclic or incomplete: total stays inf
                state[c] = 1
                stack.append((c, 1))
                for ch in nodes[node_of[c]].children:
                    if state[ch] == 1:
                        return
                    if state[ch] != 2:
                        stack.append((ch, 0))
            else:
                state[c] = 2
                self.pos[c] = len(order)
                order.append(c)
        total = 0.0
        for c in order:
            n = nodes[node_of[c]]
            w, sec = node_cost(n, [self.secret[ch] for ch in n.children], self.costs)
            self.own[c], self.secret[c] = w, sec
            total += w
            for ch in n.children:
                self.refs[ch] += 1
                self.users[ch].append(c)
        self._own_total = total  # before the hoisting term
        for r in self.roots:
            self.refs[r] += 1
        self.rot_count: dict[int, int] = {}
        self.ragged = 0
        for c in order:
            src, rag = self._rotates(nodes[node_of[c]], self.secret[c])
            if src is not None:
                self.rot_count[src] = self.rot_count.get(src, 0) + 1
                self.ragged += rag
        self.total = total - self._discount(self.rot_count, self.ragged)

    def reachable(self, c: int) -> bool:
        return self.pos[c] >= 0

    def commit(self, c: int, alt: int) -> None:
        """Switch class ``c`` to e-node ``alt`` in the choice (``node_of`` is shared)."""
        self.node_of[c] = alt
        self._rebuild()

    # -- what-if ----------------------------------------------------------------------------
    def _reaches(self, start: int, c: int) -> bool:
        """Whether class ``start`` (reachable) reaches ``c`` in the current choice."""
        if self._reach_memo is None or self._reach_memo[0] != c:
            self._reach_memo = (c, {})
        memo = self._reach_memo[1]
        pos, nodes, node_of = self.pos, self.g.nodes, self.node_of
        pc = pos[c]
        stack: list[tuple[int, int]] = [(start, 0)]
        while stack:
            x, phase = stack.pop()
            if x in memo:
                continue
            if x == c:
                memo[x] = True
                continue
            if pos[x] < pc:  # before c in post-order: cannot be one of c's ancestors
                memo[x] = False
                continue
            kids = nodes[node_of[x]].children
            if phase == 0:
                stack.append((x, 1))
                stack.extend((ch, 0) for ch in kids if ch not in memo)
            else:
                memo[x] = any(memo[ch] for ch in kids)
        return memo[start]

    def switched(self, c: int, alt: int, limit: float = math.inf) -> float:
        """The cost of the choice with class ``c`` switched to e-node ``alt`` (not made); when
        that is ``limit`` or more, any value from ``limit`` up may be returned (the classes the
        switch adds are priced one by one, and the walk stops once they alone reach it)."""
        node_cost = self.price
        if math.isinf(self.total):
            raise ValueError("switched() needs a finite current choice")
        pos = self.pos
        if pos[c] < 0:
            return self.total  # an unreachable class: the program does not change
        node_of, costs = self.node_of, self.costs
        nodes = self.g.nodes
        alt_node = nodes[alt]
        old_secret, old_refs, own = self.secret, self.refs, self.own
        saving, extra, widths = self.saving, self.extra, self.widths
        hoist = bool(saving or extra)  # else no e-node counts as a rotation (``_rotates``)
        # secrecy and reference counts where they differ from (or are absent in) the current
        # choice's; read as ``secret[x] if x in secret else old_secret[x]``
        secret: dict[int, bool] = {}
        refs: dict[int, int] = {}
        delta = 0.0

        # the hoisting groups: +1/-1 per (input class) where a class's rotation joins or leaves
        moved: dict[int, int] = {}
        ragged = 0

        def rotation(n: ENode, secret_now: bool, by: int) -> int:
            nonlocal ragged
            src, rag = self._rotates(n, secret_now)
            if src is not None:
                moved[src] = moved.get(src, 0) + by
                ragged += by * rag
                return 1
            return 0

        # a lower bound of the result while classes are added: whatever else the switch does
        # takes off at most the cost of the program as it is (its own costs: ``total`` + its
        # hoisting discount + its ragged surcharge) and a hoisting saving per rotation it adds,
        # which the added rotation's own price covers (``bounded``); each added class then
        # raises the bound by its price less the saving it may bring
        floor = self.total - self._own_total - self.extra * self.ragged if self.bounded else -math.inf
        # 1. classes newly reachable through alt's children, priced in post-order (children
        # first); cycles through c make the switch impossible
        state: dict[int, int] = {}
        stack: list[tuple[int, int]] = [(ch, 0) for ch in reversed(alt_node.children)]
        while stack:
            x, phase = stack.pop()
            if phase == 1:
                state[x] = 2
                n = nodes[node_of[x]]
                kids = n.children
                w, sx = node_cost(n, [secret[ch] if ch in secret else old_secret[ch] for ch in kids], costs)
                secret[x] = sx
                delta += w
                joined = 0  # ``rotation(n, sx, +1)``, inline
                if sx and hoist:
                    op = n.op
                    if op == "Rot" or (op == "Ext" and n.lits[0] != 0):
                        src = kids[0]
                        moved[src] = moved.get(src, 0) + 1
                        if extra and op == "Rot" and hoisting.is_ragged(widths[src]):
                            ragged += 1
                        joined = 1
                for ch in kids:
                    if pos[ch] >= 0:
                        refs[ch] = refs.get(ch, old_refs[ch]) + 1
                floor += w - saving * joined
                if floor >= limit:
                    return floor
                continue
            if x == c:
                return math.inf
            if pos[x] >= 0:  # already in the program: a cycle exactly when it reaches c
                if self._reaches(x, c):
                    return math.inf
                continue
            st = state.get(x)
            if st == 2:
                continue
            if st == 1 or node_of[x] < 0:
                return math.inf
            state[x] = 1
            stack.append((x, 1))
            for ch in reversed(nodes[node_of[x]].children):
                st = state.get(ch)
                if st == 1:
                    return math.inf
                if st != 2:
                    stack.append((ch, 0))
        # 2. c itself
        w, s_c = node_cost(alt_node, [secret[ch] if ch in secret else old_secret[ch] for ch in alt_node.children],
                           costs)
        delta += w - own[c]
        rotation(nodes[node_of[c]], old_secret[c], -1)
        rotation(alt_node, s_c, +1)
        for ch in alt_node.children:
            if pos[ch] >= 0:
                refs[ch] = refs.get(ch, old_refs[ch]) + 1
        # 3. classes that become unreachable: the old children's counts drop, cascading
        drop = list(nodes[node_of[c]].children)
        while drop:
            x = drop.pop()
            left = refs.get(x, old_refs[x]) - 1
            refs[x] = left
            if left == 0:
                delta -= own[x]
                n = nodes[node_of[x]]
                kids = n.children
                if hoist and old_secret[x]:  # ``rotation(n, old_secret[x], -1)``, inline
                    op = n.op
                    if op == "Rot" or (op == "Ext" and n.lits[0] != 0):
                        src = kids[0]
                        moved[src] = moved.get(src, 0) - 1
                        if extra and op == "Rot" and hoisting.is_ragged(widths[src]):
                            ragged -= 1
                drop.extend(kids)
        # 4. c's ancestors whose secrecy changes with c's
        if s_c != old_secret[c]:
            secret[c] = s_c
            heap = [(pos[u], u) for u in set(self.users[c])]
            heapq.heapify(heap)
            queued = {u for _, u in heap}
            while heap:
                _, u = heapq.heappop(heap)
                n = nodes[node_of[u]]
                w, s = node_cost(n, [secret[ch] if ch in secret else old_secret[ch] for ch in n.children], costs)
                delta += w - own[u]
                if s != old_secret[u]:
                    secret[u] = s
                    rotation(n, old_secret[u], -1)
                    rotation(n, s, +1)
                    for p in self.users[u]:
                        if p not in queued:
                            queued.add(p)
                            heapq.heappush(heap, (pos[p], p))
        # the hoisting term changes only in the input groups a rotation joined or left
        extra_saved = 0
        for src, by in moved.items():
            if by:
                old = self.rot_count.get(src, 0)
                extra_saved += max(0, old + by - 1) - max(0, old - 1)
        delta -= self.saving * extra_saved - self.extra * ragged
        return self.total + delta
