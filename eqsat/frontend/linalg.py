"""Tensor kernels with plaintext weights as linear slot maps (the Python side of issue 14).

In: an ``eqsat.ir.Builder``, a secret (or plaintext) tensor node and numpy weights.  Out:
one ``linmap`` IR node per kernel (``eqsat.algebra.linmap``), never an unrolled scalar
program: a 4096 x 4096 matvec is one node whose diagonals stay in the handle registry,
and the ``linmap`` rules choose its realization.

Layouts: tensors are row-major slot vectors.  ``matvec`` of an ``r x c`` weight reads
``c`` slots and writes ``r`` (zero padding to ``max(r, c)`` slots, which must be the
vector's slot count).  ``conv2d`` (no padding, unit strides) and ``sum_pool`` (window
``k x k``, stride ``k``) keep the input grid: output ``(i, j)`` is at slot ``i * W + j``
of an ``H x W`` result (conv), or at slot ``k*i * W + k*j`` (pool) -- a *strided* layout;
the other slots hold partial sums.  ``strided_view`` reads such a result back.
"""

from __future__ import annotations

import numpy as np

from eqsat.algebra import linmap
from eqsat.ir import Builder, IRError


def matvec(b: Builder, weight: np.ndarray, x: int) -> int:
    """``weight @ x`` for a plaintext ``r x c`` weight and a vector node of ``max(r, c)`` slots."""
    w = np.asarray(weight)
    if w.ndim != 2:
        raise IRError(f"matvec weight must be 2-D, got shape {w.shape}")
    n = b.type_of(x).slots
    if n < max(w.shape):
        raise IRError(f"a {w.shape[0]}x{w.shape[1]} matvec needs {max(w.shape)} slots, the vector has {n}")
    return b.linmap(x, linmap.register(linmap.from_matrix(w, n)))


def conv2d_map(h: int, w: int, filt: np.ndarray, same: bool = False) -> linmap.LinearMap:
    """The map of a 2-D correlation of an ``h x w`` image with ``filt`` (``kh x kw``).

    ``same=False``: no padding, output ``(i, j) = sum filt[a, b] * img[i + a, j + b]`` at slot
    ``i * w + j`` for ``i <= h - kh``, ``j <= w - kw`` (the other slots are 0).
    ``same=True``: zero padding around a centered filter, output at every slot (masked
    diagonals: a tap reading outside the image contributes 0)."""
    f = np.asarray(filt)
    kh, kw = f.shape
    n = h * w
    r, c = np.divmod(np.arange(n), w)
    diags: dict[int, np.ndarray] = {}
    for a in range(kh):
        for bb in range(kw):
            if same:
                dr, dc = a - kh // 2, bb - kw // 2
                ok = (r + dr >= 0) & (r + dr < h) & (c + dc >= 0) & (c + dc < w)
            else:
                dr, dc = a, bb
                ok = (r <= h - kh) & (c <= w - kw)
            vec = np.where(ok, f[a, bb], 0)
            key = (dr * w + dc) % n
            diags[key] = diags[key] + vec if key in diags else vec
    return linmap.from_diagonals(diags, n)


def _grid(b: Builder, img: int, h: int, w: int, what: str) -> None:
    ty = b.type_of(img)
    if ty.is_scalar or ty.slots != h * w:
        raise IRError(f"{what} of a {h}x{w} image needs a vector of {h * w} slots, got {ty}")


def conv2d(b: Builder, img: int, h: int, w: int, filt: np.ndarray, same: bool = False) -> int:
    """A 2-D convolution of an ``h x w`` image (a row-major vector node) with a plaintext filter
    (see ``conv2d_map``)."""
    _grid(b, img, h, w, "conv2d")
    return b.linmap(img, linmap.register(conv2d_map(h, w, filt, same)))


def sum_pool_map(h: int, w: int, k: int) -> linmap.LinearMap:
    """``k x k`` sum pooling with stride ``k``, output ``(i, j)`` at slot ``k*i*w + k*j``: the
    shift-invariant map ``sum_(a,b < k) rho^(a*w + b)`` (its values at the strided slots)."""
    return linmap.from_diagonals({a * w + bb: 1 for a in range(k) for bb in range(k)}, h * w)


def sum_pool(b: Builder, img: int, h: int, w: int, k: int = 2) -> int:
    """``k x k`` sum pooling with stride ``k`` of an ``h x w`` image (strided output)."""
    _grid(b, img, h, w, "sum_pool")
    return b.linmap(img, linmap.register(sum_pool_map(h, w, k)))


def strided_view(values: list[int | float] | np.ndarray, w: int, rows: int, cols: int,
                 stride: int = 1) -> np.ndarray:
    """The ``rows x cols`` outputs of a strided result laid out in a ``? x w`` grid."""
    v = np.asarray(values)
    return np.array([[v[stride * i * w + stride * j] for j in range(cols)] for i in range(rows)])
