"""Extraction: from a serialized e-graph to the cheapest program, counting sharing.

In: the JSON of ``Session.serialize()`` (extraction-gym format), the root let names,
the original ``Program`` (for argument and result types) and a ``CostTable``.
Out: an IR ``Program``.

``EGraphView`` turns the JSON into integer-indexed classes and e-nodes (primitive
children become literal arguments; analysis functions and summary nodes are dropped or
marked unextractable).  ``greedy_dag`` is the faster-greedy-DAG algorithm: every class
keeps the *set* of classes its best choice uses, and a candidate's cost is the cost of
the union of its children's sets, so a subterm used twice is paid once.  Sets are Python
integers used as bitsets, with classes bucketed by their own cost, so a set's cost is a
handful of ``bit_count`` calls.  ``to_program`` rebuilds IR from a choice per class.
The exact cost of a choice (``dag_cost``, ``refine``) subtracts the hoisting discount
(``eqsat.extract.hoisting``: rotations of one input after the first are cheaper); the
greedy pass itself prices every rotation fully and ``refine`` finds the sharing.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from eqsat.algebra.slot_keys import parse_dense_key, parse_set_key
from eqsat.egraph.view import EGraphView, ENode
from eqsat.errors import InternalError
from eqsat.extract import hoisting
from eqsat.ir import Builder, Program, Type, VecRef
from eqsat.models.cost import CostTable

if TYPE_CHECKING:
    from eqsat.extract.incremental import DagCost


class ExtractionError(InternalError):
    """The e-graph holds no finite program for a root (should never happen)."""


# -- costs of single e-nodes ---------------------------------------------------------
def node_cost(n: ENode, secret: list[bool], costs: CostTable) -> tuple[float, bool]:
    """(own cost, result is secret) of ``n`` given its children's secrecy."""
    op = n.op
    if not n.extractable:
        return math.inf, True
    if op == "In":
        return 0.0, True
    if op in ("Num", "NumF", "Dense", "Mask", "PlainIn"):
        return 0.0, False
    any_secret = any(secret)
    if not any_secret:
        return (0.0, False) if op != "Encode" else (0.0, True)
    # ``costs[key]`` read without its method call: every extraction pass prices each e-node
    # (greedy, local search, the ILP's problem: about 1,700 calls each on rr_reduce_add_and_mul_32)
    price = costs.costs.get
    if op == "Add" or op == "Sub":
        return float(price("add" if op == "Add" else "sub", 0.0) if all(secret) else price("add_plain", 0.0)), True
    if op == "Mul":
        return float(price("mul", 0.0) if all(secret) else price("mul_plain", 0.0)), True
    if op == "Neg":
        return float(price("neg", 0.0)), True
    if op == "Rot":
        return float(price("rotate", 0.0)), True
    if op == "Ext":
        return (0.0 if n.lits[0] == 0 else float(price("extract", 0.0))), True
    if op in ("Ins", "Place", "Splat"):
        return float(price("insert", 0.0)), True
    if op == "Encode":
        return 0.0, True
    if op == "Decode":
        return 0.0, False
    return 0.0, True


def node_secret(n: ENode, secret: list[bool]) -> bool:
    """Whether ``n``'s result is secret given its children's secrecy: ``node_cost(n, secret,
    costs)[1]`` without the cost (no table read)."""
    op = n.op
    if not n.extractable or op == "In":
        return True
    if op in ("Num", "NumF", "Dense", "Mask", "PlainIn"):
        return False
    if not any(secret):
        return op == "Encode"
    return op != "Decode"


@dataclass
class Choice:
    node: list[int]  # per class: chosen e-node index, -1 if none
    secret: list[bool]


def _users(g: EGraphView, extractable_only: bool = False) -> tuple[list[list[int]], list[int]]:
    """(per class the e-nodes that use it, each once, in index order; per e-node its distinct
    child classes' count). ``extractable_only``: the extractable users alone (an unextractable
    e-node, a summary, then counts 0 children): what ``greedy_dag`` reads, which never queues
    a summary (more than half of rr_reduce_add_and_mul_32's 1,264 e-nodes)."""
    users: list[list[int]] = [[] for _ in range(g.num_classes)]
    distinct: list[int] = []
    add = distinct.append
    for idx, n in enumerate(g.nodes):
        kids = n.children
        if extractable_only and not n.extractable:
            add(0)
            continue
        if len(kids) == 1:
            users[kids[0]].append(idx)
            add(1)
            continue
        seen = set(kids)
        for c in seen:
            users[c].append(idx)
        add(len(seen))
    return users, distinct


def _ready_order(g: EGraphView, users_of: tuple[list[list[int]], list[int]] | None = None) -> list[int]:
    """Classes in the order they can first get a finite program (leaves first, Kahn-style).
    ``users_of``: ``_users(g)`` when the caller has it.

    Bitsets index classes by this rank, so a class's cost set holds only lower ranks and its
    integer stays small: memory follows the DAG's depth profile, not classes x classes."""
    rank = [-1] * g.num_classes
    users, distinct = users_of if users_of is not None else _users(g)
    missing = list(distinct)
    queue = [idx for idx, n in enumerate(g.nodes) if n.extractable and missing[idx] == 0]
    order: list[int] = []
    head = 0
    while head < len(queue):
        n = g.nodes[queue[head]]
        head += 1
        if rank[n.cls] >= 0:
            continue
        rank[n.cls] = len(order)
        order.append(n.cls)
        for u in users[n.cls]:
            missing[u] -= 1
            if missing[u] == 0 and g.nodes[u].extractable:
                queue.append(u)
    for c in range(g.num_classes):  # classes with no finite program keep the last ranks
        if rank[c] < 0:
            rank[c] = len(order)
            order.append(c)
    return rank


def greedy_dag(g: EGraphView, costs: CostTable) -> Choice:
    """Faster-greedy-DAG extraction over bitsets (see the module docstring)."""
    nc = g.num_classes
    nodes = g.nodes
    # an unextractable e-node (a summary) never gets chosen: popping it changed nothing, so it is
    # never queued (the others pop in the same order: the queue's least entry among them); the
    # ready order never queues one either: the extractable users alone give the same ranks
    users_of = _users(g, extractable_only=True)
    rank = _ready_order(g, users_of)
    parents = users_of[0]
    best_cost = [math.inf] * nc
    best_node = [-1] * nc
    best_set = [0] * nc
    secret = [False] * nc
    own = [0.0] * nc
    buckets: dict[float, int] = {}
    heap: list[tuple[float, int]] = [(0.0, idx) for idx, n in enumerate(nodes) if not n.children and n.extractable]
    heapq.heapify(heap)  # (cost, index) pairs are distinct: the pops come in one order however built
    in_heap = [False] * len(nodes)  # per e-node: queued (a node is queued at most once at a time)
    for _, idx in heap:
        in_heap[idx] = True
    heappop, heappush, isinf = heapq.heappop, heapq.heappush, math.isinf
    while heap:
        _, idx = heappop(heap)
        in_heap[idx] = False
        n = nodes[idx]
        c = n.cls
        bits = 0
        kids = n.children
        for ch in kids:
            if best_node[ch] < 0:
                break
            bits |= best_set[ch]
        else:
            me = 1 << rank[c]
            if bits & me:
                continue  # would use its own class: a cycle
            w, sec = node_cost(n, [secret[ch] for ch in kids], costs)
            if isinf(w):
                continue
            cost_of_set: float = 0  # the set's cost: per own-cost bucket, price x members (as sum() adds)
            for bw, bb in buckets.items():
                if bw:
                    cost_of_set += bw * (bits & bb).bit_count()
            total = cost_of_set + w
            new_bits = bits | me
            current = best_cost[c]
            better = total < current - 1e-9
            # ties go to the candidate using fewer classes: it shares more with its siblings
            if (better or best_node[c] < 0
                    or (abs(total - current) <= 1e-9 and new_bits.bit_count() < best_set[c].bit_count())):
                if best_node[c] >= 0:
                    buckets[own[c]] &= ~me
                best_cost[c], best_node[c], secret[c], own[c] = total, idx, sec, w
                best_set[c] = new_bits
                buckets[w] = buckets.get(w, 0) | me
                for p in parents[c]:
                    if not in_heap[p]:
                        heappush(heap, (total, p))
                        in_heap[p] = True
    return Choice(best_node, secret)


def dag_cost(g: EGraphView, choice: Choice, roots: list[int], costs: CostTable) -> float:
    """Exact cost of the program a choice denotes (each reachable class once)."""
    seen: set[int] = set()
    stack = list(roots)
    total = 0.0
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        n = g.nodes[choice.node[c]]
        total += node_cost(n, [choice.secret[ch] for ch in n.children], costs)[0]
        stack.extend(n.children)
    return total - hoisting.discount(g, choice.node, [c for c in seen if choice.secret[c]], costs)


def _solution_cost(g: EGraphView, node_of: list[int], roots: list[int], costs: CostTable) -> float:
    """Exact DAG cost of a choice, or inf if it is cyclic or incomplete."""
    order: list[int] = []
    state: dict[int, int] = {}  # 1 = on stack, 2 = done
    stack: list[tuple[int, int]] = [(r, 0) for r in roots]
    while stack:
        c, phase = stack.pop()
        if phase == 0:
            st = state.get(c)
            if st == 2:
                continue
            if st == 1:
                return math.inf
            if node_of[c] < 0:
                return math.inf
            state[c] = 1
            stack.append((c, 1))
            for ch in g.nodes[node_of[c]].children:
                if state.get(ch) == 1:
                    return math.inf
                if state.get(ch) != 2:
                    stack.append((ch, 0))
        else:
            state[c] = 2
            order.append(c)
    secret: dict[int, bool] = {}
    total = 0.0
    for c in order:
        n = g.nodes[node_of[c]]
        w, sec = node_cost(n, [secret[ch] for ch in n.children], costs)
        secret[c] = sec
        total += w
    return total - hoisting.discount(g, node_of, [c for c in order if secret[c]], costs)


def refine(
    g: EGraphView, choice: Choice, roots: list[int], costs: CostTable, max_rounds: int = 4, budget_s: float = 5.0
) -> Choice:
    """Local search on exact DAG cost: switch one class's e-node at a time, keep improvements.

    Greedy-DAG breaks ties between realizations of equal own cost arbitrarily, so a class
    may pick a realization that shares nothing with the rest of the program; trying each
    alternative against the whole solution fixes exactly that.  Bounded by rounds and time.
    When no single switch helps any more, a second phase first gives the classes outside the
    program e-nodes built from classes inside it (``_rebase_outside``) and searches again:
    a switch may then pull in one new e-node where the greedy's spare choice pulled in a
    sub-program (``rr_rotation_duplicated``: 64 -> 63, the ILP's optimum). Only improvements
    are kept, so the second phase never ends above the first.
    """
    import time

    from eqsat.extract.incremental import DagCost

    start = time.perf_counter()
    node_of = list(choice.node)
    state = DagCost(g, node_of, roots, costs, node_cost)  # shares node_of; a what-if costs only what it touches
    best = state.total
    # the switches tried since the choice last changed (a commit, or a rebase of the spare
    # e-nodes): none was below ``best``, and trying one again on the same choice against the
    # same ``best`` gives the same answer -- the next round skips them (a round after the last
    # improvement, or the second phase when its rebase changes nothing, tries nothing again)
    tried: set[tuple[int, int]] = set()
    nodes, class_nodes = g.nodes, g.class_nodes
    for lookahead in (False, True):
        for _ in range(max_rounds):
            improved = False
            if lookahead and math.isfinite(state.total) and _rebase_outside(g, node_of, state, costs):
                # same program, other spare e-nodes: ``state`` stays as it is (no rebuild). Its
                # fields (post-order, reference counts, secrecy, own costs, users, rotation
                # counts) are read off the classes reachable from the roots alone, which keep
                # their e-nodes (the rebase changes only classes outside the program); a what-if
                # reads the spare classes' e-nodes from ``node_of``, shared and so up to date
                tried.clear()
            reach = _reachable(g, node_of, roots)
            for c in reach:
                if time.perf_counter() - start > budget_s:
                    return _with_secrecy(g, node_of, costs)
                cur = node_of[c]
                for alt in class_nodes[c]:
                    n = nodes[alt]
                    if alt == cur or not n.extractable or (c, alt) in tried:
                        continue
                    missing = False  # a child class without a choice
                    for ch in n.children:
                        if node_of[ch] < 0:
                            missing = True
                            break
                    if missing:
                        continue
                    if math.isinf(state.total):  # no finite program yet: the whole DAG, as it is
                        node_of[c] = alt
                        cost = _solution_cost(g, node_of, roots, costs)
                        node_of[c] = cur
                    else:
                        cost = state.switched(c, alt, best - 1e-9)  # only whether it is below best
                    if cost < best - 1e-9:
                        state.commit(c, alt)
                        best, cur, improved = state.total, alt, True
                        tried.clear()
                    else:
                        tried.add((c, alt))
            if not improved:
                break
    return _with_secrecy(g, node_of, costs)


def _rebase_outside(g: EGraphView, node_of: list[int], state: DagCost, costs: CostTable) -> bool:
    """Give each class outside the program the cheapest e-node built from classes inside it
    (where there is one): a later switch that reaches such a class then pulls in one e-node,
    not the greedy's own sub-program for it (one add ``t = a + b`` over kept ``a``, ``b``
    instead of a chain of three). Classes outside the program do not change its cost; one
    cannot be an ancestor of a class inside, so the new e-nodes close no cycle. Returns
    whether any class changed."""
    changed = False
    pos = state.pos  # ``state.reachable(c)`` is ``pos[c] >= 0``, read here without the call
    nodes, secret = g.nodes, state.secret
    for x in range(g.num_classes):
        if pos[x] >= 0:
            continue
        best, best_w = -1, math.inf
        for alt in g.class_nodes[x]:
            n = nodes[alt]
            kids = n.children
            if not n.extractable or not kids:
                continue
            inside = True  # every child class in the program
            for ch in kids:
                if pos[ch] < 0:
                    inside = False
                    break
            if not inside:
                continue
            w = node_cost(n, [secret[ch] for ch in kids], costs)[0]
            if w < best_w:
                best, best_w = alt, w
        if best < 0 or best == node_of[x]:
            continue
        cur = g.nodes[node_of[x]] if node_of[x] >= 0 else None
        if (cur is not None and all(pos[ch] >= 0 for ch in cur.children)
                and node_cost(cur, [state.secret[ch] for ch in cur.children], costs)[0] <= best_w):
            continue  # already as cheap from inside
        node_of[x] = best
        changed = True
    return changed


def _reachable(g: EGraphView, node_of: list[int], roots: list[int]) -> list[int]:
    seen: list[int] = []
    mark: set[int] = set()
    stack = list(roots)
    while stack:
        c = stack.pop()
        if c in mark:
            continue
        mark.add(c)
        seen.append(c)
        stack.extend(g.nodes[node_of[c]].children)
    return seen


def _with_secrecy(g: EGraphView, node_of: list[int], costs: CostTable) -> Choice:
    secret = [False] * len(node_of)
    done = [False] * len(node_of)

    def visit(c: int) -> bool:
        stack = [(c, 0)]
        while stack:
            x, phase = stack.pop()
            if done[x] or node_of[x] < 0:
                continue
            n = g.nodes[node_of[x]]
            if phase == 0:
                stack.append((x, 1))
                for ch in n.children:
                    if not done[ch]:
                        stack.append((ch, 0))
            else:
                secret[x] = node_secret(n, [secret[ch] for ch in n.children])
                done[x] = True
        return secret[c]

    for c in range(len(node_of)):
        if not done[c] and node_of[c] >= 0:  # (else visiting it changes nothing)
            visit(c)
    return Choice(node_of, secret)


def to_program(g: EGraphView, choice: Choice, roots: list[int], original: Program) -> Program:
    """Rebuild an IR program from a choice of e-node per class."""
    b = Builder(original.name, style=original.style)
    b.meta.update(original.meta)
    elem_by_name = {}
    for name, ty in original.args:
        b.arg(name, ty)
        elem_by_name[name] = ty
    elem = program_elem(original)
    built: dict[int, int] = {}
    on_stack: set[int] = set()

    # a 2-D tensor keeps its shape: constants and masks of its slot count take the shape of
    # the argument (or result) with that many slots, so element-wise ops see equal shapes
    shape_of: dict[int, tuple[int, ...]] = {}
    for ty in [t for _, t in original.args] + original.result_types():
        shape_of.setdefault(ty.slots, ty.shape)

    def vec_type(n: int, secret: bool) -> Type:
        return Type(() if n == 1 else shape_of.get(n, (n,)), elem, secret)

    def build(root: int) -> int:
        """Post-order over the chosen nodes, iterative (a 64x64 stencil's chosen program
        is thousands of nodes deep along its insertion chain)."""
        stack: list[tuple[int, bool]] = [(root, False)]
        while stack:
            c, expanded = stack.pop()
            if c in built:
                continue
            idx = choice.node[c]
            if idx < 0:
                raise ExtractionError("no finite program for an e-class")
            n = g.nodes[idx]
            if expanded:
                on_stack.discard(c)
                built[c] = emit_node(b, n, [built[ch] for ch in n.children], vec_type, elem_by_name)
                continue
            if c in on_stack:
                raise ExtractionError("extracted program is cyclic")
            on_stack.add(c)
            stack.append((c, True))
            for ch in reversed(n.children):
                if ch not in built:
                    if ch in on_stack:
                        raise ExtractionError("extracted program is cyclic")
                    stack.append((ch, False))
        return built[root]

    results = [build(r) for r in roots]
    # results keep their declared types (shape), e.g. a scalar stays a scalar
    prog = b.finish(results)
    return prog


def program_elem(prog: Program) -> str:
    for _, ty in prog.args:
        return ty.elem
    for t in prog.result_types():
        return t.elem
    return "i32"


def emit_node(b: Builder, n: ENode, args: list[int], vec_type, elem_by_name) -> int:  # type: ignore[no-untyped-def]
    op = n.op
    if op in ("In", "PlainIn"):
        name = str(n.lits[0])
        return b._arg_ids[name]
    if op == "Num":
        return b.const(int(n.lits[0]), vec_type(int(n.lits[1]), False))
    if op == "NumF":
        ty = vec_type(int(n.lits[1]), False)
        if not ty.is_float:
            ty = Type(ty.shape, "f64", False)
        return b.const(float(n.lits[0]), ty)
    if op == "Dense":
        if str(n.lits[0]).startswith("pv"):  # a registered vector stays a handle (linmap diagonals)
            return b.const(VecRef(str(n.lits[0])), vec_type(int(n.lits[1]), False))
        vals = tuple(parse_dense_key(str(n.lits[0])))
        return b.const(vals, vec_type(int(n.lits[1]), False))
    if op == "Mask":
        nslots = int(n.lits[1])
        chosen = set(parse_set_key(str(n.lits[0])))
        return b.const(tuple(1 if p in chosen else 0 for p in range(nslots)), vec_type(nslots, False))
    if op == "Add":
        return b.add(*args)
    if op == "Sub":
        return b.sub(*args)
    if op == "Mul":
        return b.mul(*args)
    if op == "Neg":
        return b.neg(args[0])
    if op == "Rot":
        return b.rotate(args[0], int(n.lits[0]))
    if op == "Ext":
        return b.extract(args[0], int(n.lits[0]))
    if op == "Ins":
        return b.insert(args[0], args[1], int(n.lits[0]))
    if op == "Place":
        nslots = int(n.lits[1])
        zero = b.empty(vec_type(nslots, False))
        return b.insert(args[0], zero, int(n.lits[0]))
    if op == "Splat":
        return b.splat(args[0], vec_type(int(n.lits[0]), False))
    if op == "Encode":
        return b.unary("encode", args[0])
    if op == "Decode":
        return b.unary("decode", args[0])
    raise ExtractionError(f"cannot extract op {op}")
