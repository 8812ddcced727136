"""Kernels of the layout goal tests (Coyote's and CHEHAB's small benchmarks), traced."""

from __future__ import annotations

import eqsat
from eqsat.ir import Program


def matmul(n: int) -> Program:
    @eqsat.program(a=eqsat.secret_vector(n * n), b=eqsat.secret_vector(n * n))
    def matmul(a, b):  # type: ignore[no-untyped-def]
        return eqsat.vector([sum(a[i * n + k] * b[k * n + j] for k in range(n)) for i in range(n) for j in range(n)])
    return matmul


def conv1d(n: int, k: int) -> Program:
    """Valid 1-D convolution of a secret signal of n by a secret kernel of k."""
    @eqsat.program(x=eqsat.secret_vector(n), w=eqsat.secret_vector(k))
    def conv(x, w):  # type: ignore[no-untyped-def]
        return eqsat.vector([sum(x[j + t] * w[t] for t in range(k)) for j in range(n - k + 1)])
    return conv


def distances(n: int) -> Program:
    """All n*n pairwise squared distances of two n-vectors."""
    @eqsat.program(a=eqsat.secret_vector(n), b=eqsat.secret_vector(n))
    def distances(a, b):  # type: ignore[no-untyped-def]
        return eqsat.vector([(a[i] - b[j]) * (a[i] - b[j]) for i in range(n) for j in range(n)])
    return distances


def dot(n: int) -> Program:
    @eqsat.program(a=eqsat.secret_vector(n), b=eqsat.secret_vector(n))
    def dot(a, b):  # type: ignore[no-untyped-def]
        return sum(a[i] * b[i] for i in range(n))
    return dot


def l2(n: int) -> Program:
    @eqsat.program(a=eqsat.secret_vector(n), b=eqsat.secret_vector(n))
    def l2(a, b):  # type: ignore[no-untyped-def]
        return sum((a[i] - b[i]) * (a[i] - b[i]) for i in range(n))
    return l2


def hamming(n: int) -> Program:
    """Hamming distance of two bit vectors: sum of a + b - 2ab."""
    @eqsat.program(a=eqsat.secret_vector(n), b=eqsat.secret_vector(n))
    def hamming(a, b):  # type: ignore[no-untyped-def]
        return sum(a[i] + b[i] - 2 * a[i] * b[i] for i in range(n))
    return hamming
