"""Addition-subtraction chains: the oracle behind rewriting ``x * c`` into additions.

In: a plaintext integer constant ``c``.  Out: a ``Chain`` -- a recipe that computes
``c * x`` from a ciphertext ``x`` with ciphertext additions, subtractions (and at most one
negation), together with its length (= number of ciphertext ops).

A chain starts from the element ``1`` (standing for ``x``).  Step ``i`` appends
``elem[j] + elem[k]`` or ``elem[j] - elem[k]`` with ``j, k`` earlier indices (``j == k``
is a doubling); a ``("neg", j, j)`` step appends ``-elem[j]``.  The last element is the
target.  Examples: ``9 = 1, 2, 4, 8, 9`` (length 4), ``255 = 1, 2, ..., 256, 255``
(length 9).

Functions
---------
``optimal_chain(c)``
    A shortest chain.  Exact for ``1 <= |c| < EXACT_LIMIT`` (= 2**12) by iterative
    deepening depth-first search (see ``_search``).  Above that it returns the best of a
    memoised recursive heuristic (``c = 2 m``, ``c = 2 m +- 1``, ``c = a b`` with odd
    ``a < 1024``, exact chains for the pieces below EXACT_LIMIT), binary and NAF --
    never worse than NAF, not provably optimal.  Results are memoised in memory.
    Exact search costs ~3 s in total for all c < 1024 and roughly 0.05-0.4 s per c
    in [2048, 4096).
``binary_chain(c)``, ``naf_chain(c)``
    The classic double-and-add and the non-adjacent-form (signed binary) baselines.
``brute_force_length(c)``
    An independent, deliberately simple exhaustive search (breadth first over the
    *sets* of values reachable with ``n`` steps) used to verify ``optimal_chain``.
``chain_table(limit)``
    ``{c: optimal_chain(c) for 1 <= c < limit}``.

Special targets: ``0`` has no steps (the product is the plaintext zero, no ciphertext
op); ``1`` has no steps; ``-1`` is one ``neg``.  For ``c < 0`` we take a shortest chain
for ``|c|`` whose last step is a difference ``a - b`` and swap its operands (same length),
or, when no shortest chain ends in a difference, a shortest chain for ``|c|`` followed by
one ``neg``.  This is optimal over chains with positive intermediate values; the tests
check it against a signed brute force (values of any sign, ``neg`` steps) for small
``|c|``.

Why the search is exact
-----------------------
* Signs: replacing every element by its absolute value keeps a chain valid
  (``|a +- b|`` is ``|a| + |b|`` or ``||a| - |b||``), so for ``c > 0`` it suffices to
  search chains of distinct positive values (a repeated value is a wasted step).
* Doubling bound: the largest element at most doubles per step, so a partial chain
  with maximum ``M`` and ``r`` steps left is pruned when ``M * 2**r < c``.
* Last step: in a shortest chain every element is used by a later step, so the
  element just before ``c`` is an operand of the last step.
* Canonical order: two adjacent steps where the second does not use the first's result
  can be swapped.  Bubble-sorting such pairs by value terminates (each swap removes an
  inversion) and gives a chain of the same length in which every step that does not
  use the previous element creates a larger value than it.  The last step is never
  swapped (it uses its predecessor).  So we only explore children ``v`` that are
  either formed with the previous element or larger than it.
* Two-step look-ahead: with two steps left we enumerate only the values ``v`` from
  which ``c`` is one step away (``c = v + b``, ``v - b``, ``b - v``, ``2 v``), and
  check that ``v`` is formable from the chain.
Every pruning is cross-checked in the tests against ``brute_force_length``, which uses
none of them (only the absolute-value argument and the doubling bound).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

import numpy as np

EXACT_LIMIT = 1 << 12
"""``optimal_chain`` is exact (by search) for ``1 <= |c| < EXACT_LIMIT``."""

Step = tuple[str, int, int]
T = TypeVar("T")


@dataclass(frozen=True)
class Chain:
    """A recipe for ``target * x``: ``steps[i]`` creates element ``i + 1``; element 0 is 1."""

    target: int
    steps: tuple[Step, ...]

    def values(self) -> list[int]:
        """All elements, starting with 1; the last one is ``target`` (except for target 0)."""
        return self.evaluate(1, lambda a, b: a + b, lambda a, b: a - b, lambda a: -a)

    @property
    def length(self) -> int:
        """Number of ciphertext operations (additions, subtractions and negations)."""
        return len(self.steps)

    def op_counts(self) -> dict[str, int]:
        """Ops by name (``add``, ``sub``, ``neg``; absent = 0), as in the cost tables."""
        counts: dict[str, int] = {}
        for op, _, _ in self.steps:
            counts[op] = counts.get(op, 0) + 1
        return counts

    def evaluate(
        self,
        x: T,
        add: Callable[[T, T], T],
        sub: Callable[[T, T], T],
        neg: Callable[[T], T],
    ) -> list[T]:
        """Run the steps on ``x`` with the given operations; returns every element.

        The last element is ``target * x`` (for target 0 the list is ``[x]`` and the
        product is the zero constant, which needs no ciphertext operation).
        """
        elems = [x]
        for op, j, k in self.steps:
            if op == "add":
                elems.append(add(elems[j], elems[k]))
            elif op == "sub":
                elems.append(sub(elems[j], elems[k]))
            elif op == "neg":
                elems.append(neg(elems[j]))
            else:
                raise ValueError(f"Unknown chain step {op!r}; expected 'add', 'sub' or 'neg'.")
        return elems


# --------------------------------------------------------------------------- building


def _steps_for(values: list[int]) -> tuple[Step, ...]:
    """Recover steps for a list of positive values ``[1, ...]``, each a sum or difference
    of two earlier ones; the step of the last value uses the value just before it."""
    steps: list[Step] = []
    index = {values[0]: 0}
    for i in range(1, len(values)):
        v = values[i]
        # Try the previous element first so the final step uses its predecessor.
        order = [i - 1, *range(i - 1)]
        step = _find_step(v, order, values, index)
        if step is None:
            raise AssertionError(f"Value {v} is not a sum or difference of earlier values {values[:i]}.")
        steps.append(step)
        index[v] = i
    return tuple(steps)


def _find_step(v: int, order: list[int], values: list[int], index: dict[int, int]) -> Step | None:
    for j in order:
        a = values[j]
        if v - a in index:
            return ("add", j, index[v - a])
        if a - v in index:
            return ("sub", j, index[a - v])
        if a + v in index:
            return ("sub", index[a + v], j)
    return None


def _ending_in_sub_swapped(chain: Chain) -> Chain | None:
    """``-target`` from a chain whose last step is a difference, by swapping its operands."""
    if not chain.steps or chain.steps[-1][0] != "sub":
        return None
    _, j, k = chain.steps[-1]
    return Chain(-chain.target, (*chain.steps[:-1], ("sub", k, j)))


def _negated(chain: Chain) -> Chain:
    last = len(chain.steps)
    return Chain(-chain.target, (*chain.steps, ("neg", last, last)))


def binary_chain(c: int) -> Chain:
    """Left-to-right double-and-add over the binary digits of ``|c|`` (negated for c < 0)."""
    if c < 0:
        return _sign_fix(binary_chain(-c), -c)
    if c <= 1:
        return Chain(c, ())
    steps: list[Step] = []
    last = 0
    for bit in bin(c)[3:]:
        steps.append(("add", last, last))
        last += 1
        if bit == "1":
            steps.append(("add", last, 0))
            last += 1
    return Chain(c, tuple(steps))


def naf_digits(c: int) -> list[int]:
    """Non-adjacent form of ``c > 0``, most significant digit first (digits in {-1, 0, 1})."""
    digits: list[int] = []
    while c:
        if c & 1:
            d = 2 - (c & 3)
            c -= d
        else:
            d = 0
        digits.append(d)
        c >>= 1
    return digits[::-1]


def naf_chain(c: int) -> Chain:
    """Left-to-right double-and-add/subtract over the NAF digits of ``|c|``."""
    if c < 0:
        return _sign_fix(naf_chain(-c), -c)
    if c <= 1:
        return Chain(c, ())
    steps: list[Step] = []
    last = 0
    for d in naf_digits(c)[1:]:
        steps.append(("add", last, last))
        last += 1
        if d:
            steps.append(("add" if d > 0 else "sub", last, 0))
            last += 1
    return Chain(c, tuple(steps))


def _sign_fix(positive: Chain, c: int) -> Chain:
    """A chain for ``-c`` from one for ``c > 0``: swap a final difference, else negate."""
    swapped = _ending_in_sub_swapped(positive)
    return swapped if swapped is not None else _negated(positive)


# --------------------------------------------------------------------------- exact search


#: the pure-Python search stops after this many nodes of its tree (about 0.1 s; Python visits
#: some 50,000 a second) and numba's compiled kernel takes over, for the rest of the process:
#: most searches are small (every c below 512 needs fewer nodes), and importing numba and
#: loading the compiled kernel costs 1-3 s in every new process (each e-graph worker is one)
PY_SEARCH_BUDGET = 5_000


def _search(c: int, length: int, final_sub: bool) -> list[int] | None:
    """A chain ``[1, ..., c]`` of exactly ``length`` steps, or None if none exists.

    With ``final_sub`` the last step must be a difference.  Requires ``c >= 2``.  The same
    kernel runs as Python first, within ``PY_SEARCH_BUDGET``, then compiled (same result).
    """
    if (1 << length) < c:
        return None
    g = globals()
    if hasattr(g["_search_kernel"], "py_func"):  # compiled already (numba paid): no Python first
        found = g["_search_kernel"](c, length, final_sub, 0)
    else:
        found = _PY_KERNEL(c, length, final_sub, PY_SEARCH_BUDGET)
        if len(found) == 1 and found[0] < 0:  # over budget: the compiled kernel, without one
            found = _kernels()(c, length, final_sub, 0)
    return [int(v) for v in found] if len(found) else None


_KERNELS = ("_last_step_ok", "_uses", "_two_steps", "_children", "_search_kernel")


def _kernels() -> Callable[[int, int, bool, int], np.ndarray]:
    """The search kernel, compiled by numba on first use (importing numba costs about a
    second, which runs that never search a chain should not pay).  All kernels are
    compiled together: numba resolves the kernels' calls to each other as globals."""
    g = globals()
    if not hasattr(g["_search_kernel"], "py_func"):
        from numba import njit

        for name in _KERNELS:
            g[name] = njit(cache=True)(g[name])
    return g["_search_kernel"]  # type: ignore[no-any-return]


def _last_step_ok(member: np.ndarray, c: int, last: int, final_sub: bool) -> bool:
    # c = last - b, c = b - last, or (unless final_sub) c = last + b with b in the chain.
    if last > c and member[last - c]:
        return True
    if member[c + last]:
        return True
    return not final_sub and c > last and (member[c - last] or c == 2 * last)


def _uses(member: np.ndarray, v: int, x: int) -> bool:
    # v = x + b, x - b or b - x for some chain element b (x itself included).
    return (v > x and member[v - x]) or (x > v and member[x - v]) or member[v + x]


def _two_steps(member: np.ndarray, chain: np.ndarray, n: int, c: int, final_sub: bool) -> int:
    """With two steps left: a value w such that chain + [w, c] is valid, else 0."""
    last = chain[n - 1]
    for i in range(n + 1):
        for kind in range(3):
            # Candidates w from which c is one step away: c + b, b - c, c - b, c / 2.
            if i == n:
                if kind > 0 or final_sub or c % 2:
                    continue
                w = c // 2
            else:
                b = chain[i]
                w = c + b if kind == 0 else (b - c if kind == 1 else c - b)
                if w <= 0 or (kind == 2 and final_sub):
                    continue
            if member[w]:
                continue
            ok = _uses(member, w, last)  # canonical: w uses last, or w > last
            if not ok and w > last:
                for j in range(n):
                    if _uses(member, w, chain[j]):
                        ok = True
                        break
            if not ok:
                continue
            member[w] = True
            ok = _last_step_ok(member, c, w, final_sub)
            member[w] = False
            if ok:
                return w
    return 0


def _children(member: np.ndarray, chain: np.ndarray, n: int, out: np.ndarray) -> int:
    """Canonical children of chain[:n], descending and distinct, into out; returns count."""
    last = chain[n - 1]
    k = 0
    for i in range(n):
        a = chain[i]
        for j in range(i + 1):
            b = chain[j]
            with_last = i == n - 1 or j == n - 1
            s = a + b
            if (s > last or with_last) and not member[s]:
                out[k] = s
                k += 1
            d = a - b if a > b else b - a
            if d > 0 and (d > last or with_last) and not member[d]:
                out[k] = d
                k += 1
    srt = np.sort(out[:k])[::-1]
    m = 0
    for i in range(k):
        if m == 0 or srt[i] != out[m - 1]:
            out[m] = srt[i]
            m += 1
    return m


def _search_kernel(c: int, length: int, final_sub: bool, budget: int) -> np.ndarray:
    """Iterative-deepening worker: one depth-first search at a fixed ``length``; with
    ``budget`` > 0 it gives up after that many tree nodes and returns ``[-1]``."""
    empty = np.zeros(0, np.int64)
    visited = 0
    member = np.zeros((1 << (length + 2)) + 4 * c + 8, np.bool_)
    chain = np.zeros(length + 2, np.int64)
    chain[0] = 1
    member[1] = True
    if length == 1:
        chain[1] = 2
        return chain[:2] if c == 2 and not final_sub else empty
    if length == 2:
        w = _two_steps(member, chain, 1, c, final_sub)
        if w == 0:
            return empty
        chain[1] = w
        chain[2] = c
        return chain[:3]
    width = 2 * (length + 2) * (length + 2)
    kids = np.zeros((length + 2, width), np.int64)
    count = np.zeros(length + 2, np.int64)
    pos = np.zeros(length + 2, np.int64)
    top = np.zeros(length + 2, np.int64)  # top[k], second[k]: largest two of chain[:k+1]
    second = np.zeros(length + 2, np.int64)
    top[0] = 1
    n = 1  # chain[:n] is the partial chain; we choose chain[n]
    count[1] = _children(member, chain, 1, kids[1])
    while n >= 1:
        visited += 1
        if budget > 0 and visited > budget:
            return np.full(1, -1, np.int64)
        if pos[n] >= count[n]:
            n -= 1
            if n >= 1:
                member[chain[n]] = False
            continue
        v = kids[n, pos[n]]
        pos[n] += 1
        left = length - n  # steps left after choosing chain[n] (>= 2)
        if v > top[n - 1]:
            new_top, new_second = v, top[n - 1]
        else:
            new_top, new_second = top[n - 1], max(second[n - 1], v)
        need = (c + (1 << left) - 1) >> left
        if new_top < need:
            pos[n] = count[n]  # sorted descending: the rest are smaller
            continue
        # Refined doubling bound: c == top * 2**left or c <= (top + max(second, top/2)) 2**(left-1).
        if c != new_top << left and 2 * c > (2 * new_top + max(2 * new_second, new_top)) << (left - 1):
            continue
        chain[n] = v
        member[v] = True
        top[n] = new_top
        second[n] = new_second
        if left == 2:
            w = _two_steps(member, chain, n + 1, c, final_sub)
            if w:
                chain[n + 1] = w
                chain[n + 2] = c
                return chain[: n + 3]
            member[v] = False
            continue
        n += 1
        pos[n] = 0
        count[n] = _children(member, chain, n, kids[n])
    return empty


@cache
def _exact_positive(c: int) -> Chain:
    if c == 1:
        return Chain(1, ())
    length = (c - 1).bit_length()  # ceil(log2 c): the doubling lower bound
    while True:
        values = _search(c, length, final_sub=False)
        if values is not None:
            return Chain(c, _steps_for(values))
        length += 1


@cache
def _exact_negative(c: int) -> Chain:
    """Shortest chain for ``-c`` (c > 0) as documented in the module docstring."""
    best = _exact_positive(c)
    if best.length == 0:
        return _negated(best)
    swapped = _ending_in_sub_swapped(best)
    if swapped is not None:
        return swapped
    values = _search(c, best.length, final_sub=True)
    if values is None:
        return _negated(best)
    chain = _ending_in_sub_swapped(Chain(c, _steps_for(values)))
    if chain is None:  # _steps_for picked a sum; find the difference explicitly
        index = {v: i for i, v in enumerate(values)}
        prev = values[-2]
        n = len(values) - 2
        step: Step = ("sub", n, index[prev - c]) if prev - c in index else ("sub", index[c + prev], n)
        chain = _ending_in_sub_swapped(Chain(c, (*_steps_for(values[:-1]), step)))
    assert chain is not None
    return chain


def load_compiled() -> None:
    """Compile (or load from numba's cache) the search kernel now, e.g. in a server before it
    forks per request, so that no request pays numba's start-up for a large constant."""
    _kernels()(3, 2, False, 0)


#: the search as plain Python (its calls to the other kernels go through the module's globals:
#: Python functions, or numba's once ``_kernels`` compiled them)
_PY_KERNEL = _search_kernel


# --------------------------------------------------------------------------- heuristic


def _compose(outer: Chain, inner: Chain) -> Chain:
    """``inner.target * outer.target``: run ``outer``, then ``inner`` on its result."""
    base = len(outer.steps)
    shifted = [(op, j + base, k + base) for op, j, k in inner.steps]
    return Chain(outer.target * inner.target, (*outer.steps, *shifted))


def _append(chain: Chain, step: Step, target: int) -> Chain:
    return Chain(target, (*chain.steps, step))


@cache
def _heuristic_positive(c: int) -> Chain:
    """Best of: exact below EXACT_LIMIT; else 2m, 2m +- 1 and a b decompositions."""
    if c < EXACT_LIMIT:
        return _exact_positive(c)
    candidates: list[Chain] = [naf_chain(c), binary_chain(c)]
    if c % 2 == 0:
        half = _heuristic_positive(c // 2)
        n = len(half.steps)
        candidates.append(_append(half, ("add", n, n), c))
    else:
        for m, op in (((c - 1) // 2, "add"), ((c + 1) // 2, "sub")):
            head = _heuristic_positive(m)
            n = len(head.steps)
            doubled = _append(head, ("add", n, n), 2 * m)
            candidates.append(_append(doubled, (op, n + 1, 0), c))
    for f in _small_factors(c):
        candidates.append(_compose(_exact_positive(f), _heuristic_positive(c // f)))
    return min(candidates, key=lambda ch: ch.length)


def _small_factors(c: int) -> list[int]:
    # Odd factors below 1024, whose exact chains are cheap to search.
    return [f for f in range(3, min(c, 1024), 2) if c % f == 0 and c // f > 1][:4]


# --------------------------------------------------------------------------- public API


def optimal_chain(c: int) -> Chain:
    """A shortest addition-subtraction chain for ``c`` (exact for ``|c| < EXACT_LIMIT``)."""
    if c == 0:
        return Chain(0, ())
    if c < 0:
        if -c < EXACT_LIMIT:
            return _exact_negative(-c)
        return _sign_fix(_heuristic_positive(-c), -c)
    return _heuristic_positive(c)


def chain_table(limit: int = 1024) -> dict[int, Chain]:
    """Shortest chains for every ``1 <= c < limit`` (memoised per ``c``)."""
    return {c: optimal_chain(c) for c in range(1, limit)}


def brute_force_length(c: int, max_len: int = 16) -> int:
    """Length of a shortest chain for ``c``, by breadth-first search over value sets.

    Level ``n`` holds every set of values reachable with ``n`` steps whose maximum can
    still reach ``|c|`` by doubling within ``max_len``-bounded budget of the current
    iteration.  For ``c > 0`` values are kept positive (see the module docstring); for
    ``c < 0`` values of any sign and ``neg`` steps are allowed.  Raises ValueError if no
    chain of length ``<= max_len`` exists.
    """
    if c in (0, 1):
        return 0
    signed = c < 0
    for length in range(1, max_len + 1):
        level: set[frozenset[int]] = {frozenset({1})}
        for done in range(length - 1):
            left = length - done - 1  # steps left after this one
            nxt: set[frozenset[int]] = set()
            for s in level:
                for v in _one_step(s, signed):
                    t = s | {v}
                    if max(abs(e) for e in t) << left >= abs(c):
                        nxt.add(t)
            level = nxt
        if any(c in _one_step(s, signed) for s in level):
            return length
    raise ValueError(f"No chain for {c} with at most {max_len} steps.")


def _one_step(s: frozenset[int], signed: bool) -> set[int]:
    out: set[int] = set()
    for a in s:
        for b in s:
            out.add(a + b)
            out.add(a - b)
        if signed:
            out.add(-a)
    if not signed:
        out = {v for v in out if v > 0}
    return out
