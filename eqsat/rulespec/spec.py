"""Rules written once, run two ways: as egglog rules and as executable semantics.

In: rule definitions, each a Python function ``fn(L, **vars) -> (lhs, rhs[, conds])``
over a *language* ``L``.  Out: egglog ``Ruleset`` objects (``RuleFamily.ruleset``) and,
for the soundness tests, ``check_sound(spec, rng)``, which instantiates the same function
with ``SemLang`` (concrete vectors, Rust-semantics integers) on random values and
asserts ``lhs == rhs`` whenever the conditions hold.

Parameter annotations (marker classes) choose the sort and how tests sample a variable:

* ``Term``: a term; tests draw a random integer vector of ``n`` slots.
* ``Scalar``: a one-slot term.
* ``Int``: an ``i64``; tests draw mostly from ``[0, n)``, sometimes from ``[-n, 2n]``.
* ``N``: the slot count (an ``i64`` bound to ``slots(v)`` by the conditions).
* ``Poly``, ``SetKey``, ``DenseKey``: ``String`` keys (a rotation polynomial, a slot
  set, dense constant values); tests draw random valid keys.

Oracles (pure Python functions such as polynomial factorization) are called with
``L.call(fn, ...)`` (a string result) or ``L.call_int(fn, ...)`` (a non-negative
integer result); in egglog they run through ``PyObject``, in tests directly.
"""

from __future__ import annotations

import dataclasses
import inspect
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
from egglog import Fact, PyObject, Ruleset, String, eq, i64, ne, rule, ruleset, union, var
from egglog.builtins import count_matches
from egglog.declarations import UnboundVarDecl

from eqsat import term

SORTS: dict[str, Any] = {
    "T": term.T,
    "S": term.T,
    "int": i64,
    "n": i64,
    "poly": String,
    "set": String,
    "dense": String,
    "name": String,
    "linmap": String,
}


# Annotation markers for rule parameters.  Rule modules use postponed annotations, so a
# marker is read by its *name*; for type checkers every marker is ``Any`` (a pattern
# variable is an egglog expression in one language and a concrete value in the other).
Term: TypeAlias = Any
Scalar: TypeAlias = Any
Int: TypeAlias = Any
N: TypeAlias = Any
Poly: TypeAlias = Any
SetKey: TypeAlias = Any
DenseKey: TypeAlias = Any
Name: TypeAlias = Any
MapKey: TypeAlias = Any


MARKERS = {
    "Name": "name",
    "Term": "T",
    "Scalar": "S",
    "Int": "int",
    "N": "n",
    "Poly": "poly",
    "SetKey": "set",
    "DenseKey": "dense",
    "MapKey": "linmap",
}


@dataclass(frozen=True)
class RuleSpec:
    name: str
    doc: str
    fn: Callable[..., Any]
    params: dict[str, str]
    #: run to its fixpoint with the analyses after every rule step (``RuleFamily.eager_ruleset``)
    eager: bool = False


@dataclass
class RuleFamily:
    """One rule family (one file under rules/), exported as one egglog ruleset (its eager rules,
    if any, as a second: ``eager_ruleset``)."""

    name: str
    specs: list[RuleSpec] = field(default_factory=list)
    _ruleset: Ruleset | None = None
    _eager_ruleset: Ruleset | None = None

    def rule(self, name: str, eager: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: register ``fn`` as the rule ``name``; its docstring is the math.

        ``eager``: the rule goes to the family's ``eager_ruleset``, which a session runs to its
        fixpoint together with the analyses after every rule step (``eqsat.egraph.session``),
        so what it derives is there for the other rules in the same iteration.  Only for rules
        whose fixpoint is small and reached quickly (a bounded number of matches, e.g. over
        the source's own rotations): an eager rule that kept finding matches would never let
        an iteration end."""

        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            sig = inspect.signature(fn)
            params = {}
            for p, a in list(sig.parameters.items())[1:]:
                ann = a.annotation if isinstance(a.annotation, str) else getattr(a.annotation, "__name__", "")
                params[p] = MARKERS.get(ann.strip("'\""), ann)
            for p, sort in params.items():
                if sort not in SORTS:
                    raise TypeError(f"rule {name}: parameter {p} has unknown sort {sort}")
            if any(s.name == name for s in self.specs):
                raise ValueError(f"duplicate rule name {name}")
            self.specs.append(RuleSpec(name, (fn.__doc__ or "").strip(), fn, params, eager))
            self._ruleset = self._eager_ruleset = None
            return fn

        return deco

    @property
    def ruleset(self) -> Ruleset:
        """The egglog ruleset of the family's rules that run once per iteration (all but the eager ones)."""
        if self._ruleset is None:
            self._ruleset = self._build(self.name, eager=False)
        return self._ruleset

    @property
    def eager_ruleset(self) -> Ruleset | None:
        """The egglog ruleset of the family's eager rules (named ``<family>-eager``), or None."""
        if self._eager_ruleset is None and any(spec.eager for spec in self.specs):
            self._eager_ruleset = self._build(f"{self.name}-eager", eager=True)
        return self._eager_ruleset

    def _build(self, name: str, eager: bool) -> Ruleset:
        rs = ruleset(name=name)
        for spec in self.specs:
            if spec.eager == eager:
                rs.append(to_egglog(spec))
        return rs


# -- the egglog language ------------------------------------------------------------
class EggLang:
    """Constructors and helpers that build egglog patterns/actions."""

    In, Num, NumF, Dense = (staticmethod(f) for f in (term.In, term.Num, term.NumF, term.Dense))
    Add, Sub, Mul, Neg = (staticmethod(f) for f in (term.Add, term.Sub, term.Mul, term.Neg))
    Rot, Ext, Ins, Place, Splat = (staticmethod(f) for f in (term.Rot, term.Ext, term.Ins, term.Place, term.Splat))
    LinRot, ProdRot, Gather, Mask = (staticmethod(f) for f in (term.LinRot, term.ProdRot, term.Gather, term.Mask))
    ChainElem = staticmethod(term.ChainElem)
    LinMap = staticmethod(term.LinMap)
    Encode, Decode = staticmethod(term.Encode), staticmethod(term.Decode)
    slots = staticmethod(term.slots)

    @staticmethod
    def eq(a: Any, b: Any) -> Fact:
        return eq(a).to(b)

    @staticmethod
    def ne(a: Any, b: Any) -> Any:
        return ne(a).to(b)

    @staticmethod
    def lt(a: Any, b: Any) -> Any:
        return a < b

    @staticmethod
    def exists(t: Any) -> Any:
        """A fact: the term ``t`` is present in the e-graph."""
        return t

    @staticmethod
    def varies(t: Any) -> Any:
        """A fact: no term in ``t``'s class is a constant (see ``eqsat.term.varies``)."""
        return eq(term.varies(t)).to(i64(1))

    @staticmethod
    def from_source(t: Any) -> Any:
        """A fact: ``t``'s class holds a rotation of the source program (``term.src_rot``)."""
        return term.src_rot(t)

    @staticmethod
    def is_result(t: Any) -> Fact:
        """A fact: ``t`` is (in the class of) one of the program's results."""
        return eq(t).to(term.Root(var("__result", i64)))

    @staticmethod
    def le(a: Any, b: Any) -> Any:
        return a <= b

    @staticmethod
    def mod(a: Any, n: Any) -> Any:
        """Non-negative remainder (egglog's ``%`` keeps the dividend's sign, like Rust)."""
        return ((a % n) + n) % n

    @staticmethod
    def call(fn: Callable[..., str], *args: Any) -> Any:
        return PyObject(fn)(*[_py(a) for a in args]).to_string()

    @staticmethod
    def call_int(fn: Callable[..., int], *args: Any) -> Any:
        """An oracle's non-negative integer result (sent as a unary string: egglog has
        no string-to-integer primitive, but counts matches)."""
        return count_matches(EggLang.call(_unary(fn), *args), String("|"))


def _py(a: Any) -> Any:
    if isinstance(a, int):
        return PyObject.from_int(a)
    if isinstance(a, str):
        return PyObject.from_string(a)
    if isinstance(a, i64):
        return PyObject.from_int(a)
    if isinstance(a, String):
        return PyObject.from_string(a)
    raise TypeError(f"oracle argument {a!r} must be an i64 or a String")


def _unary(fn: Callable[..., int]) -> Callable[..., str]:
    from eqsat.rulespec.unary import Unary  # a module importing nothing (see there)

    return Unary(fn)


def _leaf_matcher(facts: dict[str, list[Any]]) -> type[EggLang]:
    """An ``EggLang`` whose leaves (``Num``, ``NumF``, ``Mask``, ``In``) are fresh class
    variables constrained by the leaf-value analyses (see ``eqsat.term.num_val``): the
    same match, found through indexed lookups instead of scans of the leaf tables.
    ``facts`` collects each leaf variable's constraints by its name."""
    count = iter(range(1 << 30))

    def leaf(fn: Any, value: Any, n: Any) -> Any:
        name = f"__leaf{next(count)}"
        v = var(name, term.T)
        facts[name] = [eq(fn(v)).to(value), eq(term.slots(v)).to(n)]
        return v

    class Matcher(EggLang):
        Num = staticmethod(lambda c, n: leaf(term.num_val, c, n))
        NumF = staticmethod(lambda c, n: leaf(term.numf_val, c, n))
        Mask = staticmethod(lambda s, n: leaf(term.leaf_key, s, n))
        In = staticmethod(lambda s, n: leaf(term.in_name, s, n))

    return Matcher


def _var_names(exprs: list[Any]) -> set[str]:
    """Names of the pattern variables in egglog expressions and facts (walks their decls)."""
    names: set[str] = set()
    stack: list[Any] = [getattr(e, "fact", None) or e.__egg_typed_expr__ for e in exprs]
    while stack:
        d = stack.pop()
        if isinstance(d, UnboundVarDecl):
            names.add(d.name)
        elif isinstance(d, tuple):
            stack.extend(d)
        elif dataclasses.is_dataclass(d):
            stack.extend(getattr(d, f.name) for f in dataclasses.fields(d))
    return names


def to_egglog(spec: RuleSpec) -> Any:
    """The rule as egglog: its left side and conditions are built by a leaf-matching
    language (queries), its right side by ``EggLang`` (actions construct leaves)."""
    vs: dict[str, Any] = {p: var(p, SORTS[s]) for p, s in spec.params.items()}  # type: ignore[arg-type]
    leaves: dict[str, list[Any]] = {}
    query = spec.fn(_leaf_matcher(leaves), **vs)
    lhs, _, conds = query if len(query) == 3 else (*query, [])
    # leaves built by the right side of the matcher's run are not part of the query
    used = _var_names([lhs, *conds])
    facts = [f for name, fs in leaves.items() if name in used for f in fs]
    out = spec.fn(EggLang, **vs)
    rhs = out[1]
    root = var("__root", term.T)
    return rule(eq(root).to(lhs), *facts, *conds, name=spec.name).then(union(root).with_(rhs))


# -- the concrete semantics -----------------------------------------------------------
class RInt(int):
    """An integer with Rust's ``%`` and ``/`` (truncating), as egglog's i64 has."""

    def _w(self, v: int) -> RInt:
        return RInt(v)

    def __add__(self, o: int) -> RInt:  # type: ignore[override]
        return RInt(int(self) + int(o))

    __radd__ = __add__

    def __sub__(self, o: int) -> RInt:  # type: ignore[override]
        return RInt(int(self) - int(o))

    def __rsub__(self, o: int) -> RInt:  # type: ignore[override]
        return RInt(int(o) - int(self))

    def __mul__(self, o: int) -> RInt:  # type: ignore[override]
        return RInt(int(self) * int(o))

    __rmul__ = __mul__

    def __mod__(self, o: int) -> RInt:  # type: ignore[override]
        a, b = int(self), int(o)
        r = abs(a) % abs(b)
        return RInt(-r if a < 0 else r)

    def __truediv__(self, o: int) -> RInt:  # type: ignore[override]
        a, b = int(self), int(o)
        q = abs(a) // abs(b)
        return RInt(q if (a >= 0) == (b > 0) else -q)

    def __neg__(self) -> RInt:
        return RInt(-int(self))


class Undefined(Exception):
    """A term that does not denote a value (wrong sizes, index out of range)."""


Vec = tuple[int, ...]


def _same(a: Vec, b: Vec) -> None:
    if len(a) != len(b):
        raise Undefined("size mismatch")


class Lazy:
    """A term of the semantic language, evaluated on demand (so a rule's right side is
    only evaluated after its left side and conditions, and its failures are reported)."""

    __slots__ = ("_args", "_done", "_fn", "_val")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self._fn, self._args, self._done, self._val = fn, args, False, None

    def force(self) -> Any:
        if not self._done:
            self._val = self._fn(*[force(a) for a in self._args])
            self._done = True
        return self._val

    def __eq__(self, other: object) -> bool:
        return bool(force(self) == force(other))

    def __hash__(self) -> int:
        return hash(force(self))


def force(x: Any) -> Any:
    return x.force() if isinstance(x, Lazy) else x


def _lazy_method(fn: Callable[..., Any]) -> Any:
    def build(*args: Any) -> Lazy:
        return Lazy(fn, args)

    build.__name__ = fn.__name__
    return staticmethod(build)


class SemLang:
    """The meaning of every constructor on concrete integer vectors (tuples)."""

    @_lazy_method
    def In(name: str, n: int) -> Vec:
        """A fixed pseudo-random vector per (name, n): inputs are arbitrary but consistent."""
        rng = random.Random(f"{name}/{int(n)}")
        return tuple(rng.randint(-9, 9) for _ in range(int(n)))

    @_lazy_method
    def Num(c: int, n: int) -> Vec:
        if n < 1:
            raise Undefined("size")
        return (int(c),) * int(n)

    @_lazy_method
    def NumF(c: float, n: int) -> Vec:
        return (c,) * int(n)  # type: ignore[return-value]

    @_lazy_method
    def Dense(key: str, n: int) -> Vec:
        from eqsat.algebra.slot_keys import parse_dense_key

        vals = tuple(parse_dense_key(key))
        if len(vals) != n:
            raise Undefined("dense size")
        return vals  # type: ignore[return-value]

    @_lazy_method
    def Add(a: Vec, b: Vec) -> Vec:
        _same(a, b)
        return tuple(x + y for x, y in zip(a, b, strict=True))

    @_lazy_method
    def Sub(a: Vec, b: Vec) -> Vec:
        _same(a, b)
        return tuple(x - y for x, y in zip(a, b, strict=True))

    @_lazy_method
    def Mul(a: Vec, b: Vec) -> Vec:
        _same(a, b)
        return tuple(x * y for x, y in zip(a, b, strict=True))

    @_lazy_method
    def Neg(a: Vec) -> Vec:
        return tuple(-x for x in a)

    @staticmethod
    def Encode(a: Vec) -> Vec:
        """The identity on values (noise is not part of the semantics)."""
        return a

    @staticmethod
    def Decode(a: Vec) -> Vec:
        """The identity on values."""
        return a

    @_lazy_method
    def Rot(v: Vec, k: int) -> Vec:
        n = len(v)
        if not 0 <= int(k) < n:
            raise Undefined("rotation offset out of [0, n)")
        k = int(k)
        return v[k:] + v[:k]

    @_lazy_method
    def Ext(v: Vec, i: int) -> Vec:
        if not 0 <= int(i) < len(v):
            raise Undefined("index")
        return (v[int(i)],)

    @_lazy_method
    def Ins(s: Vec, v: Vec, i: int) -> Vec:
        if len(s) != 1 or not 0 <= int(i) < len(v):
            raise Undefined("insert")
        out = list(v)
        out[int(i)] = s[0]
        return tuple(out)

    @_lazy_method
    def Place(s: Vec, i: int, n: int) -> Vec:
        if len(s) != 1 or not 0 <= int(i) < int(n):
            raise Undefined("place")
        out = [0] * int(n)
        out[int(i)] = s[0]
        return tuple(out)

    @_lazy_method
    def Splat(s: Vec, n: int) -> Vec:
        if len(s) != 1 or n < 1:
            raise Undefined("splat")
        return (s[0],) * int(n)

    @_lazy_method
    def LinRot(v: Vec, key: str, n: int) -> Vec:
        from eqsat.algebra import rotpoly

        if len(v) != n:
            raise Undefined("linrot size")
        return tuple(rotpoly.apply(rotpoly.parse_key(key, int(n)), list(v), int(n)))

    @_lazy_method
    def LinMap(v: Vec, handle: str, n: int) -> Vec:
        from eqsat.algebra import linmap

        try:
            m, _ = linmap.resolve(handle)
        except KeyError as e:
            raise Undefined("linmap handle") from e
        if len(v) != n or m.n != n:
            raise Undefined("linmap size")
        return tuple(int(x) for x in m.apply(np.array(v, dtype=np.int64)))

    @_lazy_method
    def ProdRot(v: Vec, key: str, n: int) -> Vec:
        from eqsat.algebra import rotpoly

        n = int(n)
        if len(v) != n:
            raise Undefined("prodrot size")
        out = [1] * n
        for k, c in rotpoly.parse_key(key, n).items():
            if c != 1:
                raise Undefined("prodrot coefficient")
            for i in range(n):
                out[i] *= v[(i + k) % n]
        return tuple(out)

    @_lazy_method
    def Gather(v: Vec, k: int, sel: str, n: int) -> Vec:
        from eqsat.algebra.slot_keys import parse_set_key

        if len(v) != n or not 0 <= int(k) < n:
            raise Undefined("gather size or offset")
        chosen = set(parse_set_key(sel))
        if any(not 0 <= p < n for p in chosen):
            raise Undefined("gather slots")
        return tuple(v[(p + int(k)) % n] if p in chosen else 0 for p in range(n))

    @_lazy_method
    def ChainElem(a: Vec, c: int, i: int, n: int) -> Vec:
        from eqsat.rulespec.arith_oracles import elem_value

        if len(a) != n:
            raise Undefined("chain size")
        e = elem_value(int(c), int(i))
        return tuple(x * e for x in a)

    @_lazy_method
    def Mask(sel: str, n: int) -> Vec:
        from eqsat.algebra.slot_keys import parse_set_key

        chosen = set(parse_set_key(sel))
        if n < 1 or any(not 0 <= p < n for p in chosen):
            raise Undefined("mask")
        return tuple(1 if p in chosen else 0 for p in range(int(n)))

    @staticmethod
    def slots(v: Any) -> RInt:
        return RInt(len(force(v)))

    # a sampled term "exists" when it is defined; evaluated lazily, with the other conditions
    exists = staticmethod(lambda t: Lazy(lambda v: v is not None, (t,)))
    is_result = exists  # any sampled term may be a result
    varies = exists  # a guard on where rules fire, not on what they mean
    from_source = exists
    eq = staticmethod(lambda a, b: force(a) == force(b))
    ne = staticmethod(lambda a, b: force(a) != force(b))
    lt = staticmethod(lambda a, b: force(a) < force(b))
    le = staticmethod(lambda a, b: force(a) <= force(b))

    @staticmethod
    def mod(a: int, n: int) -> RInt:
        return RInt(int(a) % int(n))

    @staticmethod
    def call(fn: Callable[..., str], *args: Any) -> str:
        return fn(*[int(a) if isinstance(a, int) else a for a in args])

    @staticmethod
    def call_int(fn: Callable[..., int], *args: Any) -> RInt:
        v = fn(*[int(a) if isinstance(a, int) else a for a in args])
        if v < 0:
            raise ValueError(f"{fn.__name__} returned a negative integer")
        return RInt(v)


# -- sampling and the soundness check ---------------------------------------------------
Samplers = dict[str, Callable[[random.Random, int], Any]]


def _default_samplers() -> Samplers:
    from eqsat.algebra.slot_keys import dense_key, set_key

    def poly(rng: random.Random, n: int) -> str:
        from eqsat.algebra import rotpoly

        p = {rng.randrange(n): rng.choice([1, 1, 1, -1, 2, 3]) for _ in range(rng.randint(1, min(n, 6)))}
        if rng.random() < 0.3:  # arithmetic progressions exercise the compressed keys
            st = rng.randint(1, max(1, n // 4))
            p = {(rng.randrange(n) + j * st) % n: 1 for j in range(rng.randint(2, max(2, n // st)))}
        return rotpoly.key(rotpoly.normalize(p, n), n)

    return {
        "linmap": _sample_linmap,
        "T": lambda rng, n: tuple(rng.randint(-9, 9) for _ in range(n)),
        "S": lambda rng, n: (rng.randint(-9, 9),),
        "int": lambda rng, n: RInt(rng.randrange(n) if rng.random() < 0.8 else rng.randint(-n, 2 * n)),
        "poly": poly,
        "set": lambda rng, n: set_key(rng.sample(range(n), rng.randint(1, n))),
        "dense": lambda rng, n: dense_key([rng.randint(-5, 5) for _ in range(n)]),
        "name": lambda rng, n: rng.choice(["x", "y", "in"]),
    }


def _sample_linmap(rng: random.Random, n: int) -> str:
    """A registered random linear map (integer diagonals) over ``n`` slots: sometimes one
    diagonal (all ones or not), sometimes uniform (a rotation polynomial), sometimes dense;
    pinned half of the time to the direct plan or to a random baby-step/giant-step."""
    from eqsat.algebra import linmap

    shape = rng.random()
    k = 1 if shape < 0.3 else rng.randint(1, n)
    offsets = rng.sample(range(n), k)
    diags: dict[int, Any] = {}
    for d in offsets:
        if shape < 0.1 or (0.3 <= shape < 0.45):
            diags[d] = rng.choice([1, 1, 2, -1])  # all ones / uniform
        else:
            diags[d] = np.array([rng.randint(-3, 3) for _ in range(n)], dtype=np.int64)
    m = linmap.from_diagonals(diags, n)
    if not m.diags:
        m = linmap.from_diagonals({offsets[0]: 1}, n)
    h = linmap.register(m)
    pick = rng.random()
    if pick < 0.5:
        return h
    if pick < 0.65:
        return h + "@d"
    if pick < 0.8:
        return linmap.pinned_candidates(h)[0]
    return f"{h}@b{rng.randint(1, n)}{rng.choice('cf')}"


@dataclass
class SoundnessResult:
    checked: int  # samples where the rule applied and both sides were compared
    skipped: int  # samples where a condition failed or a side was undefined


def check_sound(
    spec: RuleSpec,
    rng: random.Random,
    samples: int = 200,
    sizes: Sequence[int] = (1, 2, 3, 4, 5, 8, 16),
    samplers: Samplers | None = None,
    fixed: dict[str, Any] | None = None,
) -> SoundnessResult:
    """Instantiate ``spec`` on random values; raise AssertionError on a counterexample.

    Values of sort ``int`` are drawn near the slot range and also from the other
    sampled ints' sums (so conditions such as ``k == i + j`` can hold); ``fixed`` pins
    variables (a test may pin ``n`` or a key to reach a rule's corner case).
    """
    smp = {**_default_samplers(), **(samplers or {})}
    checked = skipped = 0
    for _ in range(samples):
        n = RInt(rng.choice(list(sizes)))
        env: dict[str, Any] = {}
        for p, sort in spec.params.items():
            if fixed and p in fixed:
                env[p] = fixed[p]
            elif sort == "n":
                env[p] = n
            else:
                env[p] = smp[sort](rng, int(n))
        out = spec.fn(SemLang, **env)
        lhs, rhs, conds = out if len(out) == 3 else (*out, [])
        try:
            lhs_v = force(lhs)
            if not all(bool(force(c)) for c in conds):
                skipped += 1
                continue
        except Undefined:
            skipped += 1
            continue
        try:
            rhs_v = force(rhs)
        except Undefined as e:
            raise AssertionError(
                f"rule {spec.name}: right side undefined ({e}) where the left is defined; env={env}"
            ) from e
        if lhs_v != rhs_v:
            raise AssertionError(f"rule {spec.name} is unsound: {lhs_v} != {rhs_v}; env={env}")
        checked += 1
    return SoundnessResult(checked, skipped)
