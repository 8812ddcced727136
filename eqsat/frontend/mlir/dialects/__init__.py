"""xDSL dialects for the MLIR subset eqsat-fhe reads and writes.

In: nothing.  Out: ``make_context()``, an xDSL ``Context`` with ``builtin``,
``func``, ``arith``, ``tensor``, ``affine``, ``scf`` and this project's ``noisy``,
``tensor_ext``, ``secret``, ``mgmt`` and ``linalg`` (named ops: ``dialects/linalg.py``)
dialects registered (nothing else, so any other op is reported as unknown).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.affine import Affine
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.dialects.tensor import Tensor

from eqsat.frontend.mlir.dialects.linalg import Linalg
from eqsat.frontend.mlir.dialects.mgmt import Mgmt
from eqsat.frontend.mlir.dialects.noisy import Noisy
from eqsat.frontend.mlir.dialects.secret import Secret
from eqsat.frontend.mlir.dialects.tensor_ext import TensorExt


def make_context() -> Context:
    """A fresh context that knows exactly the dialects of the supported subset."""
    ctx = Context()
    for dialect in (Builtin, Func, Arith, Tensor, Affine, Scf, Noisy, TensorExt, Secret, Mgmt, Linalg):
        ctx.load_dialect(dialect)
    return ctx
