"""Hoisted rotations in the cost of a program: one key-switching decomposition per value.

In: an IR ``Program`` and a ``CostTable``.  Out: ``rotations_by_input`` (per secret
value, how many ring rotations read it), ``hoisted_rotations`` (how many of those reuse
a decomposition: all but the first per value) and ``program_cost`` (the table's op-count
total minus ``hoisted_saving`` per hoisted rotation) -- the ``cost`` of the reports.

What counts as a rotation of a value ``v``: ``rotate(v, k)``, ``extract(v, i)`` with
``i != 0`` (the executor reads slot ``i`` by rotating ``v`` by ``i``) and the direct
realization of an unrealized ``linmap(v)`` (one rotation of ``v`` per nonzero
diagonal).  The executor (``backend/rlwe.py``) keeps the decomposition of a rotated
ciphertext and serves its later rotations from it, so the model prices the first
rotation of each value at ``rotate`` and the others at ``rotate_hoisted``.  A rotation of
a vector whose slot count is not a power of two also pays ``ragged_surcharge`` (its
lowering: two rotations of the input, two masks, an addition).  Extraction
prices a choice the same way (``eqsat.extract.hoisting``), so the report's cost and the
extracted objective agree.
"""

from __future__ import annotations

from eqsat.ir import Program
from eqsat.models.cost import CostTable


def rotations_by_input(prog: Program) -> dict[int, int]:
    """Secret value id -> the number of ring rotations of it in ``prog`` (see the module)."""
    return dict(prog.cached("rotations_by_input", lambda: _rotations_by_input(prog)))


def _rotations_by_input(prog: Program) -> dict[int, int]:
    out: dict[int, int] = {}
    for i in prog.live():
        n = prog.nodes[i]
        if not n.type.secret or not n.args:
            continue
        src = n.args[0]
        if not prog.nodes[src].type.secret:
            continue
        k = 0
        if n.op == "rotate" or (n.op == "extract" and n.attrs[0] != 0):
            k = 1
        elif n.op == "linmap":
            from eqsat.algebra.linmap import lookup, plan_direct

            k = plan_direct(lookup(str(n.attrs[0]))).rotations
        if k:
            out[src] = out.get(src, 0) + k
    return out


def hoisted_count(counts: dict[int, int] | list[int]) -> int:
    """Rotations that reuse a decomposition: all but the first of each value's."""
    vals = counts.values() if isinstance(counts, dict) else counts
    return sum(max(0, r - 1) for r in vals)


def hoisted_rotations(prog: Program) -> int:
    return hoisted_count(rotations_by_input(prog))


def program_cost(prog: Program, costs: CostTable) -> float:
    """Model cost of ``prog``: op counts priced by the table, hoisted rotations at
    ``rotate_hoisted`` instead of ``rotate``."""
    from eqsat.ir import op_counts

    total = costs.total(op_counts(prog)) - costs.hoisted_saving * hoisted_rotations(prog)
    extra = ragged_surcharge(costs)
    if extra:
        total += extra * prog.cached("ragged", lambda: sum(_ragged_rotations(prog, i) for i in prog.live()))
    return total


def _ragged_rotations(prog: Program, i: int) -> int:
    """Rotations of a vector whose slot count is not a power of two at node ``i`` (a
    ``linmap``'s direct realization rotates once per nonzero diagonal)."""
    n = prog.nodes[i]
    slots = n.type.slots
    if n.op not in ("rotate", "linmap") or not n.type.secret or not (slots > 1 and slots & (slots - 1) != 0):
        return 0
    if n.op == "linmap":
        from eqsat.algebra.linmap import lookup, plan_direct

        return plan_direct(lookup(str(n.attrs[0]))).rotations
    return 1


def ragged_surcharge(costs: CostTable) -> float:
    """What a rotation of a vector whose slot count is not a power of two (and above 1)
    costs beyond one ``rotate``: the executor runs it as rot(v, k) * 1[0, n-k) +
    rot(v, k-n) * 1[n-k, n) -- a second rotation of the same input (hoisted), two masks
    and an addition.  The article's ``noisy`` model has none."""
    if costs.scheme == "noisy":
        return 0.0
    return costs["rotate"] - costs.hoisted_saving + 2 * costs["mul_plain"] + costs["add"]
