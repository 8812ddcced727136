"""Data layouts: where a tensor's elements sit in (ciphertext, slot) positions.

In: a tensor shape and a layout name (row-major, column-major, permuted, replicated,
diagonal, zero-padded, strided, split), or a program plus candidate layouts. Out:
``Layout`` (an explicit slot-index map, JSON-serializable), ``pack``/``unpack`` (the
client's cleartext work), ``repack(prog, layouts)`` (the program rewritten to read its
arguments from the packed ciphertexts) and ``aligned_candidates(prog)`` (layouts chosen
from the program's own shape: every output slot computes the same template, so the client
places each template leaf's operand in the slot where it is needed).

A layout is a contract with whoever encrypts: element ``e`` (row-major flat index) of the
tensor is written into every position ``(ct, slot)`` of ``positions[e]``; a result is read
from the first position of each element. Slots no element names are zero in an argument
and unspecified in a result. Packing is a plaintext permutation/replication done by the
client before encryption, so it costs no homomorphic operation; conversions of a secret
value inside a program are ordinary ops (extract/insert, which the optimizer turns into
rotations and masks) and are counted as such.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from eqsat.errors import UserError
from eqsat.ir import Builder, Program, Type

Pos = tuple[int, int]


class LayoutError(UserError):
    """A layout that does not fit its tensor (bad JSON, wrong element count)."""


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


@dataclass(frozen=True)
class Layout:
    """``positions[e]``: the (ciphertext, slot) places of element ``e`` (flat, row-major)."""

    name: str
    shape: tuple[int, ...]
    ciphertexts: int
    slots: int
    positions: tuple[tuple[Pos, ...], ...]

    def __post_init__(self) -> None:
        n = math.prod(self.shape) if self.shape else 1
        if len(self.positions) != n:
            raise LayoutError(f"layout '{self.name}' places {len(self.positions)} elements of a tensor of {n}")
        for ps in self.positions:  # an argument's element the program never reads may stay unplaced
            for c, s in ps:
                if not (0 <= c < self.ciphertexts and 0 <= s < self.slots):
                    raise LayoutError(f"layout '{self.name}' position {(c, s)} is outside "
                                      f"{self.ciphertexts} ciphertext(s) of {self.slots} slots")

    @property
    def elements(self) -> int:
        return len(self.positions)

    def is_identity(self) -> bool:
        """One ciphertext holding element e in slot e and nothing else (today's contract)."""
        return self.ciphertexts == 1 and self.slots == self.elements and all(
            ps == ((0, e),) for e, ps in enumerate(self.positions))

    def slot_index(self) -> list[list[int]]:
        """Per element, its flat slot indices ``ct * slots + slot``."""
        return [[c * self.slots + s for c, s in ps] for ps in self.positions]

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "shape": list(self.shape),
            "ciphertexts": self.ciphertexts,
            "slots": self.slots,
            "slot_index": self.slot_index(),
        }

    @staticmethod
    def from_json(d: Mapping[str, object]) -> Layout:
        try:
            slots = int(d["slots"])  # type: ignore[call-overload]
            idx: Sequence[Sequence[int]] = d["slot_index"]  # type: ignore[assignment]
            shape: Sequence[int] = d["shape"]  # type: ignore[assignment]
            return Layout(str(d["name"]), tuple(shape), int(d["ciphertexts"]),  # type: ignore[call-overload]
                          slots, tuple(tuple((int(f) // slots, int(f) % slots) for f in ps) for ps in idx))
        except (KeyError, TypeError, ValueError) as e:
            raise LayoutError(f"malformed layout: {e}") from None


def _make(name: str, shape: tuple[int, ...], slots: int, places: Sequence[Sequence[Pos]]) -> Layout:
    cts = 1 + max((c for ps in places for c, _ in ps), default=0)
    return Layout(name, shape, cts, slots, tuple(tuple(ps) for ps in places))


def _count(shape: tuple[int, ...]) -> int:
    return math.prod(shape) if shape else 1


# -- the named layouts ----------------------------------------------------------------
def row_major(shape: tuple[int, ...]) -> Layout:
    return _make("row-major", shape, _count(shape), [[(0, e)] for e in range(_count(shape))])


def zero_padded(shape: tuple[int, ...]) -> Layout:
    """Row-major in a power-of-two vector; the slots after the elements are zero."""
    n = _count(shape)
    return _make("zero-padded", shape, _pow2(n), [[(0, e)] for e in range(n)])


def column_major(shape: tuple[int, ...]) -> Layout:
    r, c = shape
    return _make("column-major", shape, r * c, [[(0, j * r + i)] for i in range(r) for j in range(c)])


def permuted(shape: tuple[int, ...], perm: Sequence[int]) -> Layout:
    """Element e in slot ``perm[e]``."""
    n = _count(shape)
    if sorted(perm) != list(range(n)):
        raise LayoutError("a permutation must place every slot once")
    return _make("permuted", shape, n, [[(0, perm[e])] for e in range(n)])


def replicated(shape: tuple[int, ...], copies: int) -> Layout:
    """``copies`` row-major tiles side by side (every element in ``copies`` slots)."""
    n = _count(shape)
    return _make("replicated", shape, n * copies, [[(0, k * n + e) for k in range(copies)] for e in range(n)])


def strided(shape: tuple[int, ...], stride: int) -> Layout:
    n = _count(shape)
    return _make("strided", shape, _pow2(n * stride), [[(0, e * stride)] for e in range(n)])


def diagonal(shape: tuple[int, ...]) -> Layout:
    """Square matrix, one ciphertext per generalized diagonal: (i, j) at ct (j - i) mod n, slot i."""
    r, c = shape
    if r != c:
        raise LayoutError("the diagonal layout needs a square matrix")
    return _make("diagonal", shape, r, [[((j - i) % r, i)] for i in range(r) for j in range(c)])


def split(shape: tuple[int, ...], per_ct: int) -> Layout:
    """Row-major over ciphertexts of ``per_ct`` slots each."""
    n = _count(shape)
    return _make("split", shape, per_ct, [[(e // per_ct, e % per_ct)] for e in range(n)])


# -- the client's side ------------------------------------------------------------------
def pack(values: object, layout: Layout) -> list[list[int | float]]:
    """The cleartext vectors (one per ciphertext) that hold ``values`` in ``layout``."""
    flat = values if isinstance(values, list) else [values]
    if len(flat) != layout.elements:
        raise LayoutError(f"layout '{layout.name}' has {layout.elements} elements, the value {len(flat)}")
    zero: int | float = 0.0 if any(isinstance(v, float) for v in flat) else 0
    out: list[list[int | float]] = [[zero] * layout.slots for _ in range(layout.ciphertexts)]
    for v, ps in zip(flat, layout.positions, strict=True):
        for c, s in ps:
            out[c][s] = v
    return out


def unpack(vectors: Sequence[object], layout: Layout) -> object:
    """The tensor's elements (a number for a scalar) read from the decrypted ``vectors``."""
    rows = [v if isinstance(v, list) else [v] for v in vectors]
    if any(not ps for ps in layout.positions):
        raise LayoutError(f"layout '{layout.name}' leaves a result element unplaced")
    vals = [rows[ps[0][0]][ps[0][1]] for ps in layout.positions]
    return vals[0] if not layout.shape else vals


def arg_names(name: str, layout: Layout) -> list[str]:
    """The program arguments that carry ``name``'s ciphertexts."""
    return [name] if layout.ciphertexts == 1 else [f"{name}_ct{c}" for c in range(layout.ciphertexts)]


def pack_inputs(inputs: Mapping[str, object], layouts: Mapping[str, Layout]) -> dict[str, object]:
    """Inputs by original argument name -> inputs by packed argument name."""
    out: dict[str, object] = {}
    for name, v in inputs.items():
        lay = layouts.get(name)
        if lay is None:
            out[name] = v
            continue
        for an, vec in zip(arg_names(name, lay), pack(v, lay), strict=True):
            out[an] = vec if lay.slots > 1 or lay.shape else vec[0]
    return out


def unpack_results(outputs: Sequence[object], layouts: Sequence[Layout | None]) -> list[object]:
    """Results of the packed program -> results in the original shapes (one ciphertext each)."""
    return [o if lay is None else unpack([o], lay) for o, lay in zip(outputs, layouts, strict=True)]


# -- programs over packed arguments ---------------------------------------------------------
@dataclass
class Packed:
    """A program whose arguments are packed ciphertexts, and the layouts that say how."""

    program: Program
    args: dict[str, Layout]
    results: list[Layout]

    def to_json(self) -> dict[str, object]:
        return {
            "arguments": {n: {**lay.to_json(), "ciphertext_args": arg_names(n, lay)} for n, lay in self.args.items()},
            "results": [lay.to_json() for lay in self.results],
        }


def identity(prog: Program) -> Packed:
    """Today's contract: every argument and result row-major in one ciphertext."""
    return Packed(prog, {n: row_major(t.shape) for n, t in prog.args if t.secret},
                  [row_major(prog.nodes[r].type.shape) for r in prog.results])


def repack(prog: Program, layouts: Mapping[str, Layout]) -> Packed:
    """``prog`` reading each secret argument from its packed ciphertexts.

    The layout flows through: a read of element e reads e's first position; element-wise
    arithmetic (add, sub, mul, neg) on values of one single-ciphertext layout -- with
    plaintext operands packed alike by the compiler -- stays packed, and a result still
    packed is returned so (its layout reported). Any other use of a packed tensor (a
    rotation, an insert, a whole-tensor result of another layout) converts it back to
    row-major element by element: slot accesses the optimizer prices and turns into
    rotations and masks."""
    b = Builder(prog.name, style=prog.style)
    b.meta.update(prog.meta)
    remap: dict[int, int] = {}  # original node -> new node in the original's layout (row-major)
    lazy: dict[int, tuple[list[int], Layout]] = {}  # original node -> its packed ciphertexts, layout
    for name, ty in prog.args:
        lay = layouts.get(name)
        if lay is None or lay.is_identity() or not ty.secret:
            b.arg(name, ty)
            continue
        if lay.shape != ty.shape:
            raise LayoutError(f"layout of '{name}' is for shape {lay.shape}, the argument has {ty.shape}")
        vty = Type((lay.slots,), ty.elem, True) if lay.slots > 1 or ty.shape else ty
        for an in arg_names(name, lay):
            b.arg(an, vty)
    arg_ids = {str(n.attrs[0]): i for i, n in enumerate(b.nodes) if n.op == "input"}

    def row(i: int) -> int:
        """Node ``i`` in its own type (a conversion when it is only packed)."""
        if i not in remap:
            cts, lay = lazy[i]
            ty = prog.nodes[i].type
            if ty.is_scalar:
                c, s = lay.positions[0][0]
                remap[i] = cts[c] if b.type_of(cts[c]).is_scalar else b.extract(cts[c], s)
            else:
                elems = [b.extract(cts[ps[0][0]], ps[0][1]) for ps in lay.positions]
                remap[i] = b.from_elements(elems, ty)
        return remap[i]

    def packed_const(i: int, lay: Layout) -> int | None:
        n = prog.nodes[i]
        if n.op != "const" or n.type.secret or n.type.shape != lay.shape:
            return None
        v = n.attrs[0]
        vals = list(v) if isinstance(v, tuple) else [v] * lay.elements
        (vec,) = pack(vals, lay)
        return b.const(tuple(vec), Type((lay.slots,), n.type.elem, False))

    for i in prog.live():
        n = prog.nodes[i]
        if n.op == "input":
            name = str(n.attrs[0])
            lay = layouts.get(name)
            if lay is None or lay.is_identity() or not n.type.secret:
                remap[i] = arg_ids[name]
            else:
                lazy[i] = ([arg_ids[an] for an in arg_names(name, lay)], lay)
            continue
        if n.op == "extract" and n.args[0] in lazy and n.args[0] not in remap:
            cts, lay = lazy[n.args[0]]
            c, s = lay.positions[int(n.attrs[0])][0]  # type: ignore[call-overload]
            remap[i] = b.extract(cts[c], s)
            continue
        if n.op in ("add", "sub", "mul", "neg") and not n.type.is_scalar:
            lays = [lazy[a][1] for a in n.args if a in lazy]
            lay = lays[0] if lays else None
            if lay is not None and lay.ciphertexts == 1 and lay.slots > 1 and all(x == lay for x in lays):
                ops = [lazy[a][0][0] if a in lazy else packed_const(a, lay) for a in n.args]
                if all(o is not None for o in ops):
                    lazy[i] = ([b.add_node(n.op, tuple(o for o in ops if o is not None), (),
                                           Type((lay.slots,), n.type.elem, n.type.secret))], lay)
                    continue
        remap[i] = b.add_node(n.op, tuple(row(a) for a in n.args), n.attrs, n.type)
    results: list[int] = []
    res_lays: list[Layout] = []
    for r in prog.results:
        if r in lazy and r not in remap and lazy[r][1].ciphertexts == 1:
            results.append(lazy[r][0][0])
            res_lays.append(lazy[r][1])
        else:
            results.append(row(r))
            res_lays.append(row_major(prog.nodes[r].type.shape))
    out = b.finish(results).compact()
    arg_lays = {n: layouts.get(n) or row_major(t.shape) for n, t in prog.args if t.secret}
    return Packed(out, arg_lays, res_lays)


def check_packed(orig: Program, packed: Packed, trials: int = 3) -> bool:
    """Does ``packed`` compute ``orig``'s results on random inputs, packed and unpacked by its layouts?"""
    from eqsat.interp import evaluate, random_inputs, results_equal

    modulus = None if any(t.is_float for _, t in orig.args) else 65537
    for seed in range(trials):
        inputs = random_inputs(orig, seed, bound=50)
        want = evaluate(orig, inputs, modulus)
        got = evaluate(packed.program, pack_inputs(inputs, packed.args), modulus)
        if not results_equal(want, unpack_results(got, packed.results), modulus):  # type: ignore[arg-type]
            return False
    return True


def random_tensors(prog: Program, layouts: Mapping[str, object], seed: int) -> dict[str, object]:
    """Random inputs by original argument name and shape for a program over packed arguments
    (``layouts``: the report's section): the packed program's own arguments unpacked."""
    from eqsat.interp import random_inputs

    packed = random_inputs(prog, seed)
    args: Mapping[str, Mapping[str, object]] = layouts["arguments"]  # type: ignore[assignment]
    out: dict[str, object] = {}
    taken: set[str] = set()
    for name, d in args.items():
        lay = Layout.from_json(d)
        cts = arg_names(name, lay) if "ciphertext_args" not in d else list(d["ciphertext_args"])  # type: ignore[call-overload]
        taken.update(cts)
        flat = [0 if not ps else packed[cts[ps[0][0]]] if lay.slots == 1 and not lay.shape  # type: ignore[index]
                else packed[cts[ps[0][0]]][ps[0][1]] for ps in lay.positions]  # type: ignore[index]
        out[name] = flat if lay.shape else flat[0]
    out.update({n: v for n, v in packed.items() if n not in taken})
    return out
