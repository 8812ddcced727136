"""xDSL dialects for the MLIR subset eqsat-fhe reads and writes.

In: nothing.  Out: ``make_context()``, an xDSL ``Context`` with ``builtin``,
``func``, ``arith``, ``tensor``, ``affine``, ``scf`` and this project's ``noisy``,
``tensor_ext``, ``secret``, ``mgmt`` and ``linalg`` (named ops: ``dialects/linalg.py``)
dialects registered (nothing else, so any other op is reported as unknown); ``affine``,
``scf`` and ``linalg`` are loaded when the input first uses them (``LAZY_DIALECTS``).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.tensor import Tensor
from xdsl.ir import Dialect

from eqsat.frontend.mlir.dialects.mgmt import Mgmt
from eqsat.frontend.mlir.dialects.noisy import Noisy
from eqsat.frontend.mlir.dialects.secret import Secret
from eqsat.frontend.mlir.dialects.tensor_ext import TensorExt


def _affine() -> Dialect:
    from xdsl.dialects.affine import Affine

    return Affine


def _scf() -> Dialect:
    from xdsl.dialects.scf import Scf

    return Scf


def _linalg() -> Dialect:
    from eqsat.frontend.mlir.dialects.linalg import Linalg

    return Linalg


#: dialects the context loads when the input first names one of their ops: their definitions
#: (and xDSL's ``memref`` and ``math`` behind ``affine`` and ``linalg``) cost about 0.1-0.2 s of
#: imports that a program without loops or tensor ops never needs
LAZY_DIALECTS = {"affine": _affine, "scf": _scf, "linalg": _linalg}


def make_context() -> Context:
    """A fresh context that knows exactly the dialects of the supported subset."""
    ctx = Context()
    for dialect in (Builtin, Func, Arith, Tensor, Noisy, TensorExt, Secret, Mgmt):
        ctx.load_dialect(dialect)
    for name, factory in LAZY_DIALECTS.items():
        ctx.register_dialect(name, factory)
    return ctx
