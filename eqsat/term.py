"""The egglog term language for FHE programs, and its analyses.

In: nothing (declarations).  Out: the sort ``T`` and its constructors (each with a
stable egglog name, so serialized e-graphs read back by ``eqsat.extract`` are
independent of Python module paths), the ``slots`` analysis ruleset, and the table of
which constructors are concrete (extractable) and which are *summaries*.

Design (see the README for the reasons):

* One sort ``T`` for every value.  A value is a vector of ``n`` slots; a scalar is a
  one-slot value, and ``Ext(v, 0)`` reads slot 0 of ``v`` (HECO's view: a scalar lives
  in slot 0 of a ciphertext), so scalar arithmetic on extracted slots is vector
  arithmetic on whole ciphertexts: ``Ext(a, 0) + Ext(b, 0) = Ext(a + b, 0)``.
* Leaves carry their slot count (``In(name, n)``, ``Num(c, n)``...), so every term's
  ``n`` follows structurally; the ``slots`` analysis records it for rules that need it.
* Summary nodes describe large structures in O(1) e-nodes and are never extracted
  themselves; rules relate them to concrete realizations:
    - ``LinRot(v, key, n)``: the linear combination ``sum_k c_k * rot(v, k)``, with the
      offset->coefficient polynomial in ``key`` (see ``eqsat.algebra.rotpoly``); rotate-and-
      reduce, stencils and their factorizations are products of such polynomials.
    - ``LinMap(v, handle, n)``: a linear slot map ``sum_d D_d * rot(v, d)`` with plaintext
      diagonal vectors ``D_d`` held by handle (``eqsat.algebra.linmap``): a plaintext
      matrix times a vector, a masked stencil or convolution; ``rules/linmap.py`` relates
      it to its realizations (direct, baby-step/giant-step, a ``LinRot``).
    - ``ProdRot(v, key, n)``: the product ``prod_{k in key} rot(v, k)``.
    - ``ChainElem(a, c, i, n)``: ``a`` times element ``i`` of the optimal addition-
      subtraction chain for ``c`` (mul-to-add).
    - ``Gather(v, k, slots, n)``: ``mask(slots) * rot(v, k)``, a vector taking slot ``p``
      from ``v[p + k]`` for ``p`` in ``slots`` and 0 elsewhere; insertion chains are sums
      of gathers, and collapse when they merge.
* Sums and products from the source are loaded as balanced trees over a canonical order
  (``eqsat.egraph``), so like terms meet in O(log n) rule iterations without raw AC.
* Management ops (``Relin`` ...) are never unioned with their operand: they change
  noise, not values, and are placed by extraction.
"""

from __future__ import annotations

from egglog import (
    EGraph,
    Expr,
    String,
    StringLike,
    Unit,
    f64,
    f64Like,
    function,
    i64,
    i64Like,
    rule,
    ruleset,
    set_,
)

from eqsat.term_ops import CONCRETE_OPS, INERT, INERT_OPS, SUMMARY_OPS  # the names by role, without egglog

__all__ = [
    "CONCRETE_OPS",
    "INERT",
    "INERT_OPS",
    "SUMMARY_OPS",
    "T",
    "declare",
    "slots_analysis",
]


class T(Expr, egg_sort="T"):
    """A vector (or one-slot scalar) value, secret or plaintext."""


# -- leaves -----------------------------------------------------------------
@function(egg_fn="In")
def In(name: StringLike, n: i64Like) -> T:
    """A secret input of ``n`` slots."""


@function(egg_fn="Num")
def Num(c: i64Like, n: i64Like) -> T:
    """The integer constant ``c`` in every one of ``n`` slots (plaintext)."""


@function(egg_fn="NumF")
def NumF(c: f64Like, n: i64Like) -> T:
    """The real constant ``c`` in every one of ``n`` slots (plaintext)."""


@function(egg_fn="Dense")
def Dense(values: StringLike, n: i64Like) -> T:
    """A plaintext vector, values comma-separated (ints or floats)."""


@function(egg_fn="Mask")
def Mask(sel: StringLike, n: i64Like) -> T:
    """A plaintext 0/1 vector: 1 in the slots of the set key ``sel``."""


# -- element-wise arithmetic -------------------------------------------------
@function(egg_fn="Add")
def Add(a: T, b: T) -> T: ...


@function(egg_fn="Sub")
def Sub(a: T, b: T) -> T: ...


@function(egg_fn="Mul")
def Mul(a: T, b: T) -> T: ...


@function(egg_fn="Neg")
def Neg(a: T) -> T: ...


# -- slots ------------------------------------------------------------------
@function(egg_fn="Rot")
def Rot(v: T, k: i64Like) -> T:
    """Rotate left by ``k`` (0 < k < n): ``Rot(v, k)[i] = v[(i + k) mod n]``."""


@function(egg_fn="Ext")
def Ext(v: T, i: i64Like) -> T:
    """Slot ``i`` of ``v`` as a one-slot value."""


@function(egg_fn="Ins")
def Ins(s: T, v: T, i: i64Like) -> T:
    """``v`` with slot ``i`` replaced by the one-slot value ``s``."""


@function(egg_fn="Place")
def Place(s: T, i: i64Like, n: i64Like) -> T:
    """An ``n``-slot vector holding ``s`` at slot ``i`` and 0 elsewhere."""


@function(egg_fn="Splat")
def Splat(s: T, n: i64Like) -> T:
    """``s`` copied into all ``n`` slots."""


# -- summaries (never extracted) ----------------------------------------------
@function(egg_fn="LinRot")
def LinRot(v: T, key: StringLike, n: i64Like) -> T:
    """``sum_k c_k * Rot(v, k)`` for the polynomial ``key``."""


@function(egg_fn="LinMap")
def LinMap(v: T, handle: StringLike, n: i64Like) -> T:
    """``sum_d D_d * Rot(v, d)``: the linear slot map registered as ``handle``
    (``eqsat.algebra.linmap``; its plaintext diagonals never enter the e-graph)."""


@function(egg_fn="ProdRot")
def ProdRot(v: T, key: StringLike, n: i64Like) -> T:
    """``prod_{k in key} Rot(v, k)`` (all coefficients 1)."""


@function(egg_fn="Gather")
def Gather(v: T, k: i64Like, sel: StringLike, n: i64Like) -> T:
    """``mask(sel) * Rot(v, k)``: slot p is v[p + k] for p in ``sel``, else 0."""


@function(egg_fn="ChainElem")
def ChainElem(a: T, c: i64Like, i: i64Like, n: i64Like) -> T:
    """``a`` times element ``i`` of the addition-subtraction chain for ``c``
    (``eqsat.rulespec.arith_oracles``); keyed by (c, i) so each constant gets one chain."""


# -- inert twins: the source's own form of a summarized structure ------------------------
# The loader summarizes large reductions and insertion chains (``LinRot``/``Gather``
# forms) and loads the source's own scalar code beside them with these twins: the same
# values and costs (extraction reads ``AddI`` as ``Add``...), but no rewrite rule
# matches them, so the 4096 slot sums of a 64x64 stencil stay a fallback program instead
# of 100k e-nodes of rewriting.  Analyses (slots, noise) treat them like their originals.
@function(egg_fn="AddI")
def AddI(a: T, b: T) -> T: ...


@function(egg_fn="SubI")
def SubI(a: T, b: T) -> T: ...


@function(egg_fn="MulI")
def MulI(a: T, b: T) -> T: ...


@function(egg_fn="NegI")
def NegI(a: T) -> T: ...


@function(egg_fn="ExtI")
def ExtI(v: T, i: i64Like) -> T: ...




# -- scheme and management ops --------------------------------------------------
@function(egg_fn="Encode")
def Encode(a: T) -> T: ...


@function(egg_fn="Decode")
def Decode(a: T) -> T: ...


@function(egg_fn="Root")
def Root(k: i64Like) -> T:
    """Marks result number ``k`` (unioned with the result's class; never extracted)."""


# -- analyses -------------------------------------------------------------------
@function(egg_fn="slots", merge=lambda old, new: old)
def slots(t: T) -> i64:
    """Analysis: the slot count of a term (1 for scalars)."""


@function(egg_fn="num_val", merge=lambda old, new: old)
def num_val(t: T) -> i64:
    """Analysis: the integer of a ``Num`` in the class (rules match constants through it)."""


@function(egg_fn="numf_val", merge=lambda old, new: old)
def numf_val(t: T) -> f64:
    """Analysis: the real of a ``NumF`` in the class."""


@function(egg_fn="leaf_key", merge=lambda old, new: old)
def leaf_key(t: T) -> String:
    """Analysis: the key of a ``Mask`` (its slot set) in the class."""


@function(egg_fn="in_name", merge=lambda old, new: old)
def in_name(t: T) -> String:
    """Analysis: the name of an ``In`` in the class (apart from mask keys: an input may be
    called ``0``, which is also the key of the slot set {0})."""


@function(egg_fn="src_rot")
def src_rot(t: T) -> Unit:
    """Fact set by the loader: the class holds a rotation written in the source program
    (``lin-rot`` rewrites those, not the rotations its own realizations create)."""


@function(egg_fn="varies", merge=lambda old, new: old.min(new))
def varies(t: T) -> i64:
    """Analysis: 1 when no term in the class is a constant (its value depends on a program
    input), 0 when one is (``x * 0`` joins the class of ``0``: min over the class).

    Rules that realign rotations require 1: a constant's class holds its rotations by
    every offset ever built, and aligning against those enumerated every pair (gx 4x4:
    84k matches of rot-align-add in one iteration, then no return).  Rules that combine
    summaries (``LinRot``, ``ProdRot``, ``Gather``) require it of their base too: a base
    proven 0 (``x * 0`` in a slot) puts ``0 + 0`` in the class of 0, and ``lin-add`` then
    added every pair of its polynomials, every iteration (65k matches in iteration 12, the
    next one past 18 min and 3.8 GB, on an 8-slot random program).  Summaries themselves
    get no value here: giving them one let the realignment rules fire on them and cost
    rotations (sums of 8 and 16 slots: 4 and 5 rotations instead of 3 and 4)."""


# Why the leaf-value facts exist: a rule pattern such as ``Add(Add(a, Num(i, n)), Num(j, n))``
# makes egglog 13.2 join the leaf atoms ``Num(i, n)`` through their output column, which
# it scans: 18 s per run of that one rule on a 30k-node e-graph holding 2.8k constants.
# ``eqsat.rulespec`` compiles each leaf in a left-hand side to a fresh class variable
# plus ``num_val(c) == i`` (a lookup by input): 0.07 s for the same rule.  Each value is
# copied from a leaf in the class, so a match always denotes a real e-node; ``merge``
# keeps the first when two leaves of different value meet (only ever mod t).
slots_analysis = ruleset(name="slots-analysis")


@slots_analysis.register
def _slots_rules(
    a: T, b: T, s: String, c: i64, n: i64, k: i64, x: f64, x2: i64
) -> object:
    yield rule(In(s, n), name="slots-in").then(set_(slots(In(s, n))).to(n))
    yield rule(Num(c, n), name="slots-num").then(set_(slots(Num(c, n))).to(n))
    yield rule(NumF(x, n), name="slots-numf").then(set_(slots(NumF(x, n))).to(n))
    yield rule(Dense(s, n), name="slots-dense").then(set_(slots(Dense(s, n))).to(n))
    yield rule(Mask(s, n), name="slots-mask").then(set_(slots(Mask(s, n))).to(n))
    yield rule(Place(a, k, n), name="slots-place").then(set_(slots(Place(a, k, n))).to(n))
    yield rule(Splat(a, n), name="slots-splat").then(set_(slots(Splat(a, n))).to(n))
    yield rule(LinRot(a, s, n), name="slots-linrot").then(set_(slots(LinRot(a, s, n))).to(n))
    yield rule(LinMap(a, s, n), name="slots-linmap").then(set_(slots(LinMap(a, s, n))).to(n))
    yield rule(ProdRot(a, s, n), name="slots-prodrot").then(set_(slots(ProdRot(a, s, n))).to(n))
    yield rule(Gather(a, k, s, n), name="slots-gather").then(set_(slots(Gather(a, k, s, n))).to(n))
    yield rule(ChainElem(a, c, k, n), name="slots-chainelem").then(set_(slots(ChainElem(a, c, k, n))).to(n))
    yield rule(Ext(a, k), name="slots-ext").then(set_(slots(Ext(a, k))).to(i64(1)))
    yield rule(ExtI(a, k), name="slots-exti").then(set_(slots(ExtI(a, k))).to(i64(1)))
    for label, make in (("addi", AddI), ("subi", SubI), ("muli", MulI)):
        yield rule(make(a, b), slots(a) == n, name=f"slots-{label}").then(set_(slots(make(a, b))).to(n))
    yield rule(NegI(a), slots(a) == n, name="slots-negi").then(set_(slots(NegI(a))).to(n))
    yield rule(Add(a, b), slots(a) == n, name="slots-add").then(set_(slots(Add(a, b))).to(n))
    yield rule(Sub(a, b), slots(a) == n, name="slots-sub").then(set_(slots(Sub(a, b))).to(n))
    yield rule(Mul(a, b), slots(a) == n, name="slots-mul").then(set_(slots(Mul(a, b))).to(n))
    yield rule(Neg(a), slots(a) == n, name="slots-neg").then(set_(slots(Neg(a))).to(n))
    yield rule(Rot(a, k), slots(a) == n, name="slots-rot").then(set_(slots(Rot(a, k))).to(n))
    yield rule(Ins(a, b, k), slots(b) == n, name="slots-ins").then(set_(slots(Ins(a, b, k))).to(n))
    yield rule(Encode(a), slots(a) == n, name="slots-encode").then(set_(slots(Encode(a))).to(n))
    yield rule(Decode(a), slots(a) == n, name="slots-decode").then(set_(slots(Decode(a))).to(n))
    yield rule(Root(k), name="slots-root").then(Root(k))
    yield rule(In(s, n), name="slots-varies-in").then(set_(varies(In(s, n))).to(1))
    yield rule(Num(c, n), name="slots-varies-num").then(set_(varies(Num(c, n))).to(0))
    yield rule(NumF(x, n), name="slots-varies-numf").then(set_(varies(NumF(x, n))).to(0))
    yield rule(Dense(s, n), name="slots-varies-dense").then(set_(varies(Dense(s, n))).to(0))
    yield rule(Mask(s, n), name="slots-varies-mask").then(set_(varies(Mask(s, n))).to(0))
    for label, make in (("add", Add), ("sub", Sub), ("mul", Mul), ("addi", AddI), ("subi", SubI), ("muli", MulI)):
        yield rule(make(a, b), varies(a) == c, varies(b) == k, name=f"slots-varies-{label}").then(
            set_(varies(make(a, b))).to(c.max(k)))
    for label, make1 in (("neg", Neg), ("encode", Encode), ("decode", Decode), ("negi", NegI)):
        yield rule(make1(a), varies(a) == c, name=f"slots-varies-{label}").then(set_(varies(make1(a))).to(c))
    yield rule(Rot(a, k), varies(a) == c, name="slots-varies-rot").then(set_(varies(Rot(a, k))).to(c))
    yield rule(Ext(a, k), varies(a) == c, name="slots-varies-ext").then(set_(varies(Ext(a, k))).to(c))
    yield rule(ExtI(a, k), varies(a) == c, name="slots-varies-exti").then(set_(varies(ExtI(a, k))).to(c))
    yield rule(Ins(a, b, k), varies(a) == c, varies(b) == x2, name="slots-varies-ins").then(
        set_(varies(Ins(a, b, k))).to(c.max(x2)))
    yield rule(Place(a, k, n), varies(a) == c, name="slots-varies-place").then(set_(varies(Place(a, k, n))).to(c))
    yield rule(Splat(a, n), varies(a) == c, name="slots-varies-splat").then(set_(varies(Splat(a, n))).to(c))
    yield rule(Num(c, n), name="slots-num-val").then(set_(num_val(Num(c, n))).to(c))
    yield rule(NumF(x, n), name="slots-numf-val").then(set_(numf_val(NumF(x, n))).to(x))
    yield rule(Mask(s, n), name="slots-mask-key").then(set_(leaf_key(Mask(s, n))).to(s))
    yield rule(In(s, n), name="slots-in-key").then(set_(in_name(In(s, n))).to(s))




@slots_analysis.register
def _declared_facts(a: T) -> object:
    yield rule(src_rot(a), name="slots-src-rot").then(src_rot(a))  # declares src_rot for the loader


def declare(eg: EGraph) -> None:
    """Make every constructor and the analysis known to ``eg`` (needed before loading text).

    Running the analysis ruleset on the empty e-graph declares every function its rules
    mention, which is all of them, without adding a single e-node.
    """
    eg.run(slots_analysis.saturate())
