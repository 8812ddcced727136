"""A lower bound on the ciphertext products of *any* program that computes what a given one does.

In: an integer ``Program`` (its secret arguments are the variables; plaintext arguments are
fixed at random values, as the constants they are to the server).  Out: per output slot an
``OutputBound`` -- the secret input elements the output is affine in, and the dimension ``D``
that bounds the products -- and ``min_products(prog, rotations)``: no program with that many
rotations (any op that moves a value between slots counts as one) computes every output slot
with fewer ciphertext-ciphertext products, whatever the packing of the inputs, the lane
assignment or the order of the operations.

**Why it holds.** Write an output as ``f = sum_l x_l pi_l(c) + g(c)``, where the ``x_l`` are
secret input elements ``f`` is affine in (no ``x_l^2``, no ``x_l x_m``) and ``c`` are the
other inputs; ``D = dim(span{pi_l} + constants) - 1``.  *A straight-line program over a field
with ``m`` products computing ``f`` has ``m >= D``* (the substitution argument): take the first
product one of whose factors, ``A = sum_l a_l x_l + R(c)`` with ``a_j != 0``, involves an
``x`` directly -- every earlier value is a function of ``c`` alone, so ``R`` is computed
without products.  Substituting ``x_j := -(sum_{l != j} a_l x_l + R(c)) / a_j`` makes that
product zero and leaves a program with ``m - 1`` products computing ``f'`` of the same form
with ``pi'_l = pi_l - (a_l / a_j) pi_j``; ``span{pi} = span{pi'} + span{pi_j}``, so ``D``
drops by at most one.  When no product reads an ``x`` directly, every ``pi_l`` is a
constant: ``D = 0``.  Placing an input in several slots or ciphertexts (the client's
packing) does not make it another variable, and products by plaintexts are linear.
*SIMD*: a slot of the result after ``r`` rotations depends on at most ``2^r`` slots (each
rotation moves every slot by one amount), and one vector product is one scalar product in
each slot, so the scalar program of those slots -- ``>= D`` products -- needs at least
``ceil(D / 2^r)`` vector products.

For a decision tree of selects with distinct leaves (the sort of ``n`` values as Coyote and
CHEHAB write it: ``n!`` leaves) the ``pi_l`` are the paths' indicator polynomials, nonzero on
disjoint sets of bit assignments and summing to 1: ``D = leaves - 1`` -- 23 for the sort of 4,
so one rotation needs at least 12 products, and 1 rotation with 10 (CHEHAB's rotations with
Coyote's products) is out of reach of every program.

**How it is measured.** Everything is evaluated modulo the plaintext modulus ``p`` (a prime)
with the cleartext interpreter.  Which inputs an output is affine in is found by second
differences at random points (Schwartz-Zippel: a nonzero polynomial of degree ``d`` vanishes
at a random point with probability ``<= d / p``; ``trials`` points each), a largest such set
by greedy cliques of the compatibility graph; ``D`` is the rank, over ``p``, of the matrix of
``pi_l`` (and the constant 1) evaluated at random points, minus one.  The rank of evaluations
never exceeds the dimension of the functions, so the bound is never too high on that account.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from eqsat.interp import PLAINTEXT_MODULUS, evaluate
from eqsat.ir import Program

Element = tuple[str, int]  # (argument name, flat index)


@dataclass(frozen=True)
class OutputBound:
    """One output slot: ``(result index, slot)``, the input elements it is affine in, and ``D``."""

    output: tuple[int, int]
    linear: tuple[Element, ...]
    dimension: int

    def products(self, rotations: int) -> int:
        """The fewest vector products any program with ``rotations`` rotations can compute this
        output slot with: ``ceil(D / 2^rotations)``."""
        return -(-self.dimension // (1 << max(0, rotations)))


class _Eval:
    """The program as a function of its secret input elements, modulo ``p``."""

    def __init__(self, prog: Program, p: int, rng: random.Random) -> None:
        self.prog, self.p = prog, p
        self.secret = [(n, ty.slots, ty.is_scalar) for n, ty in prog.args if ty.secret]
        self.plain = {n: (rng.randrange(p) if ty.is_scalar else [rng.randrange(p) for _ in range(ty.slots)])
                      for n, ty in prog.args if not ty.secret}
        self.elements: list[Element] = [(n, i) for n, k, _ in self.secret for i in range(k)]

    def random_point(self, rng: random.Random) -> dict[Element, int]:
        return {e: rng.randrange(self.p) for e in self.elements}

    def __call__(self, point: dict[Element, int]) -> list[int]:
        inputs: dict[str, object] = dict(self.plain)
        for name, k, scalar in self.secret:
            vals = [point.get((name, i), 0) % self.p for i in range(k)]
            inputs[name] = vals[0] if scalar else vals
        out: list[int] = []
        for r in evaluate(self.prog, inputs, modulus=self.p):
            out.extend(int(v) % self.p for v in (r if isinstance(r, list) else [r]))
        return out


def _shift(point: dict[Element, int], *moves: tuple[Element, int]) -> dict[Element, int]:
    q = dict(point)
    for e, d in moves:
        q[e] = q.get(e, 0) + d
    return q


def _rank(rows: list[list[int]], p: int) -> int:
    """Rank of an integer matrix modulo the prime ``p``."""
    m = [list(r) for r in rows]
    rank, cols = 0, len(m[0]) if m else 0
    for c in range(cols):
        piv = next((i for i in range(rank, len(m)) if m[i][c] % p), None)
        if piv is None:
            continue
        m[rank], m[piv] = m[piv], m[rank]
        inv = pow(m[rank][c], p - 2, p)
        m[rank] = [v * inv % p for v in m[rank]]
        for i in range(len(m)):
            if i != rank and m[i][c] % p:
                f = m[i][c]
                m[i] = [(a - f * b) % p for a, b in zip(m[i], m[rank], strict=True)]
        rank += 1
    return rank


def _cliques(nodes: list[Element], ok: dict[Element, set[Element]], keep: int) -> list[list[Element]]:
    """A few large cliques of the compatibility graph: from every start, add the candidates
    compatible with all so far, most-compatible first; the ``keep`` largest distinct ones."""
    order = sorted(nodes, key=lambda e: (-len(ok[e]), e))
    found: set[tuple[Element, ...]] = set()
    for start in order:
        clique = [start]
        for e in order:
            if e != start and all(e in ok[c] for c in clique):
                clique.append(e)
        found.add(tuple(sorted(clique)))
    return [list(c) for c in sorted(found, key=lambda c: (-len(c), c))[:keep]]


def product_bounds(prog: Program, trials: int = 3, seed: int = 0, max_elements: int = 64,
                   max_outputs: int = 64, keep: int = 3) -> list[OutputBound] | None:
    """The bound of every output slot (see the module docstring); None for float programs
    and for programs with more than ``max_elements`` secret input elements or
    ``max_outputs`` output slots (the measurement grows with their square)."""
    if any(ty.is_float for _, ty in prog.args) or any(prog.nodes[r].type.is_float for r in prog.results):
        return None
    rng = random.Random(seed)
    p = PLAINTEXT_MODULUS
    f = _Eval(prog, p, rng)
    elems = f.elements
    if len(elems) > max_elements:
        return None
    points = [f.random_point(rng) for _ in range(len(elems) + 5)]  # enough for any rank below
    base = [f(u) for u in points]
    n_out = len(base[0])
    if n_out > max_outputs:
        return None
    one = [{e: f(_shift(u, (e, 1))) for e in elems} for u in points]
    tests = range(min(trials, len(points)))
    # affine alone: f(u + 2e) - 2 f(u + e) + f(u) == 0 at every trial point
    alone: dict[Element, list[bool]] = {}
    for e in elems:
        flags = [True] * n_out
        for t in tests:
            two = f(_shift(points[t], (e, 2)))
            for o in range(n_out):
                if (two[o] - 2 * one[t][e][o] + base[t][o]) % p:
                    flags[o] = False
        alone[e] = flags
    cand = [e for e in elems if any(alone[e])]
    # no cross term: f(u + e + e') - f(u + e) - f(u + e') + f(u) == 0
    cross_ok: dict[tuple[Element, Element], list[bool]] = {}
    for i, e in enumerate(cand):
        for e2 in cand[i + 1:]:
            flags = [True] * n_out
            for t in tests:
                both = f(_shift(points[t], (e, 1), (e2, 1)))
                for o in range(n_out):
                    if (both[o] - one[t][e][o] - one[t][e2][o] + base[t][o]) % p:
                        flags[o] = False
            cross_ok[(e, e2)] = cross_ok[(e2, e)] = flags
    # pi_l at every point: f(u + e_l) - f(u), whatever the other affine inputs are (no cross term)
    out: list[OutputBound] = []
    slot_of = [(ri, s) for ri, r in enumerate(prog.results) for s in range(prog.nodes[r].type.slots)]
    for o in range(n_out):
        nodes = [e for e in cand if alone[e][o]]
        ok = {e: {e2 for e2 in nodes if e2 != e and cross_ok[(e, e2)][o]} for e in nodes}
        best = OutputBound(slot_of[o], (), 0)
        for clique in _cliques(nodes, ok, keep):
            rows = [[(one[s][x][o] - base[s][o]) % p for x in clique] + [1] for s in range(len(points))]
            d = _rank(rows, p) - 1
            if d > best.dimension:
                best = OutputBound(slot_of[o], tuple(clique), d)
        out.append(best)
    return out


def min_products(prog: Program, rotations: int, **options: int) -> int | None:
    """The fewest ct*ct products any program with ``rotations`` rotations computing ``prog``'s
    outputs can have (the largest bound over its output slots); None where not measured."""
    bounds = product_bounds(prog, **options)
    if bounds is None:
        return None
    return max((b.products(rotations) for b in bounds), default=0)
