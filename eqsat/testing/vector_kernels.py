"""Small slot-uniform kernels in several writing styles, for the vectorizer's goal tests.

In: a size and a writing style. Out: an IR ``Program`` computing the kernel with scalar code
(``extract`` / scalar arithmetic / ``insert`` or ``from_elements``), the way peers' benchmark
suites write them:

* ``lin_reg(n, style)``: CHEHAB's linear regression ``out[i] = v2[i] + (5 * v1[i] + 2)``;
* ``stencil(h, w, weights, padding, style)``: a 2-D stencil over a row-major ``h x w`` image
  (``padding="zero"``: reads outside the image are absent; ``"wrap"``: indices wrap mod n);
  ``BOX3``, ``SOBEL_GX``, ``SOBEL_GY``, ``BOX2`` are the weight tables;
* ``roberts_cross(h, w, padding, style)`` and ``sobel_magnitude(h, w, style)``: squares of
  differences / of the Sobel gradients (products of sums).

Styles: ``"insert"`` (a chain of inserts into an empty tensor, terms in reading order),
``"from_elements"`` (one ``from_elements``), ``"swapped"`` (insert chain, operands swapped
and the sum re-associated right to left, constants first).
"""

from __future__ import annotations

from collections.abc import Sequence

from eqsat.ir import Builder, Program, Type

STYLES = ("insert", "from_elements", "swapped")

BOX3 = ((1, 1, 1), (1, 1, 1), (1, 1, 1))
SOBEL_GX = ((-1, 0, 1), (-2, 0, 2), (-1, 0, 1))
SOBEL_GY = ((-1, -2, -1), (0, 0, 0), (1, 2, 1))
BOX2 = ((1, 1), (1, 1))  # the 2x2 blur of Porcupine and HECO: offsets (0, 0) .. (1, 1)


def _chain(b: Builder, elems: Sequence[int], ty: Type, style: str) -> int:
    if style == "from_elements":
        return b.from_elements(list(elems), ty)
    out = b.empty(ty)
    order = range(len(elems)) if style == "insert" else reversed(range(len(elems)))
    for i in order:
        out = b.insert(elems[i], out, i)
    return out


def _sum(b: Builder, terms: list[int], style: str) -> int:
    if style == "swapped":  # right to left, the later term as the left operand
        acc = terms[-1]
        for t in reversed(terms[:-1]):
            acc = b.add(acc, t)
        return acc
    acc = terms[0]
    for t in terms[1:]:
        acc = b.add(acc, t)
    return acc


def lin_reg(n: int, style: str = "insert") -> Program:
    """``out[i] = v2[i] + (5 * v1[i] + 2)`` over ``n`` slots (CHEHAB's ``lin_reg``)."""
    b = Builder(f"lin_reg_{n}_{style}")
    ty = Type((n,), "i16", True)
    v1 = b.arg("v1", ty)
    v2 = b.arg("v2", ty)
    sc = Type((), "i16", False)
    elems = []
    for i in range(n):
        x1, x2 = b.extract(v1, i), b.extract(v2, i)
        five, two = b.const(5, sc), b.const(2, sc)
        if style == "swapped":
            elems.append(b.add(b.add(two, b.mul(five, x1)), x2))
        else:
            elems.append(b.add(x2, b.add(b.mul(x1, five), two)))
    return b.finish([_chain(b, elems, ty, style)])


def stencil(h: int, w: int, weights: Sequence[Sequence[int]], padding: str = "zero", style: str = "insert",
            name: str = "stencil") -> Program:
    """``out[r, c] = sum weights[dr][dc] * x[r + dr - cr, c + dc - cc]`` over a row-major
    ``h x w`` image (``cr, cc``: the table's centre row and column, rounded down)."""
    n = h * w
    b = Builder(f"{name}_{h}x{w}_{padding}_{style}")
    ty = Type((h, w), "i16", True)
    x = b.arg("x", ty)
    sc = Type((), "i16", False)
    cr, cc = (len(weights) - 1) // 2, (len(weights[0]) - 1) // 2
    elems = []
    for r in range(h):
        for c in range(w):
            terms = []
            for dr, row in enumerate(weights):
                for dc, wt in enumerate(row):
                    if wt == 0:
                        continue
                    rr, ccol = r + dr - cr, c + dc - cc
                    if padding == "zero":
                        if not (0 <= rr < h and 0 <= ccol < w):
                            continue
                        idx = rr * w + ccol
                    else:
                        idx = (rr * w + ccol) % n
                    e = b.extract(x, idx)
                    if wt == -1:
                        e = b.neg(e)
                    elif wt != 1:
                        k = b.const(wt, sc)
                        e = b.mul(k, e) if style == "swapped" else b.mul(e, k)
                    terms.append(e)
            elems.append(_sum(b, terms, style) if terms else b.const(0, sc))
    return b.finish([_chain(b, elems, ty, style)])


def roberts_cross(h: int, w: int, padding: str = "zero", style: str = "insert") -> Program:
    """``out = (x[r, c] - x[r+1, c+1])^2 + (x[r, c+1] - x[r+1, c])^2`` (HECO's Roberts cross);
    with zero padding a difference loses its absent reads (``x[r, c]`` alone at the last row)."""
    n = h * w
    b = Builder(f"roberts_{h}x{w}_{padding}_{style}")
    ty = Type((h, w), "i16", True)
    x = b.arg("x", ty)

    def read(r: int, c: int) -> int | None:
        if padding == "zero" and not (0 <= r < h and 0 <= c < w):
            return None
        return b.extract(x, (r * w + c) % n)

    def diff(a: int | None, c: int | None) -> int:
        if c is None:
            return a if a is not None else b.const(0, Type((), "i16", False))
        if a is None:
            return b.neg(c)
        return b.sub(a, c)

    elems = []
    for r in range(h):
        for c in range(w):
            g1, g2 = diff(read(r, c), read(r + 1, c + 1)), diff(read(r, c + 1), read(r + 1, c))
            sq = [b.mul(g1, g1), b.mul(g2, g2)]
            elems.append(b.add(sq[1], sq[0]) if style == "swapped" else b.add(sq[0], sq[1]))
    return b.finish([_chain(b, elems, ty, style)])


def sobel_magnitude(h: int, w: int, style: str = "insert") -> Program:
    """``gx^2 + gy^2`` of the zero-padded Sobel stencils (products of sums whose terms go
    missing at the edges)."""
    b = Builder(f"sobel_magnitude_{h}x{w}_{style}")
    ty = Type((h, w), "i16", True)
    x = b.arg("x", ty)
    sc = Type((), "i16", False)
    elems = []
    for r in range(h):
        for c in range(w):
            grads = []
            for table in (SOBEL_GX, SOBEL_GY):
                terms = []
                for dr, row in enumerate(table):
                    for dc, wt in enumerate(row):
                        rr, cc = r + dr - 1, c + dc - 1
                        if wt and 0 <= rr < h and 0 <= cc < w:
                            e, k = b.extract(x, rr * w + cc), b.const(wt, sc)
                            terms.append(b.mul(k, e) if style == "swapped" else b.mul(e, k))
                grads.append(_sum(b, terms, style))
            elems.append(b.add(b.mul(grads[0], grads[0]), b.mul(grads[1], grads[1])))
    return b.finish([_chain(b, elems, ty, style)])
