"""Factoring (distributivity read right to left), with bounded growth.

In: nothing. Out: ``FAMILY`` (``RuleFamily``, ruleset ``factor``).

A common factor is only pulled out when it is *syntactically shared* (the same e-class
in both products) and is an input ``x`` or a sum of two inputs ``x + y`` (kinds ``in``,
``inadd``; one rule per kind, the kind is part of the rule name).  The factor is matched
through the leaf-key analysis, so a class merged with a constant never qualifies:

* constant factors made factoring explode: every doubling of a mul-to-add chain is also
  ``e * 2``, so ``2`` is shared by hundreds of products and pulling it out of every
  sub-sum enumerates subsets (random 2,000-op program: 4.5k matches of one rule in the
  third iteration, then out of memory);
* product and sum factors matched structurally (``Mul(p, q)``) also match the class of
  0, which holds ``a * 0`` for every ``a``: 80k matches of one rule in one iteration.

Skipping over a sum level (a limited associativity, what balanced sums need) comes in
two forms: over a constant, with an input factor on the left of both products (Horner:
``x c1 + x (x c2) + ...`` becomes ``c1 + x (c2 + ...)``: ``factor-skip-left`` moves the
constant term of an inner Horner sum out of the way, ``factor-skip-right`` the constant
that the loader sorts last), and over any term only for a shared sum of two inputs (the
six pairwise products: ``(a (b + c) + y) + (b + c) d``).  Without commutativity each
other rule comes in the four operand orders of its two products (``l``: the shared
factor is the left operand).

The e-graph keeps both sides of every factoring, so only a product the source wrote
factored lacks its distributed form.  Distribution by a constant (``x (b + k) = x b +
x k``, ``k (x + c) = k x + k c``, even restricted to an input ``x``) is left out: it fed
mul-to-add and ring's ``add-const-assoc`` new constant products and sums every iteration
(random 500-op program, ``all`` schedule: 41k nodes, 2.9 GB and a 47 s iteration after
23 iterations with it; 18.5k nodes after 40 iterations, 0.1 s each, without).  The
``all`` schedule still does not saturate on random programs: ``add-const-assoc`` keeps
adding a few hundred nodes per iteration (numbers: ``experiments/out/arith_scale.csv``).

All rules are identities of commutative rings (sound modulo any t, and over the reals).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from eqsat.rulespec import N, Name, RuleFamily

FAMILY = RuleFamily("factor")
r = FAMILY.rule

# The kinds of a shared factor: parameter names with their sort markers, and the pattern.
KINDS: dict[str, tuple[tuple[tuple[str, str], ...], Callable[..., Any]]] = {
    "in": ((("fs", "Name"), ("fn", "N")), lambda L, fs, fn: L.In(fs, fn)),
    "inadd": (
        (("fs", "Name"), ("fn", "N"), ("ft", "Name")),
        lambda L, fs, fn, ft: L.Add(L.In(fs, fn), L.In(ft, fn)),
    ),
}


def _prod(L: Any, a: Any, b: Any, side: str) -> Any:
    return L.Mul(a, b) if side == "l" else L.Mul(b, a)


Shape = Callable[[Any, Any, Any, Any, Any, Any, Any, str], tuple[Any, Any]]


def _orient(
    name: str, doc: str, build: Shape, kinds: tuple[str, ...], y: str | None = None,
    orders: tuple[str, ...] = ("ll", "lr", "rl", "rr"),
) -> None:
    """Register ``name-KIND-s1s2`` for each factor kind and both operand orders of both
    products (``l``: the shared factor is the left operand).  ``y``: none, a term
    (``"term"``) or a constant (``"const"``, matched as ``Num(k, n)``)."""
    own = [("b", "Term"), ("c", "Term")] + ([("y", "Term")] if y == "term" else [])
    own += [("k", "Int"), ("n", "N")] if y == "const" else []
    for kind in kinds:
        kparams, pattern = KINDS[kind]
        params = own + list(kparams)
        sig = inspect.Signature(
            [inspect.Parameter("L", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=m) for p, m in params]
        )
        for s1, s2 in (tuple(o) for o in orders):

            def fn(L: Any, s1: str = s1, s2: str = s2, pattern: Callable[..., Any] = pattern,
                   kparams: tuple[tuple[str, str], ...] = kparams, **kw: Any) -> Any:
                a = pattern(L, *(kw[p] for p, _ in kparams))
                yv = L.Num(kw["k"], kw["n"]) if y == "const" else kw.get("y")
                out = build(L, a, _prod(L, a, kw["b"], s1), _prod(L, a, kw["c"], s2), kw["b"], kw["c"], yv, s1)
                return out if y != "const" else (*out, [L.eq(L.slots(a), kw["n"]), L.ne(kw["k"], 0)])

            fn.__doc__ = f"{doc}  (shared factor: {kind})"
            fn.__signature__ = sig  # type: ignore[attr-defined]
            r(f"{name}-{kind}-{s1}{s2}")(fn)


PRODUCT_KINDS = ("in", "inadd")
_orient(
    "factor-add",
    "a b + a c = a (b + c)",
    lambda L, a, ab, ac, b, c, y, s: (L.Add(ab, ac), _prod(L, a, L.Add(b, c), s)),
    PRODUCT_KINDS,
)
_orient(
    "factor-sub",
    "a b - a c = a (b - c)",
    lambda L, a, ab, ac, b, c, y, s: (L.Sub(ab, ac), _prod(L, a, L.Sub(b, c), s)),
    PRODUCT_KINDS,
)
# Skipping over a constant: Horner's form.  The loader sorts constants last in a sum, and
# factoring ``x c1 + x (x c2)`` leaves ``c1 + x c2``, so a constant sits next to the
# product that shares the factor.  Only the ``ll`` order: the source's monomials and the
# loader's sorted products put the variable first, and the other three orders cost a
# third of each late iteration's time without adding a single node.
_orient(
    "factor-skip-right",
    "a b + (a c + k) = a (b + c) + k",
    lambda L, a, ab, ac, b, c, y, s: (L.Add(ab, L.Add(ac, y)), L.Add(_prod(L, a, L.Add(b, c), s), y)),
    ("in",),
    y="const",
    orders=("ll",),
)
_orient(
    "factor-skip-left",
    "(k + a b) + a c = k + a (b + c)",
    lambda L, a, ab, ac, b, c, y, s: (L.Add(L.Add(y, ab), ac), L.Add(y, _prod(L, a, L.Add(b, c), s))),
    ("in",),
    y="const",
    orders=("ll",),
)
# Skipping over any term, only for a shared sum of two inputs (what the six pairwise
# products need: ``(a (b + c) + y) + (b + c) d``); with an input as the shared factor, a
# free ``y`` lets factoring regroup every subset of a sum.  Only the ``rl`` order: the
# loader sorts products by their first factor, so the sums factored out of left-shared
# products (``a (b + c)``) come before those factored out of right-shared ones
# (``(b + c) d``); the other orders grew a random 500-op program 1.6x faster.
_orient(
    "factor-skip",
    "(a b + y) + a c = a (b + c) + y",
    lambda L, a, ab, ac, b, c, y, s: (L.Add(L.Add(ab, y), ac), L.Add(_prod(L, a, L.Add(b, c), s), y)),
    ("inadd",),
    y="term",
    orders=("rl",),
)


# Collecting like terms lives here, not in ``ring``, and only for an input: with
# mul-to-add's doublings (``e + e`` inside every chain), ``mul-const-assoc`` and
# ``neg-mul``, ``a + a = 2a`` for any ``a`` closes each value under its small multiples
# (default schedule, random 2,000-op program: 890k nodes in 14 iterations with it in
# ``ring``; the ``all`` schedule: 456k nodes in 13 iterations, 1.6M ``neg-mul`` matches).
@r("add-self")
def _(L, s: Name, n: N):
    """x + x = x * 2  for an input x"""
    x = L.In(s, n)
    return L.Add(x, x), L.Mul(x, L.Num(2, n))
