"""Linear slot maps of one vector in diagonal form, and their realization plans (pure numpy).

A linear map ``y = M v`` on ``n`` slots is held as its *diagonals*:
``y = sum_d D_d * rot(v, d)`` with ``rot(v, d)[i] = v[(i + d) mod n]`` and ``D_d`` a plaintext
vector of ``n`` coefficients (``D_d[i] = M[i, (i + d) mod n]``).  Only nonzero diagonals are
kept.  This is the form every packed kernel shares: a plaintext matrix times a secret vector
(Halevi-Shoup), a convolution or stencil with zero padding (masked diagonals), a pooling
window, a rotate-and-reduce.

In: numpy arrays (a matrix, or offset -> coefficient vector).  Out:

* ``LinearMap`` (immutable; ``apply`` on a concrete vector, ``to_matrix``) and its
  constructors ``from_matrix`` / ``from_diagonals``;
* a content-hash handle registry (``register(m) -> "lm..."``, ``lookup(handle)``): the
  e-graph refers to a map by its handle string only, so a 4096 x 4096 matrix is never
  spelled out in an egglog string; ``register_vector`` / ``lookup_vector`` do the same for
  the plaintext diagonal vectors a realized program multiplies by;
* realization planners, all exact for any map (tests check them against numpy):
    - ``plan_direct``: one rotation per nonzero offset ``d != 0``;
    - ``plan_bsgs``: baby-step/giant-step (Halevi-Shoup).  Every offset is split as
      ``d = g + s`` with giant offsets ``g`` multiples of a step ``b`` and baby offsets
      ``s`` the remainders (floor or centered); then
      ``y = sum_g rot(sum_s rot(D_(g+s), -g) * rot(v, s), g)`` -- the pre-rotated plaintext
      diagonals cost nothing.  The step is chosen by cost over every ``b``: for a dense
      n x n matrix it gives ``ceil(sqrt n)`` steps each way; for a masked 3 x 3 stencil on a
      W-wide image (offsets ``dr*W + dc``) it finds ``b = W``: 2 baby + 2 giant rotations
      at any image size (a row pass then a column pass);
    - ``uniform_poly``: when every diagonal is one integer repeated (a shift-invariant map)
      the map *is* a rotation polynomial (``eqsat.algebra.rotpoly``) and the LinRot
      factorizations of ``eqsat.algebra.rotfactor`` apply (a 2x2 sum pool is
      ``(1 + rho)(1 + rho^W)``: 2 rotations).
  ``best_plan`` picks the cheapest plan by ``Cost``; ``Plan.apply`` evaluates a plan
  step by step, the way a realized program computes it.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache

import numpy as np

__all__ = [
    "Cost",
    "LinearMap",
    "Plan",
    "best_plan",
    "from_diagonals",
    "from_matrix",
    "lookup",
    "lookup_vector",
    "plan_bsgs",
    "plan_direct",
    "register",
    "register_vector",
    "uniform_poly",
]


def _as_coeffs(a: np.ndarray) -> np.ndarray:
    """Integers stay int64 (exact for BGV); anything else becomes float64 (CKKS)."""
    arr = np.asarray(a)
    if arr.dtype.kind in "biu":
        return arr.astype(np.int64)
    f = arr.astype(np.float64)
    if np.all(np.isfinite(f)) and np.all(f == np.round(f)) and arr.dtype.kind != "f":
        return f.astype(np.int64)
    return f


@dataclass(frozen=True, eq=False)
class LinearMap:
    """``y = sum_d diags[d] * rot(v, d)`` over ``n`` slots; offsets in ``[0, n)``, no zero diagonal."""

    n: int
    diags: Mapping[int, np.ndarray]

    def __post_init__(self) -> None:
        for d, vec in self.diags.items():
            if not 0 <= d < self.n or vec.shape != (self.n,):
                raise ValueError(f"diagonal {d} malformed for {self.n} slots")

    @property
    def offsets(self) -> list[int]:
        return sorted(self.diags)

    @property
    def is_float(self) -> bool:
        return any(v.dtype.kind == "f" for v in self.diags.values())

    def apply(self, v: np.ndarray) -> np.ndarray:
        """The map on a concrete vector of ``n`` slots."""
        v = np.asarray(v)
        if v.shape != (self.n,):
            raise ValueError(f"vector has shape {v.shape}, expected ({self.n},)")
        dtype = np.float64 if (self.is_float or v.dtype.kind == "f") else object
        out = np.zeros(self.n, dtype=dtype)
        for d, vec in self.diags.items():
            out = out + vec.astype(dtype) * np.roll(v, -d).astype(dtype)
        return out

    def to_matrix(self) -> np.ndarray:
        m = np.zeros((self.n, self.n), dtype=np.float64 if self.is_float else np.int64)
        idx = np.arange(self.n)
        for d, vec in self.diags.items():
            m[idx, (idx + d) % self.n] += vec
        return m

    def digest(self) -> str:
        dtype = np.float64 if self.is_float else np.int64
        h = hashlib.sha256(f"{self.n}|{'f' if self.is_float else 'i'}|".encode())
        h.update(np.array(self.offsets, dtype=np.int64).tobytes())
        if self.diags:
            h.update(np.stack([self.diags[d] for d in self.offsets]).astype(dtype, copy=False).tobytes())
        return h.hexdigest()[:24]


def from_diagonals(diags: Mapping[int, np.ndarray | float | int], n: int) -> LinearMap:
    """A map from offset -> coefficient vector (or scalar: a uniform diagonal); offsets mod n,
    equal offsets summed, zero diagonals dropped."""
    acc: dict[int, np.ndarray] = {}
    for d, vec in diags.items():
        arr = _as_coeffs(np.broadcast_to(np.asarray(vec), (n,)))
        k = d % n
        acc[k] = acc[k] + arr if k in acc else arr.copy()
    return LinearMap(n, {k: v for k, v in sorted(acc.items()) if np.any(v != 0)})


def from_matrix(m: np.ndarray, n: int | None = None) -> LinearMap:
    """The map ``y = m @ v`` for an ``r x c`` matrix with ``v`` in slots ``0..c-1`` and ``y`` in
    slots ``0..r-1`` of ``n >= max(r, c)`` slots (zero padding; other slots of y are 0)."""
    m = np.asarray(m)
    r, c = m.shape
    n = max(r, c) if n is None else n
    if n < max(r, c):
        raise ValueError(f"a {r}x{c} matrix needs at least {max(r, c)} slots, got {n}")
    full = np.zeros((n, n), dtype=_as_coeffs(m).dtype)
    full[:r, :c] = _as_coeffs(m)
    ext = np.ascontiguousarray(np.concatenate([full, full], axis=1))  # ext[i, j] = full[i, j mod n]
    step = ext.strides[1]
    # skewed[i, d] = ext[i, i + d] = full[i, (i + d) mod n]: a strided view, no index arrays
    skewed = np.lib.stride_tricks.as_strided(ext, shape=(n, n), strides=(ext.strides[0] + step, step))
    by_offset = skewed.T.copy()  # by_offset[d, i]
    nonzero = np.flatnonzero(by_offset.any(axis=1))
    return LinearMap(n, {int(d): np.ascontiguousarray(by_offset[d]) for d in nonzero})


# -- handles -------------------------------------------------------------------------------
_MAPS: dict[str, LinearMap] = {}
_VECTORS: dict[str, np.ndarray] = {}


def register(m: LinearMap) -> str:
    """The handle of ``m`` (``"lm"`` + content hash); equal maps get equal handles."""
    h = "lm" + m.digest()
    _MAPS.setdefault(h, m)
    return h


def register_part(handle: str, offsets: list[int]) -> str:
    """The handle of the registered map ``handle`` restricted to the diagonals at ``offsets``,
    named by the parent's handle and the offsets instead of by content: equal names still mean
    equal maps, and no diagonal is hashed again (taking a 4096 x 4096 map apart by halves
    re-hashed all of its diagonals at every level: 9 of 18 s of its load)."""
    parent = lookup(handle)
    h = hashlib.sha256(f"part|{handle}|".encode() + np.array(offsets, dtype=np.int64).tobytes())
    key = "lm" + h.hexdigest()[:24]
    if key not in _MAPS:
        _MAPS[key] = restrict(parent, offsets)
    return key


def lookup(handle: str) -> LinearMap:
    try:
        return _MAPS[handle]
    except KeyError:
        raise KeyError(f"unknown linear-map handle {handle!r}") from None


def register_vector(vec: np.ndarray) -> str:
    """The handle (``"pv"`` + content hash) of a plaintext vector."""
    arr = _as_coeffs(vec)
    h = hashlib.sha256(f"{arr.dtype.kind}|{arr.shape[0]}|".encode() + np.ascontiguousarray(arr).tobytes())
    key = "pv" + h.hexdigest()[:24]
    _VECTORS.setdefault(key, arr)
    return key


def lookup_vector(handle: str) -> np.ndarray:
    try:
        return _VECTORS[handle]
    except KeyError:
        raise KeyError(f"unknown plaintext-vector handle {handle!r}") from None


def registry() -> tuple[dict[str, LinearMap], dict[str, np.ndarray]]:
    """Every registered map and vector (a worker process hands them back with its e-graph:
    the rules register the handles of the parts they build)."""
    return dict(_MAPS), dict(_VECTORS)


def merge_registry(maps: Mapping[str, LinearMap], vectors: Mapping[str, np.ndarray]) -> None:
    """Add handles registered elsewhere (content hashes: equal handles are equal maps)."""
    for h, m in maps.items():
        _MAPS.setdefault(h, m)
    for h, v in vectors.items():
        _VECTORS.setdefault(h, v)


@contextmanager
def scoped_registry() -> Iterator[None]:
    """Forget, when the block ends, the maps and vectors first registered inside it (and the
    memoized plans): for a caller that drops every program made inside, e.g. one fuzz case --
    the registry otherwise keeps every handle of every program for the life of the process."""
    maps, vectors = set(_MAPS), set(_VECTORS)
    try:
        yield
    finally:
        for k in [k for k in _MAPS if k not in maps]:
            del _MAPS[k]
        for k in [k for k in _VECTORS if k not in vectors]:
            del _VECTORS[k]
        plan_for.cache_clear()
        _pinned_plan.cache_clear()


# -- plans ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cost:
    """Weights of one ciphertext op (a rotation is a key switch: by far the dearest)."""

    rotation: float = 1.0
    product: float = 0.02
    addition: float = 0.001

    def of(self, rotations: int, products: int, additions: int) -> float:
        return self.rotation * rotations + self.product * products + self.addition * additions


@dataclass(frozen=True, eq=False)
class Plan:
    """``y = sum_(g, terms) rot(sum_(s, P) P * rot(v, s), g)``, ``P`` plaintext vectors.

    ``giants`` lists ``(g, ((s, P), ...))``; ``P`` is ``None`` for an all-ones coefficient
    (no product).  ``kind`` says which planner made it; ``step`` is the BSGS step (0: direct).
    """

    kind: str
    n: int
    step: int
    giants: tuple[tuple[int, tuple[tuple[int, np.ndarray | None], ...]], ...]
    babies: tuple[int, ...] = field(default=())

    @property
    def rotations(self) -> int:
        return len([s for s in self.babies if s]) + len([g for g, _ in self.giants if g])

    @property
    def products(self) -> int:
        return sum(1 for _, terms in self.giants for _, p in terms if p is not None)

    @property
    def additions(self) -> int:
        return sum(len(terms) - 1 for _, terms in self.giants) + len(self.giants) - 1

    def cost(self, c: Cost = Cost()) -> float:
        return c.of(self.rotations, self.products, self.additions)

    def apply(self, v: np.ndarray) -> np.ndarray:
        """Evaluate the plan as a program would: rotations of v, plaintext products, sums."""
        v = np.asarray(v)
        float_ = v.dtype.kind == "f" or any(
            p is not None and p.dtype.kind == "f" for _, ts in self.giants for _, p in ts)
        dtype = np.float64 if float_ else object
        baby = {s: np.roll(v, -s).astype(dtype) for s in self.babies}
        out = np.zeros(self.n, dtype=dtype)
        for g, terms in self.giants:
            inner = np.zeros(self.n, dtype=dtype)
            for s, p in terms:
                inner = inner + (baby[s] if p is None else p.astype(dtype) * baby[s])
            out = out + np.roll(inner, -g)
        return out


def _coef(vec: np.ndarray) -> np.ndarray | None:
    return None if np.all(vec == 1) else vec


def plan_direct(m: LinearMap) -> Plan:
    """One rotation of v per nonzero offset, each times its diagonal."""
    terms = tuple((d, _coef(m.diags[d])) for d in m.offsets)
    return Plan("direct", m.n, 0, ((0, terms),) if terms else (), tuple(m.offsets))


def _split(offsets: np.ndarray, b: int, n: int, centered: bool) -> tuple[np.ndarray, np.ndarray]:
    """(giant, baby) offsets, both in [0, n), with giant + baby = offset mod n."""
    signed = np.where(offsets > n // 2, offsets - n, offsets)
    g = np.floor_divide(signed + (b // 2 if centered else 0), b) * b
    s = signed - g
    return g % n, s % n


def giant_steps(m: LinearMap, step: int, centered: bool) -> np.ndarray:
    """The giant step of each of ``m.offsets`` (in order) under a baby-step/giant-step split."""
    return _split(np.array(m.offsets, dtype=np.int64), step, m.n, centered)[0]


def _split_cost(offsets: np.ndarray, b: int, n: int, centered: bool) -> int:
    """Rotations of the split: distinct nonzero giant steps plus distinct nonzero baby steps."""
    g, s = _split(offsets, b, n, centered)
    if 8 * len(offsets) < n:  # few offsets: sort them rather than mark n slots
        return int(np.count_nonzero(np.unique(g))) + int(np.count_nonzero(np.unique(s)))
    seen = np.zeros(n, dtype=bool)
    seen[g] = True
    count = int(np.count_nonzero(seen[1:]))
    seen[:] = False
    seen[s] = True
    return count + int(np.count_nonzero(seen[1:]))


def _split_floor(k: int, b: int, n: int) -> int:
    """A lower bound on ``_split_cost`` of ``k`` distinct offsets of ``n`` slots with step ``b``.

    Each offset is a distinct (giant, baby) pair, so giants x babies >= k; the babies lie in
    a window of ``b`` values (giants >= k / b) and the giants are multiples of ``b`` in a
    window of ``n`` (at most ceil(n / b) + 1 of them, so babies >= k / that); giants + babies
    >= 2 sqrt(k); a zero giant and a zero baby cost nothing."""
    g_min = -(-k // b)
    s_min = -(-k // (-(-n // b) + 1))
    return max(g_min + s_min, math.isqrt(4 * k - 1) + 1 if k else 0) - 2


def plan_bsgs(m: LinearMap, step: int, centered: bool = False) -> Plan:
    """The baby-step/giant-step plan for one step ``b`` (see the module docstring)."""
    n = m.n
    offs = np.array(m.offsets, dtype=np.int64)
    gs, ss = _split(offs, step, n, centered)
    by_giant: dict[int, list[tuple[int, np.ndarray | None]]] = {}
    for d, g, s in zip(m.offsets, gs.tolist(), ss.tolist(), strict=True):
        by_giant.setdefault(g, []).append((s, _coef(np.roll(m.diags[d], g))))
    giants = tuple((g, tuple(sorted(by_giant[g], key=lambda t: t[0]))) for g in sorted(by_giant))
    babies = tuple(sorted(set(ss.tolist())))
    return Plan("bsgs", n, step, giants, babies)


def best_split(m: LinearMap) -> tuple[int, bool]:
    """The step (and remainder convention) with the fewest rotations; ties: the smaller step,
    then floor before centered; ``(0, False)`` when no split beats one rotation per offset.

    Steps are tried from about sqrt(offsets) outwards, and a step whose lower bound
    (``_split_floor``) cannot beat the best so far is skipped: the answer is the exhaustive
    search's, at a few hundred splits instead of 2n (a 4096 x 4096 matvec: 1.4 s -> 0.05 s)."""
    offs = np.array(m.offsets, dtype=np.int64)
    n, k = m.n, len(m.offsets)
    best = (len([d for d in m.offsets if d]) + 1, 0, 0)  # (rotations, step, centered)
    root = max(2, math.isqrt(k))
    steps = sorted(range(2, n), key=lambda b: (abs(b - root), b))
    for b in steps:
        floor = _split_floor(k, b, n)
        if floor > best[0] or (floor == best[0] and (best[1] == 0 or b > best[1])):
            continue  # cannot win: not fewer rotations, and not a tie at a smaller step
        for centered in (0, 1):
            cand = (_split_cost(offs, b, n, bool(centered)), b, centered)
            if cand[0] < best[0] or (cand[0] == best[0] and best[1] > 0 and cand < best):
                best = cand
    return best[1], bool(best[2])


def uniform_poly(m: LinearMap) -> dict[int, int] | None:
    """``{offset: c}`` when every diagonal is one integer ``c`` repeated, else None."""
    out: dict[int, int] = {}
    for d, vec in m.diags.items():
        if vec.dtype.kind == "f" or not np.all(vec == vec[0]):
            return None
        out[d] = int(vec[0])
    return out


def candidate_plans(m: LinearMap) -> list[Plan]:
    plans = [plan_direct(m)]
    if m.diags:
        b, centered = best_split(m)
        if b:
            plans.append(plan_bsgs(m, b, centered))
    return plans


def best_plan(m: LinearMap, cost: Cost = Cost(), key: Callable[[Plan], float] | None = None) -> Plan:
    """The cheapest of ``candidate_plans`` by ``cost`` (or by ``key``)."""
    score = key or (lambda p: p.cost(cost))
    return min(candidate_plans(m), key=score)


@cache
def plan_for(handle: str) -> Plan:
    """``best_plan`` of a registered map, memoized by handle (rules call this)."""
    return best_plan(lookup(handle))


# -- pinned plans: a handle suffix fixes how a map (and every part of it) is realized --------
# ``"lm<hash>@d"``: the direct plan; ``"lm<hash>@b<step><c|f>"``: baby-step/giant-step with that
# step and remainder convention (centered / floor).  A map's parts (halves of its giant steps)
# keep their parent's pin, so they share its baby-step rotations.


def pin_of(plan: Plan, centered: bool = False) -> str:
    return "@d" if plan.kind == "direct" else f"@b{plan.step}{'c' if centered else 'f'}"


def split_handle(handle: str) -> tuple[str, str]:
    """``(base handle, pin)``; the pin is ``""`` for an unpinned handle."""
    base, _, pin = handle.partition("@")
    return base, ("@" + pin if pin else "")


def resolve(handle: str) -> tuple[LinearMap, Plan | None]:
    """The map of a (possibly pinned) handle and its pinned plan (None: unpinned)."""
    base, pin = split_handle(handle)
    m = lookup(base)
    return m, (_pinned_plan(base, pin) if pin else None)


@cache
def _pinned_plan(base: str, pin: str) -> Plan:
    m = lookup(base)
    if pin == "@d":
        return plan_direct(m)
    if pin.startswith("@b") and pin[-1] in "cf" and pin[2:-1].isdigit() and int(pin[2:-1]) >= 1:
        return plan_bsgs(m, int(pin[2:-1]), pin[-1] == "c")
    raise KeyError(f"malformed plan pin {pin!r}")


def pinned_candidates(handle: str) -> tuple[str, ...]:
    """Pinned handles of the plans worth realizing: the best baby-step/giant-step split when
    it saves rotations, else the direct plan.  The direct plan is dominated otherwise (as many
    plaintext products, more rotations), and realizing it too put n rotations of v and their
    slot rewrites into the e-graph (a 1024 x 1024 matvec ran out of saturation time)."""
    m = lookup(split_handle(handle)[0])
    if m.diags:
        b, centered = best_split(m)
        if b:
            return (f"{handle}@b{b}{'c' if centered else 'f'}",)
    return (handle + "@d",)


def restrict(m: LinearMap, offsets: list[int]) -> LinearMap:
    """The map keeping only the diagonals at ``offsets``."""
    return LinearMap(m.n, {d: m.diags[d] for d in sorted(offsets)})
