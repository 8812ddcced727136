"""Oracles for the arithmetic rule families (mul-to-add): chains of a constant, by index.

In: an integer constant ``c`` (any ``i64``) and an element index ``i``.  Out: the
addition-subtraction chain the ``mul-to-add`` family realizes for ``c * x``, queried one
element at a time:

* ``chain_length(c)``: its number of steps (0 when no chain is used: ``|c| <= 1`` or
  ``|c| >= CHAIN_LIMIT``);
* ``step_op(c, i)``: ``"add"``, ``"sub"`` or ``"neg"`` for the step creating element
  ``i`` (``1 <= i <= chain_length(c)``), ``""`` otherwise;
* ``step_j(c, i)``, ``step_k(c, i)``: the indices of its operands (0 when invalid);
* ``elem_value(c, i)``: element ``i``'s multiplier (element 0 is 1 for every ``c``, an
  invalid index gives 0; signed, so it is
  only used by the concrete semantics, never through ``L.call_int``).

Elements are addressed by index *within the chain of c*, so every element of one chain
is realized from the same chain and the e-graph holds exactly that chain: this is what
makes extraction count the optimal number of additions.  Chains come from
``eqsat.algebra.chains``: exact (shortest) for ``|c| < EXACT_LIMIT`` (2**12), its heuristic up
to ``HEURISTIC_LIMIT`` and the signed-binary (NAF) chain above; the search time of the
exact chains grows quickly with ``c``, and egglog may call an oracle for any constant
in the program, so every function is total, fast above the limits, and memoized.
"""

from __future__ import annotations

from functools import cache

from eqsat.algebra.chains import Chain, naf_chain, optimal_chain

HEURISTIC_LIMIT = 1 << 14
"""Below this ``|c|`` we use ``optimal_chain`` (exact below 2**12); above, NAF."""

CHAIN_LIMIT = 1 << 31
"""No chain for ``|c| >= CHAIN_LIMIT`` (the product stays a plaintext multiplication)."""


@cache
def chain_of(c: int) -> Chain | None:
    """The chain realized for ``c * x``, or None (no rewrite)."""
    if abs(c) <= 1 or abs(c) >= CHAIN_LIMIT:
        return None
    return optimal_chain(c) if abs(c) < HEURISTIC_LIMIT else naf_chain(c)


@cache
def _values(c: int) -> tuple[int, ...]:
    ch = chain_of(c)
    return tuple(ch.values()) if ch is not None else ()


def chain_length(c: int) -> int:
    """Number of steps of the chain for ``c`` (0 = no chain)."""
    ch = chain_of(c)
    return 0 if ch is None else ch.length


def _step(c: int, i: int) -> tuple[str, int, int]:
    ch = chain_of(c)
    if ch is None or not 1 <= i <= ch.length:
        return ("", 0, 0)
    return ch.steps[i - 1]


def step_op(c: int, i: int) -> str:
    """``"add"``/``"sub"``/``"neg"`` for the step making element ``i``; ``""`` if none."""
    return _step(c, i)[0]


def step_j(c: int, i: int) -> int:
    """Index of the first operand of the step making element ``i`` (0 if none)."""
    return _step(c, i)[1]


def step_k(c: int, i: int) -> int:
    """Index of the second operand (for ``neg`` equal to the first; 0 if none)."""
    return _step(c, i)[2]


def elem_value(c: int, i: int) -> int:
    """Element ``i``'s multiplier in the chain for ``c`` (element 0 is always 1; 0 if invalid)."""
    if i == 0:
        return 1
    vals = _values(c)
    return vals[i] if 0 <= i < len(vals) else 0
