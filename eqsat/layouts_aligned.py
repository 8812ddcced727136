"""Argument layouts read off the program: every output slot computes the same template.

In: a ``Program`` with one result (a scalar, or a tensor built element by element).
Out: ``aligned(prog)``, a list of ``Packed`` candidates (possibly empty): the program over
packed arguments, vectorized, with the layouts that make it so.

When every result element is a signed sum of terms of one shape ``f(leaves)`` (a matrix
product: ``sum_k a[i,k] * b[k,j]``; a convolution: ``sum_k x[j+k] * w[k]``; a distance:
``(a[i] - b[j])^2``), the client can place, for every leaf of ``f``, the element that term
``t`` of output ``j`` reads at slot ``t*M + j`` of a vector (M = outputs rounded up to a
power of two, terms rounded likewise and padded with zeros, which needs ``f(0) = 0``).
Then ``f`` is computed once on whole vectors and the terms are summed by rotate-and-reduce
(log2 of the term count rotations). Leaves of one argument that read the same elements
everywhere share a vector. Two packings of the leaf vectors of one argument are offered:
``split`` (one ciphertext per leaf vector: no rotation) and ``single`` (the leaf vectors
side by side in one ciphertext, rotated into place). Plaintext operands that vary per slot
become one plaintext vector. Programs of other shapes give no candidate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from eqsat.ir import Builder, Program, Type
from eqsat.layouts import Layout, Packed, Pos, arg_names, check_packed

Shape = tuple[object, ...]


@dataclass(frozen=True)
class _Leaf:
    kind: str  # "x": an element of a secret argument; "p": a plaintext number
    arg: str
    index: int
    value: float | int


def _elements(prog: Program, r: int) -> list[int | None] | None:
    """Node ids of result ``r``'s elements (None: a zero slot), or None when not element-wise."""
    n = prog.nodes[r]
    if n.type.is_scalar:
        return [r]
    if n.op == "from_elements":
        return list(n.args)
    if n.op == "insert":
        base = _elements(prog, n.args[1])
        if base is None:
            return None
        base = list(base)
        base[int(n.attrs[0])] = n.args[0]  # type: ignore[call-overload]
        return base
    if n.op == "empty" or (n.op == "const" and n.attrs[0] == 0):
        return [None] * n.type.slots
    return None


def _terms(prog: Program, i: int, sign: int, out: list[tuple[int, int]]) -> None:
    n = prog.nodes[i]
    if n.op == "add":
        _terms(prog, n.args[0], sign, out)
        _terms(prog, n.args[1], sign, out)
    elif n.op == "sub":
        _terms(prog, n.args[0], sign, out)
        _terms(prog, n.args[1], -sign, out)
    elif n.op == "neg":
        _terms(prog, n.args[0], -sign, out)
    elif n.op == "const" and n.type.is_scalar and n.attrs[0] == 0:
        return
    else:
        out.append((sign, i))


def _shape(prog: Program, i: int, leaves: list[_Leaf]) -> Shape | None:
    """The term's tree with its leaves abstracted (leaves appended in tree order)."""
    n = prog.nodes[i]
    if n.op == "extract":
        src = prog.nodes[n.args[0]]
        k = int(n.attrs[0])  # type: ignore[call-overload]
        if src.op == "input" and src.type.secret:
            leaves.append(_Leaf("x", str(src.attrs[0]), k, 0))
            return ("x", str(src.attrs[0]))
        if src.op == "const":
            v = src.attrs[0]
            leaves.append(_Leaf("p", "", 0, v[k] if isinstance(v, tuple) else v))  # type: ignore[arg-type]
            return ("p",)
        return None
    if n.op == "input" and n.type.secret and n.type.is_scalar:
        leaves.append(_Leaf("x", str(n.attrs[0]), 0, 0))
        return ("x", str(n.attrs[0]))
    if n.op == "const" and n.type.is_scalar:
        leaves.append(_Leaf("p", "", 0, n.attrs[0]))  # type: ignore[arg-type]
        return ("p",)
    if n.op in ("add", "sub", "mul"):
        la: list[_Leaf] = []
        lb: list[_Leaf] = []
        sa, sb = _shape(prog, n.args[0], la), _shape(prog, n.args[1], lb)
        if sa is None or sb is None:
            return None
        if n.op != "sub" and repr(sb) < repr(sa):  # commutative: a canonical operand order
            sa, sb, la, lb = sb, sa, lb, la
        leaves.extend(la + lb)
        return (n.op, sa, sb)
    if n.op == "neg":
        s = _shape(prog, n.args[0], leaves)
        return None if s is None else ("neg", s)
    return None


def _zero_at_zero(shape: Shape) -> bool:
    def ev(s: Shape) -> int:
        if s[0] in ("x", "p"):
            return 0
        if s[0] == "neg":
            return -ev(s[1])  # type: ignore[arg-type]
        a, b = ev(s[1]), ev(s[2])  # type: ignore[arg-type]
        return a + b if s[0] == "add" else a - b if s[0] == "sub" else a * b
    return ev(shape) == 0


def _build(b: Builder, s: Shape, refs: Iterator[tuple[str, int] | dict[int, float | int]],
           leaf_vec: dict[tuple[str, int], int], vty: Type) -> int:
    """The template ``s`` over whole vectors: leaf vectors, plaintext vectors, element-wise ops."""
    if s[0] in ("x", "p"):
        ref = next(refs)
        if isinstance(ref, tuple):
            return leaf_vec[ref]
        return b.const(tuple(ref.get(k, 0) for k in range(vty.slots)), vty.with_secret(False))
    if s[0] == "neg":
        return b.neg(_build(b, s[1], refs, leaf_vec, vty))  # type: ignore[arg-type]
    x = _build(b, s[1], refs, leaf_vec, vty)  # type: ignore[arg-type]
    y = _build(b, s[2], refs, leaf_vec, vty)  # type: ignore[arg-type]
    return b.binary(str(s[0]), x, y)


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _template(prog: Program) -> tuple[int, Shape, list[list[list[_Leaf] | None]], int] | None:
    """(sign, term shape, leaves per [output j][term t] (None: padding), outputs) or None."""
    if len(prog.results) != 1:
        return None
    elems = _elements(prog, prog.results[0])
    if elems is None:
        return None
    # first try: every element a sum of terms of one shape; else: every element one term
    for mode in ("terms", "whole"):
        sign_shape: tuple[int, Shape] | None = None
        table: list[list[list[_Leaf] | None]] = []
        ok = True
        for e in elems:
            row: list[list[_Leaf] | None] = []
            if e is not None:
                terms: list[tuple[int, int]] = []
                if mode == "terms":
                    _terms(prog, e, 1, terms)
                else:
                    terms = [(1, e)]
                for sg, t in terms:
                    leaves: list[_Leaf] = []
                    sh = _shape(prog, t, leaves)
                    if sh is None or (sign_shape is not None and sign_shape != (sg, sh)):
                        ok = False
                        break
                    sign_shape = (sg, sh)
                    row.append(leaves)
            if not ok:
                break
            table.append(row)
        if ok and sign_shape is not None:
            return sign_shape[0], sign_shape[1], table, len(elems)  # type: ignore[return-value]
    return None


def aligned(prog: Program) -> list[Packed]:
    """The aligned candidates of ``prog`` (``split`` and, when it differs, ``single``), each checked."""
    found = _template(prog)
    if found is None:
        return []
    sign, shape, table, m = found
    T = max(len(r) for r in table)
    M, Tp = _pow2(m), _pow2(T)
    padded = m < M or Tp > T or any(len(r) < T for r in table)
    if padded and not _zero_at_zero(shape):
        return []
    nleaves = len(next(r for r in table if r)[0])  # type: ignore[arg-type]
    W0 = Tp * M
    if W0 == 1:
        return []  # one slot: the packing is the program's own scalars
    # the read map of every leaf position: slot t*M + j -> leaf
    reads: list[dict[int, _Leaf]] = [{} for _ in range(nleaves)]
    for j, row in enumerate(table):
        for t, leaves in enumerate(row):
            for ell, lf in enumerate(leaves or []):
                reads[ell][t * M + j] = lf
    secret = {n for n, ty in prog.args if ty.secret}
    if any(not ty.secret for _, ty in prog.args):
        return []
    # group leaf positions of one argument that read the same elements everywhere
    groups: dict[str, list[dict[int, int]]] = {n: [] for n, _ in prog.args}
    leaf_ref: list[tuple[str, int] | dict[int, float | int]] = []
    for ell in range(nleaves):
        first = next(iter(reads[ell].values()))
        if first.kind == "p":
            leaf_ref.append({s: lf.value for s, lf in reads[ell].items()})
            continue
        rmap = {s: lf.index for s, lf in reads[ell].items()}
        gs = groups[first.arg]
        if rmap not in gs:
            gs.append(rmap)
        leaf_ref.append((first.arg, gs.index(rmap)))
    if any(not groups[n] for n in secret):
        return []  # an argument never read: nothing to gain from packing
    rmax = max(len(g) for g in groups.values())
    variants = ["split"] if rmax == 1 else ["split", "single"]
    elem = prog.nodes[prog.results[0]].type.elem
    out: list[Packed] = []
    for variant in variants:
        W = W0 if variant == "split" else _pow2(rmax * W0)
        b = Builder(prog.name, style=prog.style)
        b.meta.update(prog.meta)
        vty = Type((W,), elem, True)
        layouts: dict[str, Layout] = {}
        leaf_vec: dict[tuple[str, int], int] = {}
        for name, ty in prog.args:
            gs = groups[name]
            places: list[list[Pos]] = [[] for _ in range(ty.slots)]
            for g, rmap in enumerate(gs):
                c, off = (g, 0) if variant == "split" else (0, g * W0)
                for s, e in rmap.items():
                    places[e].append((c, off + s))
            ncts = len(gs) if variant == "split" else 1
            lay = Layout(f"aligned-{variant}", ty.shape, ncts, W, tuple(tuple(p) for p in places))
            layouts[name] = lay
            cts = [b.arg(an, vty) for an in arg_names(name, lay)]
            for g in range(len(gs)):
                leaf_vec[(name, g)] = cts[g] if variant == "split" else b.rotate(cts[0], g * W0)
        v = _build(b, shape, iter(leaf_ref), leaf_vec, vty)
        k = M
        while k < W0:  # rotate-and-reduce the terms
            v = b.add(v, b.rotate(v, k))
            k *= 2
        if sign < 0:
            v = b.neg(v)
        rty = prog.nodes[prog.results[0]].type
        if rty.is_scalar:
            res, rlay = b.extract(v, 0), Layout("scalar", (), 1, 1, (((0, 0),),))
        else:
            res = v
            name = "row-major" if m == W else "prefix"
            rlay = Layout(name, rty.shape, 1, W, tuple(((0, j),) for j in range(m)))
        cand = Packed(b.finish([res]), layouts, [rlay])
        if check_packed(prog, cand):
            out.append(cand)
    return out
