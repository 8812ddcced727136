"""Lowers a ``Program`` onto a slot-vector evaluator and runs it (encrypted or modelled).

In: an ``eqsat.ir.Program``, an *evaluator* (``backend.bgv.BGV``, ``backend.ckks.CKKS``,
or the noise model's abstract evaluators in ``eqsat.backend.noise``), and the inputs.
Out: ``Lowering.run`` -> a dict node id -> value, where a secret value is an ``Enc``
(ciphertext + its logical slot count) and a plaintext value is a number or a list
(``None`` entries stand for values the noise model does not know).

Because the encrypted executor and the noise model share this one lowering, the model
predicts the noise of exactly the operation sequence that is executed.

Packing (one row of R = N/2 slots; both rows hold the same data)
---------------------------------------------------------------
* A tensor of n slots with n a power of two is replicated cyclically over the row
  (slot j holds v[j mod n]); a ring rotation by k is then the vector's cyclic rotation
  by k.  A tensor of any other size n <= R sits in slots [0, n) (the rest is
  unspecified); its rotation by k is rot(v, k)*1[0, n-k) + rot(v, k-n)*1[n-k, n) (two
  ring rotations, two masks).
* A tensor of n > R slots is split over c = ceil(n/R) ciphertexts ("chunks"): chunk j
  holds slots [j*R, (j+1)*R) of the vector padded with zeros to c*R (the parameter
  choice prefers a larger N and splits only at the largest candidate N).  Element-wise
  ops apply chunk by chunk; ``extract``/``insert`` address chunk i // R, slot i mod R.
  A rotation by k maps output slot i to source slot (i + k) mod n: output chunk j takes
  each source chunk c' that feeds it, rotated by the shift (k mod R for power-of-two n;
  for other n the wrap-around at n adds a second shift), times a 0/1 mask of the output
  slots it supplies -- for power-of-two n that is two source chunks, rot(C_(j+a), b) *
  1[0, R-b) + rot(C_(j+a+1), b) * 1[R-b, R) with k = a*R + b; a rotated source chunk is
  shared by every output chunk that needs it, and full-chunk moves (b = 0) are free.
* A scalar lives in slot 0 (other slots unspecified); a secret scalar input is
  encrypted replicated in every slot.
* Rotations use one Galois key per distinct step while the keys fit in
  ``GALOIS_KEY_BUDGET`` bytes; past that, new steps are composed from rotations by
  powers of two (at most log2(R) more keys).  The noise model sees the same sequence.
* ``extract(v, i)`` = rotate by i (free when slot i was just inserted: the scalar is
  reused).  ``insert``/``from_elements`` are applied lazily: a run of inserts into one
  vector is materialized once, as base * mask(kept slots) + sum_i rot(s_i * e_0, -i),
  replicated with period n by log2(R/n) rotate-and-adds (power-of-two n).  ``splat``
  masks slot 0 and fills the row by log2(R) rotate-and-adds.
* Mixed plaintext/ciphertext ops use add_plain/mul_plain; plaintext-only ops run in
  the clear (mod t for BGV).  ``encode`` encrypts, ``decode`` decrypts.

Management
----------
* relinearize: if the program has explicit ``relinearize`` ops they are obeyed (a
  degree-3 ciphertext is relinearized anyway before a multiplication or rotation, and
  counted under ``auto_relinearize``); otherwise every ct x ct product is relinearized.
* BGV: ``modswitch`` (and ``rescale``) drop one prime.  Operands at different levels
  are brought to the lower one by modswitch; different correction factors are balanced
  by two small scalar multiplications.
* CKKS: rescaling is automatic (after every mul and mul_plain, as OpenFHE's
  FLEXIBLEAUTO); the program's ``rescale``/``modswitch`` ops are then no-ops (counted
  as ``rescale_explicit_ignored``).  A product is relinearized before its rescale (even
  when the program places ``relinearize`` later: rescaling a degree-3 ciphertext adds
  a rounding term r_2 s^2, about sqrt(N) times larger than the key-switching noise).
  Operands at different levels are aligned by dropping limbs and one scale-adjusting
  multiplication by 1 followed by a rescale.
* ``reduce_noise``/``bootstrap``: a *simulated* bootstrap -- the executor decrypts
  with the secret key and encrypts again -- counted as ``bootstraps_simulated``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eqsat.backend.errors import BackendError
from eqsat.backend.params import balance_factors
from eqsat.interp import coerce_input
from eqsat.ir import Program, VecRef

Clear = Any  # a number, None, or a list of numbers/None
GALOIS_KEY_BUDGET = 1 << 30  # resident bytes of Galois keys kept before rotations are composed from 2^j steps


@dataclass
class Enc:
    """A secret value: ``n`` logical slots (``scalar``: slot 0) in one ciphertext per chunk.

    ``cts`` has one ciphertext, or ceil(n / R) chunks for a vector wider than a row.
    """

    cts: list[Any]
    n: int
    scalar: bool

    @property
    def ct(self) -> Any:
        """The ciphertext of a value that fits one row."""
        if len(self.cts) != 1:
            raise BackendError(f"a {self.n}-slot vector is split over {len(self.cts)} ciphertexts")
        return self.cts[0]


@dataclass
class Pending:
    """A vector with scalar inserts not yet applied (materialized on first other use)."""

    base: Any  # Enc or clear list
    items: dict[int, Any]  # position -> Enc scalar or clear number
    n: int


def _pow2(n: int) -> bool:
    return n & (n - 1) == 0


class Lowering:
    """Runs a program against one evaluator; see the module docstring."""

    def __init__(self, prog: Program, ev: Any, scheme: str) -> None:
        self.prog = prog
        self.ev = ev
        self.scheme = scheme
        self.t: int | None = ev.params.t if scheme == "bgv" else None
        self.R = ev.params.N // 2
        self.explicit_relin = any(prog.nodes[i].op == "relinearize" for i in prog.live())
        self.counts: Counter[str] = Counter()
        p = ev.params
        # a key's resident size: its (L+1) digits x (b, a) x (L+2) limbs x N words, and the
        # executor's copy of them for the level it switches at with their Shoup companions
        # (``RLWE._key_at``): three times the key (measured: 1023 keys of a 32x32 blur at
        # N = 2048 took 384 MB of keys and 770 MB of rows and companions)
        key_bytes = 3 * (p.max_level + 1) * 2 * (p.max_level + 2) * p.N * 8
        self._direct_steps: set[int] = set()
        self._max_direct = max(0, GALOIS_KEY_BUDGET // key_bytes - self.R.bit_length())

    # -- cleartext helpers ----------------------------------------------------------
    def _red(self, x: Any) -> Any:
        if x is None:
            return None
        if self.t is not None:
            return int(x) % self.t
        return float(x)

    def _clear_bin(self, op: str, x: Any, y: Any) -> Any:
        if isinstance(x, list) or isinstance(y, list):
            n = len(x) if isinstance(x, list) else len(y)
            xs = x if isinstance(x, list) else [x] * n
            ys = y if isinstance(y, list) else [y] * n
            return [self._clear_bin(op, a, b) for a, b in zip(xs, ys, strict=True)]
        if x is None or y is None:
            return None
        r = x + y if op == "add" else x - y if op == "sub" else x * y
        return self._red(r)

    # -- packing ------------------------------------------------------------------
    def _chunks(self, n: int, scalar: bool) -> int:
        return 1 if scalar or n <= self.R else -(-n // self.R)

    def _rows(self, value: Clear, n: int, scalar: bool) -> list[list[Any]]:
        """The slot rows of a cleartext value, one per chunk (see the packing notes)."""
        if self._chunks(n, scalar) == 1:
            return [self._row(value, n, scalar)]
        vals = value if isinstance(value, list) else [value] * n
        zero = 0 if self.t is not None else 0.0
        padded = [self._red(v) for v in vals] + [zero] * (-n % self.R)
        return [padded[j : j + self.R] for j in range(0, len(padded), self.R)]

    def _row(self, value: Clear, n: int, scalar: bool) -> list[Any]:
        if scalar:
            v = value[0] if isinstance(value, list) else value
            return [self._red(v)] * self.R
        vals = value if isinstance(value, list) else [value] * n
        vals = [self._red(v) for v in vals]
        if _pow2(n):
            return vals * (self.R // n)
        zero = 0 if self.t is not None else 0.0
        return vals + [zero] * (self.R - n)

    def _mask(self, n: int, positions: set[int]) -> list[Any]:
        one, zero = (1, 0) if self.t is not None else (1.0, 0.0)
        if _pow2(n) and n <= self.R:
            return [one if j % n in positions else zero for j in range(self.R)]
        return [one if j in positions else zero for j in range(self.R)]

    # -- evaluator wrappers (counting, alignment) -------------------------------------
    def _bump(self, name: str, k: int = 1) -> None:
        self.counts[name] += k

    def _relin(self, ct: Any, auto: bool = True) -> Any:
        if ct.degree > 2:
            self._bump("auto_relinearize" if auto else "relinearize")
            return self.ev.relinearize(ct)
        return ct

    def _rotate(self, ct: Any, k: int) -> Any:
        """Ring rotation by k: one key switch with a key for k while the Galois-key memory
        budget lasts, otherwise composed from rotations by powers of two (bounded keys)."""
        k %= self.R
        if k == 0:
            return ct
        ct = self._relin(ct)
        if k in self._direct_steps or len(self._direct_steps) < self._max_direct:
            self._direct_steps.add(k)
            self._bump("rotate")
            return self.ev.rotate(ct, k)
        self._bump("rotate_composed")
        bit = 1
        while k:
            if k & 1:
                self._bump("rotate")
                ct = self.ev.rotate(ct, bit)
            k >>= 1
            bit <<= 1
        return ct

    def _rescale_ckks(self, ct: Any) -> Any:
        if ct.level < self.ev.params.base_limbs:
            raise BackendError("CKKS ran out of levels: the parameters have too few primes for this program")
        self._bump("rescale")
        return self.ev.rescale(ct)

    def _align(self, a: Any, b: Any) -> tuple[Any, Any]:
        if self.scheme == "bgv":
            while a.level > b.level:
                self._bump("modswitch_align")
                a = self.ev.modswitch(a)
            while b.level > a.level:
                self._bump("modswitch_align")
                b = self.ev.modswitch(b)
            if a.factor % self.t != b.factor % self.t:
                x, y = balance_factors(a.factor, b.factor, self.t)  # type: ignore[arg-type]
                self._bump("balance_factor")
                a, b = self.ev.mul_scalar(a, x), self.ev.mul_scalar(b, y)
            return a, b
        if a.level > b.level:
            a = self._level_down(a, b.level)
        elif b.level > a.level:
            b = self._level_down(b, a.level)
        return a, b

    def _level_down(self, x: Any, level: int) -> Any:
        """CKKS: bring x to ``level`` with that level's canonical scale."""
        self._bump("level_adjust")
        x = self.ev.drop_to(x, level + 2)  # limbs q_0..q_{level+1}
        sigma = self.ev.canonical_scale(level) * self.ev.params.moduli[level + 1] / x.scale
        x = self.ev.mul_plain(x, [1.0] * self.R, scale=sigma)
        return self._rescale_ckks(x)

    def _add(self, op: str, a: Any, b: Any) -> Any:
        a, b = self._align(a, b)
        self._bump(op)
        return self.ev.add(a, b) if op == "add" else self.ev.sub(a, b)

    def _mul(self, a: Any, b: Any) -> Any:
        a, b = self._align(self._relin(a), self._relin(b))
        self._bump("mul")
        r = self.ev.mul(a, b)
        if self.scheme == "ckks":  # relinearize, then rescale (as OpenFHE's EvalMult does)
            return self._rescale_ckks(self._relin(r, auto=self.explicit_relin))
        if not self.explicit_relin:
            r = self._relin(r, auto=False)
        return r

    def _mul_plain(self, a: Any, row: list[Any]) -> Any:
        self._bump("mul_plain")
        r = self.ev.mul_plain(a, row)
        if self.scheme == "ckks":
            r = self._rescale_ckks(r)
        return r

    def _add_plain(self, a: Any, row: list[Any]) -> Any:
        self._bump("add_plain")
        return self.ev.add_plain(a, row)

    def _neg(self, a: Any) -> Any:
        self._bump("neg")
        return self.ev.neg(a)

    def _encrypt(self, value: Clear, n: int, scalar: bool) -> Enc:
        rows = self._rows(value, n, scalar)
        self._bump("encrypt", len(rows))
        return Enc([self.ev.encrypt(r) for r in rows], n, scalar)

    def _decrypt(self, e: Enc) -> tuple[Clear, dict[str, float]]:
        """The slots, and the measurement of the noisiest chunk (max noise, min budget)."""
        self._bump("decrypt", len(e.cts))
        vals: list[Any] = []
        info: dict[str, float] = {}
        for ct in e.cts:
            row, inf = self.ev.decrypt(ct)
            vals += row if len(e.cts) > 1 else row[: e.n]
            for key, x in inf.items():
                worst = min if key.startswith("budget") else max
                info[key] = worst(info.get(key, x), x)
        if e.scalar:
            return vals[0], info
        return vals[: e.n], info

    # -- slot movement ---------------------------------------------------------------
    def _gather(self, items: dict[int, Enc], n: int) -> Any:
        """One ciphertext with scalar items[i] at logical slot i and zeros elsewhere.

        Each scalar is masked to slot 0 and rotated right by i; the sum is then replicated
        with period n (power-of-two n) by log2(R/n) rotate-and-adds, done once.
        """
        acc = None
        zero_mask = self._mask(self.R, {0})
        for i in sorted(items):
            x = self._rotate(self._mul_plain(self._relin(items[i].ct), zero_mask), -i)
            acc = x if acc is None else self._add("add", acc, x)
        if _pow2(n):
            step = n
            while step < self.R:
                acc = self._add("add", acc, self._rotate(acc, -step))
                step *= 2
        return acc

    def _materialize(self, v: Pending) -> Any:
        """Turn pending inserts into an ``Enc`` (or a clear list if nothing is secret)."""
        base = v.base
        clear: list[Any] = [self._red(0)] * v.n
        for i, s in v.items.items():
            if not isinstance(s, Enc):
                clear[i] = s
        if not isinstance(base, Enc):
            for j in range(v.n):
                if j not in v.items:
                    clear[j] = base[j]
            if not any(isinstance(s, Enc) for s in v.items.values()):
                return clear
        chunks = self._chunks(v.n, False)
        width = v.n if chunks == 1 else self.R  # a chunk is a full row: no replication
        rows = self._rows(clear, v.n, False)
        cts = []
        for j in range(chunks):
            lo = j * self.R if chunks > 1 else 0
            hi = min(v.n, lo + self.R) if chunks > 1 else v.n
            items = {i - lo: s for i, s in v.items.items() if lo <= i < hi}
            secret = {i: s for i, s in items.items() if isinstance(s, Enc)}
            acc = None
            if isinstance(base, Enc):
                keep = set(range(hi - lo)) - set(items)
                if keep:
                    acc = self._mul_plain(self._relin(base.cts[j]), self._mask(width, keep))
            if secret:
                g = self._gather(secret, width)
                acc = g if acc is None else self._add("add", acc, g)
            if acc is None:  # nothing secret lands in this chunk
                src = base.cts[j] if isinstance(base, Enc) else next(
                    s for s in v.items.values() if isinstance(s, Enc)
                ).ct
                acc = self._mul_plain(self._relin(src), self._mask(width, set()))
            if any(c is None or c != 0 for c in rows[j]):
                acc = self._add_plain(acc, rows[j])
            cts.append(acc)
        return Enc(cts, v.n, False)

    def _rotate_vec(self, v: Enc, k: int) -> Enc:
        n = v.n
        k %= n
        if k == 0:
            return v
        if len(v.cts) > 1:
            return self._rotate_split(v, k)
        if _pow2(n):
            return Enc([self._rotate(v.ct, k)], n, False)
        lo = self._mul_plain(self._rotate(v.ct, k), self._mask(n, set(range(n - k))))
        hi = self._mul_plain(self._rotate(v.ct, k - n), self._mask(n, set(range(n - k, n))))
        return Enc([self._add("add", lo, hi)], n, False)

    def _rotate_split(self, v: Enc, k: int) -> Enc:
        """Rotation of a split vector: per output chunk, masked rotations of source chunks."""
        R, n = self.R, v.n
        rotated: dict[tuple[int, int], Any] = {}
        out = []
        for j in range(len(v.cts)):
            parts: dict[tuple[int, int], set[int]] = {}
            for r in range(min(R, n - j * R)):
                src = (j * R + r + k) % n
                parts.setdefault((src // R, (src % R - r) % R), set()).add(r)
            acc = None
            for (c, b), slots in sorted(parts.items()):
                if (c, b) not in rotated:
                    rotated[(c, b)] = self._rotate(v.cts[c], b)
                x = rotated[(c, b)]
                if len(slots) < R:
                    x = self._mul_plain(x, self._mask(R, slots))
                acc = x if acc is None else self._add("add", acc, x)
            out.append(acc)
        return Enc(out, n, False)

    # -- the walk ---------------------------------------------------------------------
    def run(self, inputs: Mapping[str, object] | None, keep_all: bool = False) -> dict[int, Any]:
        """Execute every live node; values no later node needs are dropped unless ``keep_all``
        (results, and the operand of a result that is a ``decode``, are always kept)."""
        prog = self.prog
        env: dict[int, Any] = {}
        self.decrypt_info: dict[int, dict[str, float]] = {}
        live = prog.live()
        remaining = Counter(a for i in live for a in prog.nodes[i].args)
        keep = set(prog.results) | {
            prog.nodes[r].args[0] for r in prog.results if prog.nodes[r].op == "decode"
        }
        for i in live:
            self._step(env, i, inputs)
            if keep_all:
                continue
            for a in prog.nodes[i].args:
                remaining[a] -= 1
                if remaining[a] == 0 and a not in keep:
                    env.pop(a, None)
        for r in prog.results:
            self._value(env, r)
        return env

    def _step(self, env: dict[int, Any], i: int, inputs: Mapping[str, object] | None) -> None:
        prog = self.prog
        node = prog.nodes[i]
        ty = node.type
        n, scalar = ty.slots, ty.is_scalar
        op = node.op
        if op == "extract" and isinstance(env[node.args[0]], Pending):
            pend = env[node.args[0]]
            idx = int(node.attrs[0])  # type: ignore[call-overload]
            if idx in pend.items:  # reading back an inserted scalar costs nothing
                env[i] = pend.items[idx]
                return
        if op == "insert" and isinstance(env[node.args[1]], Pending):
            args = [self._value(env, node.args[0]), env[node.args[1]]]
        else:
            args = [self._value(env, a) for a in node.args]
        if op == "input":
            name = str(node.attrs[0])
            if inputs is None:
                val: Clear = None if scalar else [None] * n
            else:
                val = coerce_input(name, inputs[name], ty, self.t)
            env[i] = self._encrypt(val, n, scalar) if ty.secret else val
        elif op == "const":
            c = node.attrs[0]
            if isinstance(c, VecRef):
                c = c.values()
            env[i] = (
                [self._red(x) for x in c]
                if isinstance(c, tuple)
                else (self._red(c) if scalar else [self._red(c)] * n)
            )
        elif op == "empty":
            env[i] = [self._red(0)] * n
        elif op == "encode":
            x = args[0]
            env[i] = x if isinstance(x, Enc) else self._encrypt(x, n, scalar)
        elif op == "decode":
            x = args[0]
            if isinstance(x, Enc):
                env[i], self.decrypt_info[i] = self._decrypt(x)
            else:
                env[i] = x
        elif op in ("add", "sub", "mul"):
            env[i] = self._binary(op, args[0], args[1], n, scalar)
        elif op == "neg":
            x = args[0]
            env[i] = Enc([self._neg(c) for c in x.cts], n, scalar) if isinstance(x, Enc) else self._clear_bin(
                "sub", 0, x
            )
        elif op == "rotate":
            x = args[0]
            k = int(node.attrs[0])  # type: ignore[call-overload]
            if isinstance(x, Enc):
                env[i] = self._rotate_vec(x, k)
            else:
                k %= n
                env[i] = x[k:] + x[:k]
        elif op == "extract":
            x = args[0]
            idx = int(node.attrs[0])  # type: ignore[call-overload]
            if isinstance(x, Enc):
                chunk, slot = divmod(idx, self.R) if len(x.cts) > 1 else (0, idx)
                env[i] = Enc([self._rotate(x.cts[chunk], slot)], 1, True)
            else:
                env[i] = x[idx]
        elif op == "insert":
            env[i] = self._insert(args[0], args[1], int(node.attrs[0]), n)  # type: ignore[call-overload]
        elif op == "from_elements":
            if any(isinstance(e, Enc) for e in args):
                self._bump("from_elements")
                env[i] = Pending([self._red(0)] * n, dict(enumerate(args)), n)
            else:
                env[i] = list(args)
        elif op == "splat":
            x = args[0]
            if isinstance(x, Enc):
                ct = self._mul_plain(self._relin(x.ct), self._mask(self.R, {0}))
                step = 1
                while step < self.R:
                    ct = self._add("add", ct, self._rotate(ct, -step))
                    step *= 2
                env[i] = Enc([ct] * self._chunks(n, False), n, False)
            else:
                env[i] = [x] * n
        else:
            env[i] = self._management(op, args[0], n, scalar)

    def _value(self, env: dict[int, Any], a: int) -> Any:
        v = env[a]
        if isinstance(v, Pending):
            v = env[a] = self._materialize(v)
        return v

    def _binary(self, op: str, x: Any, y: Any, n: int, scalar: bool) -> Any:
        ex, ey = isinstance(x, Enc), isinstance(y, Enc)
        if not ex and not ey:
            return self._clear_bin(op, x, y)
        if ex and ey:
            if op == "mul":
                return Enc([self._mul(a, b) for a, b in zip(x.cts, y.cts, strict=True)], n, scalar)
            return Enc([self._add(op, a, b) for a, b in zip(x.cts, y.cts, strict=True)], n, scalar)
        ct_side, clear = (x, y) if ex else (y, x)
        return Enc(
            [
                self._mixed(op, ex, c, row)
                for c, row in zip(ct_side.cts, self._rows(clear, n, scalar), strict=True)
            ],
            n,
            scalar,
        )

    def _mixed(self, op: str, ct_first: bool, ct: Any, row: list[Any]) -> Any:
        if op == "mul":
            return self._mul_plain(ct, row)
        if op == "add":
            return self._add_plain(ct, row)
        if ct_first:  # ct - p
            return self._add_plain(ct, [self._clear_bin("sub", 0, v) for v in row])
        return self._add_plain(self._neg(ct), row)  # p - ct

    def _insert(self, s: Any, v: Any, idx: int, n: int) -> Any:
        if not isinstance(s, Enc) and isinstance(v, list):
            out = list(v)
            out[idx] = s
            return out
        self._bump("insert")
        if isinstance(v, Pending):
            return Pending(v.base, {**v.items, idx: s}, n)
        return Pending(v, {idx: s}, n)

    def _management(self, op: str, x: Any, n: int, scalar: bool) -> Any:
        if not isinstance(x, Enc):
            return x
        return Enc([self._manage_one(op, ct) for ct in x.cts], x.n, x.scalar)

    def _manage_one(self, op: str, ct: Any) -> Any:
        if op == "relinearize":
            ct = self._relin(ct, auto=False)
        elif op in ("modswitch", "rescale"):
            if self.scheme == "bgv":
                if ct.level == 0:
                    raise BackendError(f"{op} at the last prime: the parameters have too few primes")
                self._bump("modswitch")
                ct = self.ev.modswitch(ct)
            else:
                self._bump("rescale_explicit_ignored")
        else:  # reduce_noise, bootstrap
            self._bump("bootstraps_simulated")
            ct = self.ev.refresh(self._relin(ct))
        return ct
