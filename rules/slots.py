"""Slot rewrites: rotation algebra, rotate-and-reduce, chain collapse, vectorization.

In: nothing.  Out: ``FAMILY`` and its egglog ruleset ``slots``.

How the pieces meet (each step is one rule below):

* ``Ext(v, i) = Ext(Rot(v, i), 0)`` puts every extracted slot at slot 0, and slot-0
  scalars combine as whole vectors (``ext-add`` ...): unrolled scalar code becomes
  vector code on rotations (SIMD vectorization, HECO's insight).
* Rotations of one base are lifted to ``LinRot`` polynomials, added by ``lin-add``;
  a sum of all n slots is ``LinRot(v, 0..n-1)``, which ``lin-factor`` splits into
  log2(n) factors (1 + rho^(2^j)): rotate-and-reduce.  Shift normalization gives every
  shifted copy of a stencil the same core, factored separably (box blur: 4 rotations).
* An insertion chain is a sum of ``Place`` terms; a slot taken from ``v[i + k]`` is a
  ``Gather(v, k, {i})``; gathers of one source at one offset merge, and a full gather is
  a single rotation (a partial one a rotation and a mask).
* Products over rotations of one base (``ProdRot``) reduce the same way with *.
"""

from __future__ import annotations

from eqsat.rulespec import Int, N, Name, Poly, RuleFamily, SetKey, Term
from eqsat.rulespec import slot_oracles as o

FAMILY = RuleFamily("slots")
r = FAMILY.rule


# -- rotation algebra -------------------------------------------------------------
@r("rot-compose", eager=True)
def _(L, v: Term, a: Int, b: Int, n: N):
    """rot(rot(v, a), b) = rot(v, a + b), when rot(v, a + b) is already present (no new terms).
    Eager (one run an iteration after the analyses): it only joins classes, and joins the
    rotations the same iteration made (rr_reduce_add_and_mul_32 10 -> 8 iterations, the roberts
    cross kernels 11 -> 10, the same saturated e-graphs)"""
    w = L.Rot(v, L.mod(a + b, n))
    return L.Rot(L.Rot(v, a), b), w, [L.eq(L.slots(v), n), L.ne(L.mod(a + b, n), 0), L.exists(w)]


@r("rot-cancel", eager=True)
def _(L, v: Term, a: Int, b: Int, n: N):
    """rot(rot(v, a), b) = v when a + b = 0 mod n  (eager, as rot-compose: it only joins classes)"""
    return L.Rot(L.Rot(v, a), b), v, [L.eq(L.slots(v), n), L.eq(L.mod(a + b, n), 0)]


@r("rot-splat")
def _(L, c: Int, k: Int, n: N):
    """rot(splat(c), k) = splat(c)"""
    return L.Rot(L.Num(c, n), k), L.Num(c, n)


@r("ext-of-rot")
def _(L, v: Term, k: Int, i: Int, n: N):
    """rot(v, k)[i] = v[i + k]"""
    return L.Ext(L.Rot(v, k), i), L.Ext(v, L.mod(i + k, n)), [L.eq(L.slots(v), n)]


@r("ext-to-slot0")
def _(L, v: Term, i: Int, n: N):
    """v[i] = rot(v, i)[0]"""
    return L.Ext(v, i), L.Ext(L.Rot(v, i), 0), [L.eq(L.slots(v), n), L.lt(0, i), L.lt(i, n)]


@r("ext-const")
def _(L, c: Int, i: Int, n: N):
    """splat(c)[i] = c"""
    return L.Ext(L.Num(c, n), i), L.Num(c, 1), [L.le(0, i), L.lt(i, n)]


# -- slot-0 scalars are whole vectors ------------------------------------------------
@r("ext-add")
def _(L, a: Term, b: Term, n: N):
    """a[0] + b[0] = (a + b)[0]"""
    return L.Add(L.Ext(a, 0), L.Ext(b, 0)), L.Ext(L.Add(a, b), 0), [L.eq(L.slots(a), n), L.eq(L.slots(b), n)]


@r("ext-sub")
def _(L, a: Term, b: Term, n: N):
    """a[0] - b[0] = (a - b)[0]"""
    return L.Sub(L.Ext(a, 0), L.Ext(b, 0)), L.Ext(L.Sub(a, b), 0), [L.eq(L.slots(a), n), L.eq(L.slots(b), n)]


@r("ext-mul")
def _(L, a: Term, b: Term, n: N):
    """a[0] * b[0] = (a * b)[0]"""
    return L.Mul(L.Ext(a, 0), L.Ext(b, 0)), L.Ext(L.Mul(a, b), 0), [L.eq(L.slots(a), n), L.eq(L.slots(b), n)]


@r("ext-neg")
def _(L, a: Term):
    """-(a[0]) = (-a)[0]"""
    return L.Neg(L.Ext(a, 0)), L.Ext(L.Neg(a), 0)


@r("ext-mul-const")
def _(L, a: Term, c: Int, n: N):
    """a[0] * c = (a * splat(c))[0]"""
    return L.Mul(L.Ext(a, 0), L.Num(c, 1)), L.Ext(L.Mul(a, L.Num(c, n)), 0), [L.eq(L.slots(a), n)]


@r("ext-add-const")
def _(L, a: Term, c: Int, n: N):
    """a[0] + c = (a + splat(c))[0]"""
    return L.Add(L.Ext(a, 0), L.Num(c, 1)), L.Ext(L.Add(a, L.Num(c, n)), 0), [L.eq(L.slots(a), n)]


# -- rotations distribute over element-wise ops -------------------------------------------
@r("rot-pull-add")
def _(L, a: Term, b: Term, k: Int):
    """rot(a, k) + rot(b, k) = rot(a + b, k)"""
    return L.Add(L.Rot(a, k), L.Rot(b, k)), L.Rot(L.Add(a, b), k)


@r("rot-pull-sub")
def _(L, a: Term, b: Term, k: Int):
    """rot(a, k) - rot(b, k) = rot(a - b, k)"""
    return L.Sub(L.Rot(a, k), L.Rot(b, k)), L.Rot(L.Sub(a, b), k)


@r("rot-pull-mul")
def _(L, a: Term, b: Term, k: Int):
    """rot(a, k) * rot(b, k) = rot(a * b, k)"""
    return L.Mul(L.Rot(a, k), L.Rot(b, k)), L.Rot(L.Mul(a, b), k)


@r("rot-pull-neg")
def _(L, a: Term, k: Int):
    """-rot(a, k) = rot(-a, k)"""
    return L.Neg(L.Rot(a, k)), L.Rot(L.Neg(a), k)


@r("rot-pull-mul-const")
def _(L, a: Term, c: Int, k: Int, n: N):
    """rot(a, k) * splat(c) = rot(a * splat(c), k)"""
    return L.Mul(L.Rot(a, k), L.Num(c, n)), L.Rot(L.Mul(a, L.Num(c, n)), k)


@r("rot-align-sub")
def _(L, a: Term, b: Term, j: Int, k: Int, n: N):
    """rot(a, j) - rot(b, k) = rot(a - rot(b, k - j), j)"""
    return (
        L.Sub(L.Rot(a, j), L.Rot(b, k)),
        L.Rot(L.Sub(a, L.Rot(b, L.mod(k - j, n))), j),
        [L.eq(L.slots(a), n), L.ne(j, k), L.varies(a), L.varies(b)],
    )


@r("rot-align-mul")
def _(L, a: Term, b: Term, j: Int, k: Int, n: N):
    """rot(a, j) * rot(b, k) = rot(a * rot(b, k - j), j)"""
    return (
        L.Mul(L.Rot(a, j), L.Rot(b, k)),
        L.Rot(L.Mul(a, L.Rot(b, L.mod(k - j, n))), j),
        [L.eq(L.slots(a), n), L.ne(j, k), L.varies(a), L.varies(b)],
    )


@r("rot-align-add")
def _(L, a: Term, b: Term, j: Int, k: Int, n: N):
    """rot(a, j) + rot(b, k) = rot(a + rot(b, k - j), j)  for different bases (one base: LinRot)"""
    return (
        L.Add(L.Rot(a, j), L.Rot(b, k)),
        L.Rot(L.Add(a, L.Rot(b, L.mod(k - j, n))), j),
        [L.eq(L.slots(a), n), L.ne(j, k), L.ne(a, b), L.varies(a), L.varies(b)],
    )


@r("rot-align-sub-r")
def _(L, a: Term, b: Term, j: Int, n: N):
    """rot(a, j) - b = rot(a - rot(b, -j), j)  for an unrotated b (offset 0) when rot(b, -j) is
    already present: the slot whose own pixel is read aligns like the other slots (Roberts
    cross slots 0, 1, 4, 5); building rot(b, -j) for every sum took gx 16x16 out of memory"""
    w = L.Rot(b, L.mod(0 - j, n))
    return L.Sub(L.Rot(a, j), b), L.Rot(L.Sub(a, w), j), [L.eq(L.slots(a), n), L.exists(w), L.varies(a), L.varies(b)]


@r("rot-align-add-r")
def _(L, a: Term, b: Term, j: Int, n: N):
    """rot(a, j) + b = rot(a + rot(b, -j), j)  when rot(b, -j) is present (b != a: one base is LinRot)"""
    w = L.Rot(b, L.mod(0 - j, n))
    return (
        L.Add(L.Rot(a, j), b),
        L.Rot(L.Add(a, w), j),
        [L.eq(L.slots(a), n), L.exists(w), L.ne(a, b), L.varies(a), L.varies(b)],
    )


@r("rot-align-mul-r")
def _(L, a: Term, b: Term, j: Int, n: N):
    """rot(a, j) * b = rot(a * rot(b, -j), j)  when rot(b, -j) is present (b != a: one base is ProdRot)"""
    w = L.Rot(b, L.mod(0 - j, n))
    return (
        L.Mul(L.Rot(a, j), b),
        L.Rot(L.Mul(a, w), j),
        [L.eq(L.slots(a), n), L.exists(w), L.ne(a, b), L.varies(a), L.varies(b)],
    )


# -- linear combinations of rotations (rotate-and-reduce, stencils) --------------------------
@r("lin-lift")
def _(L, v: Term, k: Int, n: N):
    """rot(v, k) = LinRot(v, rho^k)  (v not a constant: plaintext rotations are free, and a
    constant's class holds its rotations by every offset)"""
    return L.Rot(v, k), L.LinRot(v, L.call(o.mono, k, 1, n), n), [L.eq(L.slots(v), n), L.varies(v)]


@r("lin-lift-base")
def _(L, v: Term, k: Int, n: N):
    """v = LinRot(v, 1) for a v that is rotated somewhere"""
    return L.Rot(v, k), L.Rot(L.LinRot(v, L.call(o.mono, 0, 1, n), n), k), [L.eq(L.slots(v), n), L.varies(v)]


@r("lin-rot", eager=True)
def _(L, v: Term, p: Poly, k: Int, n: N):
    """rot(LinRot(v, p), k) = LinRot(v, rho^k p)  for rotations written in the source (HEIR's
    linear rotation chains); on the realizations' own rotations it fed the factorization
    back into itself (hamming 1024: 49k -> 465k nodes). Eager (run to its fixpoint after every
    rule step): the source's rotations are few, and a sum over them (``lin-add``) finds their
    polynomials in the next step, so a linear chain of source rotations grows by one step per
    iteration (instead of two: the rule ``lin-rot-add`` that did both in one step cost half
    of a 4-slot chain's saturation: its join over two ``LinRot`` atoms re-ran on every new row)"""
    lhs = L.Rot(L.LinRot(v, p, n), k)
    return lhs, L.LinRot(v, L.call(o.poly_shift, p, k, n), n), [L.from_source(lhs), L.varies(v)]


@r("lin-ext-invariant")
def _(L, v: Term, p: Poly, s: Int, n: N):
    """LinRot(v, p)[s] = LinRot(v, p)[0] when rho^s p = p (a full reduction holds its sum in
    every slot, so reading another slot needs no rotation)"""
    lin = L.LinRot(v, p, n)
    return L.Ext(lin, s), L.Ext(lin, 0), [L.ne(s, 0), L.eq(L.call(o.poly_shift, p, s, n), p)]


@r("lin-add")
def _(L, v: Term, p: Poly, q: Poly, n: N):
    """LinRot(v, p) + LinRot(v, q) = LinRot(v, p + q)"""
    s = L.call(o.poly_add, p, q, n)
    return L.Add(L.LinRot(v, p, n), L.LinRot(v, q, n)), L.LinRot(v, s, n), [L.ne(s, "zero"), L.varies(v)]


@r("lin-sub")
def _(L, v: Term, p: Poly, q: Poly, n: N):
    """LinRot(v, p) - LinRot(v, q) = LinRot(v, p - q)"""
    s = L.call(o.poly_sub, p, q, n)
    return L.Sub(L.LinRot(v, p, n), L.LinRot(v, q, n)), L.LinRot(v, s, n), [L.ne(s, "zero"), L.varies(v)]


@r("lin-pull-add")
def _(L, a: Term, b: Term, p: Poly, n: N):
    """LinRot(a, p) + LinRot(b, p) = LinRot(a + b, p)  (one reduction of the sum of two
    vectors instead of two reductions: the same polynomial is linear in its base)"""
    return (L.Add(L.LinRot(a, p, n), L.LinRot(b, p, n)), L.LinRot(L.Add(a, b), p, n),
            [L.ne(a, b), L.varies(a), L.varies(b)])


@r("lin-pull-sub")
def _(L, a: Term, b: Term, p: Poly, n: N):
    """LinRot(a, p) - LinRot(b, p) = LinRot(a - b, p)"""
    return (L.Sub(L.LinRot(a, p, n), L.LinRot(b, p, n)), L.LinRot(L.Sub(a, b), p, n),
            [L.ne(a, b), L.varies(a), L.varies(b)])


@r("lin-neg")
def _(L, v: Term, p: Poly, n: N):
    """-LinRot(v, p) = LinRot(v, -p)"""
    return L.Neg(L.LinRot(v, p, n)), L.LinRot(v, L.call(o.poly_scale, p, -1, n), n), [L.varies(v)]


@r("lin-scale")
def _(L, v: Term, p: Poly, c: Int, n: N):
    """LinRot(v, p) * c = LinRot(v, c p)"""
    return (
        L.Mul(L.LinRot(v, p, n), L.Num(c, n)),
        L.LinRot(v, L.call(o.poly_scale, p, c, n), n),
        [L.ne(c, 0), L.lt(c, 1024), L.lt(-1024, c), L.varies(v)],
    )


@r("lin-shift-normal")
def _(L, v: Term, p: Poly, i: Int, n: N):
    """LinRot(v, p) = rot(LinRot(v, q), s) with p = rho^s q, q the shift-invariant core
    (for linear forms inserted into a slot: shifted copies of one stencil share q)"""
    s = L.call_int(o.normal_shift, p, n)
    lin = L.LinRot(v, p, n)
    return (
        lin,
        L.Rot(L.LinRot(v, L.call(o.normal_core, p, n), n), s),
        [L.exists(L.Place(L.Ext(lin, 0), i, n)), L.ne(s, 0), L.varies(v)],
    )


@r("lin-ext-normal")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, p)[0] = LinRot(v, q)[s] with p = rho^s q  (a reduction returned from slot 0 is
    its shift-invariant core read at slot s; only for results, where partial sums are read)"""
    s = L.call_int(o.normal_shift, p, n)
    lhs = L.Ext(L.LinRot(v, p, n), 0)
    return lhs, L.Ext(L.LinRot(v, L.call(o.normal_core, p, n), n), s), [L.is_result(lhs), L.ne(s, 0), L.varies(v)]


@r("lin-centered")
def _(L, v: Term, p: Poly, k: Int, t: SetKey, n: N):
    """LinRot(v, p) = rot(LinRot(v, q), s) with q centered on offset 0 (for gathered cores)"""
    s = L.call_int(o.centered_shift, p, n)
    lin = L.LinRot(v, p, n)
    return (lin, L.Rot(L.LinRot(v, L.call(o.centered_core, p, n), n), s),
            [L.exists(L.Gather(lin, k, t, n)), L.ne(s, 0), L.varies(v)])


@r("lin-factor-0")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, f g) = LinRot(LinRot(v, f), g)  (best factorization)"""
    f = L.call(o.factor_inner, p, n, 0)
    return (
        L.LinRot(v, p, n),
        L.LinRot(L.LinRot(v, f, n), L.call(o.factor_outer, p, n, 0), n),
        [L.ne(f, ""), L.ne(L.call(o.canonical, p, n), ""), L.varies(v)],
    )


@r("lin-factor-1")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, f g) = LinRot(LinRot(v, f), g)  (second factorization; not for progressions:
    both halving orders at every level made 2^k bases for a 2^k-slot reduction)"""
    f = L.call(o.factor_inner, p, n, 1)
    return (
        L.LinRot(v, p, n),
        L.LinRot(L.LinRot(v, f, n), L.call(o.factor_outer, p, n, 1), n),
        [L.ne(f, ""), L.ne(L.call(o.canonical, p, n), ""), L.eq(L.call(o.progression, p, n), ""), L.varies(v)],
    )


@r("lin-split")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, p + q) = LinRot(v, p) + LinRot(v, q)  (realization, small polynomials: canonical
    ones, and those that read v in place, ``o.splits``)"""
    a = L.call(o.half, p, n, 0)
    return (
        L.LinRot(v, p, n),
        L.Add(L.LinRot(v, a, n), L.LinRot(v, L.call(o.half, p, n, 1), n)),
        [L.ne(a, ""), L.ne(L.call(o.splits, p, n), ""), L.varies(v)],
    )


@r("lin-complement")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, p) = LinRot(v, c J) + LinRot(v, p - c J)  (J = sum of all rotations, c the
    coefficient of most offsets: a full reduction plus a few terms)"""
    full = L.call(o.complement, p, n, 0)
    return (
        L.LinRot(v, p, n),
        L.Add(L.LinRot(v, full, n), L.LinRot(v, L.call(o.complement, p, n, 1), n)),
        [L.ne(full, ""), L.ne(L.call(o.canonical, p, n), ""), L.varies(v)],
    )


@r("lin-complement-result")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, p) = LinRot(v, c J) + LinRot(v, p - c J)  for a reduction returned from slot
    0 whose key is not canonical (the realization rules' guard): ``c J`` is shift-invariant,
    so the full reduction serves every shift of the sum (a 16-slot sum reading slot 15 twice
    and slot 4 never is one shift of a canonical key; without this its core is read at slot s,
    one rotation more)"""
    full = L.call(o.complement, p, n, 0)
    lin = L.LinRot(v, p, n)
    return (
        lin,
        L.Add(L.LinRot(v, full, n), L.LinRot(v, L.call(o.complement, p, n, 1), n)),
        [L.ne(full, ""), L.eq(L.call(o.canonical, p, n), ""), L.is_result(L.Ext(lin, 0)), L.varies(v)],
    )


@r("lin-complement-shifted")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, p) = LinRot(v, c J) + rot(LinRot(v, q), s)  with p - c J = rho^s q, for a
    reduction returned from slot 0: the remainder as a rotation of its shift-normal core. A
    remainder of two or more terms with none at offset 0 (``x^3 - x^4`` when a sum reads slot
    3 twice and slot 4 never) has no realization of its own (split and factor fire on
    canonical keys); its core ``1 - x`` splits and can share a rotation with the full
    reduction's factors.  Only at results: on every canonical key inside the e-graph the
    rotated cores fed the rotation rules new keys for 40 iterations (a 16-slot sum)."""
    full = L.call(o.complement, p, n, 0)
    rest = L.call(o.complement, p, n, 1)
    s = L.call_int(o.normal_shift, rest, n)
    lin = L.LinRot(v, p, n)
    return (
        lin,
        L.Add(L.LinRot(v, full, n), L.Rot(L.LinRot(v, L.call(o.normal_core, rest, n), n), s)),
        [L.ne(full, ""), L.ne(s, 0), L.is_result(L.Ext(lin, 0)), L.varies(v)],
    )


@r("lin-mono")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, rho^k) = rot(v, k)"""
    k = L.call_int(o.single_offset, p, n)
    return L.LinRot(v, p, n), L.Rot(v, k), [L.ne(L.call(o.single_is, p, n, 1), ""), L.ne(k, 0)]


@r("lin-one")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, 1) = v"""
    return L.LinRot(v, p, n), v, [L.eq(p, o.ONE)]


@r("lin-neg-mono")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, -rho^k) = -LinRot(v, rho^k)"""
    k = L.call_int(o.single_offset, p, n)
    return (L.LinRot(v, p, n), L.Neg(L.LinRot(v, L.call(o.mono, k, 1, n), n)),
            [L.ne(L.call(o.single_is, p, n, -1), ""), L.varies(v)])


@r("lin-scaled-mono")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, c rho^k) = LinRot(v, rho^k) * c  for c > 1"""
    k = L.call_int(o.single_offset, p, n)
    c = L.call_int(o.single_abs_coef, p, n)
    return (
        L.LinRot(v, p, n),
        L.Mul(L.LinRot(v, L.call(o.mono, k, 1, n), n), L.Num(c, n)),
        [L.ne(L.call(o.single_sign, p, n), ""), L.lt(1, c), L.varies(v)],
    )


@r("lin-scaled-mono-neg")
def _(L, v: Term, p: Poly, n: N):
    """LinRot(v, -c rho^k) = -(LinRot(v, rho^k) * c)  for c > 1"""
    k = L.call_int(o.single_offset, p, n)
    c = L.call_int(o.single_abs_coef, p, n)
    return (
        L.LinRot(v, p, n),
        L.Neg(L.Mul(L.LinRot(v, L.call(o.mono, k, 1, n), n), L.Num(c, n))),
        [L.eq(L.call(o.single_sign, p, n), ""), L.ne(L.call(o.single, p, n), ""), L.lt(1, c), L.varies(v)],
    )


# -- products over rotations -----------------------------------------------------------


@r("prod-pair")
def _(L, v: Term, j: Int, k: Int, n: N):
    """rot(v, j) * rot(v, k) = ProdRot(v, {j, k})"""
    s = L.call(o.set_poly_union, L.call(o.mono, j, 1, n), L.call(o.mono, k, 1, n), n)
    return L.Mul(L.Rot(v, j), L.Rot(v, k)), L.ProdRot(v, s, n), [L.eq(L.slots(v), n), L.ne(s, ""), L.varies(v)]


@r("prod-pair-base")
def _(L, v: Term, k: Int, n: N):
    """v * rot(v, k) = ProdRot(v, {0, k})"""
    s = L.call(o.set_poly_union, L.call(o.mono, 0, 1, n), L.call(o.mono, k, 1, n), n)
    return L.Mul(v, L.Rot(v, k)), L.ProdRot(v, s, n), [L.eq(L.slots(v), n), L.ne(s, "")]


@r("prod-pair-base-r")
def _(L, v: Term, k: Int, n: N):
    """rot(v, k) * v = ProdRot(v, {k, 0})  (the other order: there is no raw commutativity)"""
    s = L.call(o.set_poly_union, L.call(o.mono, k, 1, n), L.call(o.mono, 0, 1, n), n)
    return L.Mul(L.Rot(v, k), v), L.ProdRot(v, s, n), [L.eq(L.slots(v), n), L.ne(s, "")]


@r("prod-merge")
def _(L, v: Term, p: Poly, q: Poly, n: N):
    """ProdRot(v, P) * ProdRot(v, Q) = ProdRot(v, P u Q) for disjoint P, Q"""
    s = L.call(o.set_poly_union, p, q, n)
    return L.Mul(L.ProdRot(v, p, n), L.ProdRot(v, q, n)), L.ProdRot(v, s, n), [L.ne(s, ""), L.varies(v)]


@r("prod-rot", eager=True)
def _(L, v: Term, p: Poly, k: Int, n: N):
    """rot(ProdRot(v, P), k) = ProdRot(v, P + k)  for rotations written in the source (as lin-rot:
    on the realizations' own rotations a full product, which every rotation fixes, fed its
    factorizations back into itself: the 32-slot sum-and-product grew 800 -> 20k nodes).
    Eager, as lin-rot: with prod-merge a product chain of source rotations grows by one step
    per iteration (the rule prod-rot-merge did both in one step, at the cost of a join over
    two ProdRot atoms)"""
    lhs = L.Rot(L.ProdRot(v, p, n), k)
    return lhs, L.ProdRot(v, L.call(o.poly_shift, p, k, n), n), [L.from_source(lhs), L.varies(v)]


@r("prod-ext-invariant")
def _(L, v: Term, p: Poly, s: Int, n: N):
    """ProdRot(v, P)[s] = ProdRot(v, P)[0] when P + s = P (a full product holds it in every slot,
    as lin-ext-invariant for sums)"""
    prod = L.ProdRot(v, p, n)
    return L.Ext(prod, s), L.Ext(prod, 0), [L.ne(s, 0), L.eq(L.call(o.poly_shift, p, s, n), p)]


@r("prod-factor")
def _(L, v: Term, p: Poly, n: N):
    """ProdRot(v, A + B) = ProdRot(ProdRot(v, A), B)  (Minkowski sum of offset sets)"""
    f = L.call(o.ones_factor_inner, p, n, 0)
    return (
        L.ProdRot(v, p, n),
        L.ProdRot(L.ProdRot(v, f, n), L.call(o.ones_factor_outer, p, n, 0), n),
        [L.ne(f, ""), L.ne(L.call(o.canonical, p, n), ""), L.varies(v)],
    )


@r("prod-factor-1")
def _(L, v: Term, p: Poly, n: N):
    """ProdRot(v, A + B) = ProdRot(ProdRot(v, A), B)  (second factorization)"""
    f = L.call(o.ones_factor_inner, p, n, 1)
    return (
        L.ProdRot(v, p, n),
        L.ProdRot(L.ProdRot(v, f, n), L.call(o.ones_factor_outer, p, n, 1), n),
        [L.ne(f, ""), L.ne(L.call(o.canonical, p, n), ""), L.varies(v)],
    )


@r("prod-split")
def _(L, v: Term, p: Poly, n: N):
    """ProdRot(v, P u Q) = ProdRot(v, P) * ProdRot(v, Q)  (realization)"""
    a = L.call(o.half, p, n, 0)
    return (
        L.ProdRot(v, p, n),
        L.Mul(L.ProdRot(v, a, n), L.ProdRot(v, L.call(o.half, p, n, 1), n)),
        [L.ne(a, ""), L.ne(L.call(o.canonical, p, n), ""), L.varies(v)],
    )


@r("prod-mono")
def _(L, v: Term, p: Poly, n: N):
    """ProdRot(v, {k}) = rot(v, k)"""
    k = L.call_int(o.single_offset, p, n)
    return L.ProdRot(v, p, n), L.Rot(v, k), [L.ne(L.call(o.single_is, p, n, 1), ""), L.ne(k, 0)]


@r("prod-one")
def _(L, v: Term, p: Poly, n: N):
    """ProdRot(v, {0}) = v"""
    return L.ProdRot(v, p, n), v, [L.eq(p, o.ONE)]


# -- insertion chains -------------------------------------------------------------------
@r("place-ext")
def _(L, v: Term, j: Int, i: Int, n: N):
    """place(v[j], i) = gather(v, j - i, {i})  for j != 0 (a slot-0 view v[0] is each slot's own
    value: gathering it at i != 0 never merges with other slots, so only offset views are used)"""
    return (
        L.Place(L.Ext(v, j), i, n),
        L.Gather(v, L.mod(j - i, n), L.call(o.singleton, i), n),
        [L.eq(L.slots(v), n), L.le(0, i), L.lt(i, n), L.ne(j, 0)],
    )


@r("place-ext-input")
def _(L, s: Name, i: Int, n: N):
    """place(x[0], i) = gather(x, -i, {i}) for an input x (shared by every slot)"""
    x = L.In(s, n)
    return L.Place(L.Ext(x, 0), i, n), L.Gather(x, L.mod(0 - i, n), L.call(o.singleton, i), n), [L.lt(0, i), L.lt(i, n)]


@r("place-ext-joins")
def _(L, v: Term, i: Int, t: SetKey, n: N):
    """place(v[0], i) = gather(v, -i, {i})  when other slots already gather v at offset -i (the
    slot-0 view then merges with them: Roberts cross slot 5 holds the core's own slot 0)"""
    k = L.mod(0 - i, n)
    return (
        L.Place(L.Ext(v, 0), i, n),
        L.Gather(v, k, L.call(o.singleton, i), n),
        [L.lt(0, i), L.lt(i, n), L.eq(L.slots(v), n), L.exists(L.Gather(v, k, t, n))],
    )


@r("place-ext-0")
def _(L, v: Term, n: N):
    """place(v[0], 0) = gather(v, 0, {0})"""
    return L.Place(L.Ext(v, 0), 0, n), L.Gather(v, 0, L.call(o.singleton, 0), n), [L.eq(L.slots(v), n)]


@r("gather-merge")
def _(L, v: Term, k: Int, s: SetKey, t: SetKey, n: N):
    """gather(v, k, S) + gather(v, k, T) = gather(v, k, S u T) for disjoint S, T"""
    u = L.call(o.set_union, s, t)
    return L.Add(L.Gather(v, k, s, n), L.Gather(v, k, t, n)), L.Gather(v, k, u, n), [L.ne(u, ""), L.varies(v)]


@r("gather-full")
def _(L, v: Term, k: Int, s: SetKey, n: N):
    """gather(v, k, all slots) = rot(v, k)"""
    return L.Gather(v, k, s, n), L.Rot(v, k), [L.ne(L.call(o.is_full, s, n), ""), L.ne(k, 0)]


@r("gather-full-0")
def _(L, v: Term, s: SetKey, n: N):
    """gather(v, 0, all slots) = v"""
    return L.Gather(v, 0, s, n), v, [L.ne(L.call(o.is_full, s, n), "")]


@r("gather-mask")
def _(L, v: Term, k: Int, s: SetKey, n: N):
    """gather(v, k, S) = rot(v, k) * mask(S)"""
    return L.Gather(v, k, s, n), L.Mul(L.Rot(v, k), L.Mask(s, n)), [L.eq(L.call(o.is_full, s, n), ""), L.ne(k, 0)]


@r("gather-mask-0")
def _(L, v: Term, s: SetKey, n: N):
    """gather(v, 0, S) = v * mask(S)"""
    return L.Gather(v, 0, s, n), L.Mul(v, L.Mask(s, n)), [L.eq(L.call(o.is_full, s, n), "")]
