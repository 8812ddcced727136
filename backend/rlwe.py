"""What BGV and CKKS share: keys, public-key encryption, key switching, rotations.

In: ``Params`` and an optional seed.  Out: ``RLWE``, the base class of ``BGV``/``CKKS``
(``backend.bgv``, ``backend.ckks``), and ``Ciphertext``.

* Secret key s: uniform ternary.  Public key (b, a) = (-a*s + T*e, a) modulo Q (all
  ciphertext primes), with T = t for BGV and T = 1 for CKKS.
* Key switching (relinearization, rotations) is hybrid with one special prime P and
  one digit per RNS limb: the key for w (s^2 or s(x^g)) holds, for each limb i,
  (b_i, a_i) over Q*P with b_i = -a_i*s + T*e_i + [P*w if the limb is q_i].  A
  polynomial d at level l is split into its centered limb residues d_i, and
  sum_i d_i*(b_i, a_i) = (P*d*w + T*E, .) over q_0..q_l*P; dividing by P (rounding so
  the error stays a multiple of T) gives an encryption of d*w under s.  Keys made for
  the top level serve every lower level (drop the unused limbs).
* Galois keys are generated lazily, only for the Galois elements a program uses.
* Hoisting: the digits of c_1(x^g) are the digits of c_1 put through x -> x^g, which in
  the NTT domain is a permutation of the slots (``polyring.ntt_auto_perm``).  So the
  first rotation of a ciphertext keeps its digits and later rotations of the same
  ciphertext only permute them (``_digits_of``), bit-identically.
* Plaintexts (rows of slot values) are encoded, lifted and NTT'd once per key set and
  kept in an LRU cache (``_cached_plain``, ``PLAIN_CACHE_BYTES``).
* The secret key stays inside this object: nothing prints or serialises it.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from eqsat.backend import ntt
from eqsat.backend.ntt import muladd2, shoup
from eqsat.backend.params import Params
from eqsat.backend.polyring import Ring, Sampler, divide_round_last, ntt_auto_perm

#: bytes of encoded plaintexts (NTT form) kept per key set
PLAIN_CACHE_BYTES = 256 << 20
#: ciphertexts whose key-switching digits are kept for hoisted rotations
HOISTED_KEPT = 4


#: a key-switching key's rows at one level: (b, shoup(b), a, shoup(a))
KeyRows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class Form(NamedTuple):
    """Polynomials of a ciphertext and whether they are in NTT form."""

    polys: list[np.ndarray]
    ntt: bool


class Ciphertext:
    """Polynomials modulo q_0..q_level; decrypts as sum_k c_k s^k.

    A ciphertext is held in coefficient form, in NTT (evaluation) form, or both: the
    form it was made in is kept, and the other is computed on first use and kept too
    (``polys`` is the coefficient form, ``evals(ring)`` the NTT form).  Element-wise
    operations (add, mul_plain, the tensor product) work in the NTT form, digit
    decomposition and automorphisms (key switching, rotations) and prime dropping in
    the coefficient form, as SEAL and OpenFHE do.
    """

    def __init__(
        self,
        polys: list[np.ndarray] | None,
        level: int,
        factor: int = 1,
        scale: float = 1.0,
        meta: dict[str, object] | None = None,
        *,
        evals: list[np.ndarray] | None = None,
        ring: Ring | None = None,
    ) -> None:
        if polys is None and (evals is None or ring is None):
            raise ValueError("a ciphertext needs its coefficient form, or its NTT form and ring")
        self._coeff = None if polys is None else list(polys)
        self._evals = None if evals is None else list(evals)
        self._ring = ring
        self.native_ntt = polys is None
        self.level = level
        self.factor = factor  # BGV: the plaintext is factor*m (mod t)
        self.scale = scale  # CKKS: the slots hold value*scale
        self.meta: dict[str, object] = {} if meta is None else meta

    @property
    def polys(self) -> list[np.ndarray]:
        """The coefficient form (computed from the NTT form on first use)."""
        if self._coeff is None:
            assert self._ring is not None and self._evals is not None
            self._coeff = [self._ring.intt(p) for p in self._evals]
        return self._coeff

    def evals(self, ring: Ring) -> list[np.ndarray]:
        """The NTT form over ``ring`` (q_0..q_level), computed on first use."""
        if self._evals is None:
            assert self._coeff is not None
            self._evals = [ring.ntt(p) for p in self._coeff]
            self._ring = ring
        return self._evals

    @property
    def has_coeffs(self) -> bool:
        return self._coeff is not None

    @property
    def degree(self) -> int:
        return len(self._coeff if self._coeff is not None else self._evals or [])

    def fresh(self) -> Ciphertext:
        """The same ciphertext in only the form it was made in (no cached conversions,
        no hoisted decomposition): what a benchmark must time an operation on."""
        if self.native_ntt:
            return Ciphertext(None, self.level, self.factor, self.scale, dict(self.meta),
                              evals=self._evals, ring=self._ring)
        return Ciphertext(self._coeff, self.level, self.factor, self.scale, dict(self.meta))


class RLWE:
    """Key material and the scheme-independent ring-LWE operations."""

    T: int = 1  # the multiple the errors carry (t for BGV, 1 for CKKS)

    def __init__(self, params: Params, seed: int | None = None) -> None:
        self.params = params
        self.n = params.N
        self.sampler = Sampler(seed)
        self._rings: dict[tuple[int, bool], Ring] = {}
        top = self.ring(params.max_level, special=True)
        s = self.sampler.ternary(self.n)
        self._s_ntt_qp = top.ntt(top.from_signed(s))
        self._s_coeffs = s
        self._galois: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
        self.stats: dict[str, int] = {"galois_keys": 0, "plain_encodes": 0, "plain_cache_hits": 0,
                                      "hoisted_reuses": 0}
        self._key_rows: dict[tuple[int, int], tuple[object, list[KeyRows]]] = {}
        self._plain: OrderedDict[tuple[object, ...], np.ndarray] = OrderedDict()
        self._plain_bytes = 0
        self._hoisted: OrderedDict[int, tuple[weakref.ref[Ciphertext], list[np.ndarray], int]] = OrderedDict()
        #: rotations of one ciphertext share its key-switching decomposition
        self.hoist = True
        # public key over Q (NTT form)
        rq = self.ring(params.max_level)
        a = self.sampler.uniform(rq.primes, self.n)
        e = rq.from_signed(self.sampler.cbd(self.n) * self.T)
        a_ntt = rq.ntt(a)
        b = rq.sub(rq.intt(rq.neg(rq.mul(a_ntt, self._s_ntt(params.max_level)))), rq.neg(e))
        self._pk = (rq.ntt(b), a_ntt)

    # -- rings -------------------------------------------------------------------
    def ring(self, level: int, special: bool = False) -> Ring:
        key = (level, special)
        if key not in self._rings:
            primes = self.params.moduli[: level + 1] + ((self.params.special,) if special else ())
            self._rings[key] = Ring(primes, self.n)
        return self._rings[key]

    def _qp_rows(self, level: int) -> list[int]:
        return [*range(level + 1), self.params.max_level + 1]

    def _s_ntt(self, level: int, special: bool = False) -> np.ndarray:
        rows = self._qp_rows(level) if special else list(range(level + 1))
        return self._s_ntt_qp[rows]

    # -- keys --------------------------------------------------------------------
    def _switch_key(self, w_coeffs: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Key-switching key from w (signed int64 coefficients) to s, in NTT form over Q*P."""
        top = self.ring(self.params.max_level, special=True)
        w_ntt = top.ntt(top.from_signed(w_coeffs))
        p = self.params.special
        key = []
        for i in range(self.params.max_level + 1):
            a = self.sampler.uniform(top.primes, self.n)
            a_ntt = top.ntt(a)
            e_ntt = top.ntt(top.from_signed(self.sampler.cbd(self.n) * self.T))
            b = top.sub(e_ntt, top.mul(a_ntt, self._s_ntt_qp))
            q = top.primes[i]
            b[i] = (b[i] + (w_ntt[i] * np.uint64(p % q)) % np.uint64(q)) % np.uint64(q)
            key.append((b, a_ntt))
        return key

    @cached_property
    def _relin_key(self) -> list[tuple[np.ndarray, np.ndarray]]:
        top = self.ring(self.params.max_level, special=True)
        s2 = top.polymul(top.from_signed(self._s_coeffs), top.from_signed(self._s_coeffs))
        # s^2 has coefficients |.| <= N: recover them from the first limb
        q0 = top.primes[0]
        c = s2[0].astype(np.int64)
        return self._switch_key(np.where(c > q0 // 2, c - q0, c))

    def galois_key(self, g: int) -> list[tuple[np.ndarray, np.ndarray]]:
        if g not in self._galois:
            idx = (np.arange(self.n) * g) % (2 * self.n)
            w = np.zeros(self.n, dtype=np.int64)
            w[idx % self.n] = np.where(idx >= self.n, -self._s_coeffs, self._s_coeffs)
            self._galois[g] = self._switch_key(w)
            self.stats["galois_keys"] += 1
        return self._galois[g]

    def _key_at(self, key: list[tuple[np.ndarray, np.ndarray]], level: int) -> list[KeyRows]:
        """The key's rows for q_0..q_level and P, contiguous, with their Shoup companions
        (made once per key and level)."""
        tag = (id(key), level)
        got = self._key_rows.get(tag)
        if got is None or got[0] is not key:
            rows = self._qp_rows(level)
            q = self.ring(level, special=True).q
            sub = []
            for b, a in key[: level + 1]:
                bb, aa = np.ascontiguousarray(b[rows]), np.ascontiguousarray(a[rows])
                sub.append((bb, shoup(bb, q), aa, shoup(aa, q)))
            got = self._key_rows[tag] = (key, sub)
        return got[1]

    def decompose(self, d: np.ndarray, level: int, d_evals: np.ndarray | None = None) -> list[np.ndarray]:
        """The key-switching digits of d (coefficient form at ``level``): per limb i, its
        centered residues lifted into q_0..q_level*P, in NTT form.  Given d's NTT form
        ``d_evals``, row i of digit i is d's own row i (the residues mod q_i are d_i) and
        is copied instead of transformed, as SEAL does for NTT-form ciphertexts."""
        rqp = self.ring(level, special=True)
        tab = rqp.tab
        out = []
        for i in range(level + 1):
            x = rqp.lift_centered(d[i], self.params.moduli[i])
            if d_evals is None:
                out.append(tab.forward(x))
                continue
            for lo, hi in ((0, i), (i + 1, level + 2)):  # every row but i
                if hi > lo:
                    ntt._forward(x[lo:hi], tab.w[lo:hi], tab.ws[lo:hi], tab.q[lo:hi])
            x[i] = d_evals[i]
            out.append(x)
        return out

    def switch_digits(
        self,
        digits: list[np.ndarray],
        level: int,
        key: list[tuple[np.ndarray, np.ndarray]],
        perm: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """sum_i digit_i * key_i over Q*P, divided by P (coefficient form over Q).  With
        ``perm``, the digits are first put through the NTT-domain automorphism ``perm``
        (``polyring.ntt_auto_perm``): the digits of a(x^g) are the permuted digits of a, so
        one decomposition serves every rotation of a ciphertext (hoisting)."""
        rqp = self.ring(level, special=True)
        acc0 = np.zeros((level + 2, self.n), dtype=np.uint64)
        acc1 = np.zeros_like(acc0)
        for dn, rows in zip(digits, self._key_at(key, level), strict=True):
            muladd2(dn, perm, rows, rqp.q, acc0, acc1)
        rq = self.ring(level)
        t = self.T if self.T > 1 else 0
        k0 = divide_round_last(rqp, rq, rqp.intt(acc0), t)
        k1 = divide_round_last(rqp, rq, rqp.intt(acc1), t)
        return k0, k1

    def key_switch(
        self, d: np.ndarray, level: int, key: list[tuple[np.ndarray, np.ndarray]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(k0, k1) with k0 + k1*s = d*w + T*small (mod q_0..q_level), d in coefficient form."""
        return self.switch_digits(self.decompose(d, level), level, key)

    # -- encryption ----------------------------------------------------------------
    def encrypt_poly(self, m: np.ndarray) -> list[np.ndarray]:
        """Public-key encryption of the coefficient-form plaintext m (over Q, top level)."""
        rq = self.ring(self.params.max_level)
        u = rq.ntt(rq.from_signed(self.sampler.ternary(self.n)))
        e0 = rq.from_signed(self.sampler.cbd(self.n) * self.T)
        e1 = rq.from_signed(self.sampler.cbd(self.n) * self.T)
        b, a = self._pk
        c0 = rq.add(rq.add(rq.intt(rq.mul(b, u)), e0), m)
        c1 = rq.add(rq.intt(rq.mul(a, u)), e1)
        return [c0, c1]

    def encrypt_poly_ntt(self, m: np.ndarray) -> list[np.ndarray]:
        """``encrypt_poly`` with the same randomness, returned in NTT form (the same
        ciphertext: NTT(intt(b*u) + e0 + m) = b*u + NTT(e0 + m))."""
        rq = self.ring(self.params.max_level)
        u = rq.ntt(rq.from_signed(self.sampler.ternary(self.n)))
        e0 = rq.from_signed(self.sampler.cbd(self.n) * self.T)
        e1 = rq.from_signed(self.sampler.cbd(self.n) * self.T)
        b, a = self._pk
        c0 = rq.add(rq.mul(b, u), rq.ntt(rq.add(e0, m)))
        c1 = rq.add(rq.mul(a, u), rq.ntt(e1))
        return [c0, c1]

    def phase_poly(self, ct: Ciphertext) -> np.ndarray:
        """c_0 + c_1*s + c_2*s^2 + ... modulo Q_level (RNS, coefficient form; uses s).

        Horner in the NTT domain over c_1.. ; c_0 is added in whichever form the
        ciphertext already has (a coefficient-form c_0 needs no transform)."""
        rq = self.ring(ct.level)
        s = self._s_ntt(ct.level)
        ev = ct.evals(rq) if not ct.has_coeffs else None
        polys = ev if ev is not None else ct.polys
        acc = polys[-1] if ev is not None else rq.ntt(polys[-1])
        for c in reversed(polys[1:-1]):
            acc = rq.add(rq.mul(acc, s), c if ev is not None else rq.ntt(c))
        acc = rq.mul(acc, s)
        if ev is not None:
            return rq.intt(rq.add(acc, polys[0]))
        return rq.add(rq.intt(acc), polys[0])

    def phase(self, ct: Ciphertext) -> list[int]:
        """The phase, centered, as exact Python ints."""
        return self.ring(ct.level).to_ints(self.phase_poly(ct))

    # -- plaintext cache --------------------------------------------------------------------
    def _cached_plain(self, key: tuple[object, ...], make: Callable[[], np.ndarray]) -> np.ndarray:
        """A plaintext polynomial (encoded, lifted, NTT'd as ``make`` does) made once per
        key set and reused: masks, weights and diagonals recur on every call of a program.
        LRU, bounded by ``PLAIN_CACHE_BYTES``."""
        got = self._plain.get(key)
        if got is not None:
            self._plain.move_to_end(key)
            self.stats["plain_cache_hits"] += 1
            return got
        val = make()
        self.stats["plain_encodes"] += 1
        self._plain[key] = val
        self._plain_bytes += val.nbytes
        while self._plain_bytes > PLAIN_CACHE_BYTES and len(self._plain) > 1:
            _, old = self._plain.popitem(last=False)
            self._plain_bytes -= old.nbytes
        return val

    # -- evaluation shared by both schemes ----------------------------------------------
    def _ct(self, form: Form, level: int, **kw: Any) -> Ciphertext:
        """A ciphertext from a helper's result (coefficient or NTT form)."""
        if form.ntt:
            return Ciphertext(None, level, evals=form.polys, ring=self.ring(level), **kw)
        return Ciphertext(form.polys, level, **kw)

    def _check(self, a: Ciphertext, b: Ciphertext) -> None:
        if a.level != b.level:
            raise ValueError(f"level mismatch {a.level} != {b.level}")

    def _combine(self, a: Ciphertext, b: Ciphertext, sub: bool) -> Form:
        """a +- b, in coefficient form when both have it, else in NTT form."""
        self._check(a, b)
        rq = self.ring(a.level)
        ntt_form = not (a.has_coeffs and b.has_coeffs)
        pa = a.evals(rq) if ntt_form else a.polys
        pb = b.evals(rq) if ntt_form else b.polys
        zero = np.zeros_like(pa[0])
        deg = max(len(pa), len(pb))
        pa = pa + [zero] * (deg - len(pa))
        pb = pb + [zero] * (deg - len(pb))
        return Form([rq.sub(x, y) if sub else rq.add(x, y) for x, y in zip(pa, pb, strict=True)], ntt_form)

    def _negate(self, a: Ciphertext) -> Form:
        rq = self.ring(a.level)
        if a.has_coeffs:
            return Form([rq.neg(c) for c in a.polys], False)
        return Form([rq.neg(c) for c in a.evals(rq)], True)

    def _tensor(self, a: Ciphertext, b: Ciphertext) -> Form:
        """(a0 + a1 s)(b0 + b1 s) as three NTT-form polynomials (relinearize separately)."""
        self._check(a, b)
        if a.degree != 2 or b.degree != 2:
            raise ValueError("multiply needs degree-2 ciphertexts (relinearize first)")
        rq = self.ring(a.level)
        a0, a1 = a.evals(rq)
        b0, b1 = b.evals(rq)
        d0 = rq.mul(a0, b0)
        d1 = rq.add(rq.mul(a0, b1), rq.mul(a1, b0))
        d2 = rq.mul(a1, b1)
        return Form([d0, d1, d2], True)

    def _relin(self, a: Ciphertext) -> list[np.ndarray]:
        if a.degree == 2:
            return a.polys
        if a.degree != 3:
            raise ValueError(f"cannot relinearize degree {a.degree}")
        rq = self.ring(a.level)
        evs = a.evals(rq)[2] if a.native_ntt else None  # a tensor product: c_2's NTT form is at hand
        digits = self.decompose(a.polys[2], a.level, evs)
        k0, k1 = self.switch_digits(digits, a.level, self._relin_key)
        return [rq.add(a.polys[0], k0), rq.add(a.polys[1], k1)]

    def galois_element(self, k: int) -> int:
        """x -> x^(5^k): rotates each row of N/2 slots left by k."""
        half = self.n // 2
        return pow(5, k % half, 2 * self.n)

    def _rotate(self, a: Ciphertext, k: int) -> list[np.ndarray]:
        if a.degree != 2:
            raise ValueError("rotate needs a degree-2 ciphertext")
        return self._apply_galois(a, self.galois_element(k))

    def _digits_of(self, a: Ciphertext, g: int) -> tuple[list[np.ndarray], np.ndarray | None]:
        """Key-switching digits for c_1(x^g), and the NTT-domain permutation still to apply
        to them (None: none).  The first rotation of a ciphertext decomposes c_1(x^g0)
        itself (no permutation: as fast as an unhoisted rotation) and keeps those digits;
        a later rotation by g of the same ciphertext permutes them by x -> x^(g/g0), since
        c_1(x^g0) composed with x^(g/g0) is c_1(x^g) and the digits commute with
        automorphisms.  At most ``HOISTED_KEPT`` ciphertexts' digits are kept."""
        tag = id(a)
        got = self._hoisted.get(tag)
        two_n = 2 * self.n
        if got is not None and got[0]() is a:
            self._hoisted.move_to_end(tag)
            self.stats["hoisted_reuses"] += 1
            _, digits, g0 = got
            k = g * pow(g0, -1, two_n) % two_n
            return digits, (None if k == 1 else ntt_auto_perm(self.n, k))
        rq = self.ring(a.level)
        c1 = rq.automorphism(a.polys[1], g)
        evs = None
        if a.native_ntt:  # the NTT rows of c_1(x^g) are a permutation of c_1's own
            evs = a.evals(rq)[1][:, ntt_auto_perm(self.n, g)]
        digits = self.decompose(c1, a.level, evs)
        self._hoisted[tag] = (weakref.ref(a), digits, g)
        while len(self._hoisted) > HOISTED_KEPT:
            self._hoisted.popitem(last=False)
        return digits, None

    def _apply_galois(self, a: Ciphertext, g: int) -> list[np.ndarray]:
        """a(x^g) switched back to s.  With ``hoist`` (the default), one decomposition per
        ciphertext serves all its rotations (``_digits_of``); the result is bit-identical
        to decomposing c_1(x^g) afresh (``hoist = False``)."""
        if g == 1:
            return list(a.polys)
        rq = self.ring(a.level)
        c0 = rq.automorphism(a.polys[0], g)
        if self.hoist:
            digits, perm = self._digits_of(a, g)
            k0, k1 = self.switch_digits(digits, a.level, self.galois_key(g), perm)
        else:
            c1 = rq.automorphism(a.polys[1], g)
            k0, k1 = self.key_switch(c1, a.level, self.galois_key(g))
        return [rq.add(c0, k0), k1]

    def rotate_many(self, a: Ciphertext, ks: list[int]) -> list[Ciphertext]:
        """Rotations of one ciphertext by every k in ``ks`` sharing one decomposition
        (hoisted, as OpenFHE's EvalFastRotation); the scheme's ``rotate`` does the same
        implicitly when it sees the same ciphertext again."""
        return [self.rotate(a, k) for k in ks]  # type: ignore[attr-defined]

    def _drop_prime(self, a: Ciphertext) -> list[np.ndarray]:
        if a.level == 0:
            raise ValueError("no prime left to drop")
        hi, lo = self.ring(a.level), self.ring(a.level - 1)
        t = self.T if self.T > 1 else 0
        return [divide_round_last(hi, lo, c, t) for c in a.polys]

    def _mul_const_poly(self, a: Ciphertext, p_ntt: np.ndarray) -> Form:
        """a * p for a plaintext polynomial p given in NTT form: NTT-form result."""
        rq = self.ring(a.level)
        return Form([rq.mul(c, p_ntt) for c in a.evals(rq)], True)
