"""eqsat.backend: galois/numba-backed BGV and CKKS, and an executor for eqsat programs.

In: ``eqsat.ir.Program`` values and their inputs.  Out: encrypted runs
(``run_program``), parameter selection (``choose_params``), the parameter record
``Params`` and the error type ``BackendError``.  Heavy modules (numba kernels, galois)
load only when a scheme is instantiated, so ``Params`` stays cheap to import.
"""

from __future__ import annotations

from typing import Any

from eqsat.backend.errors import BackendError
from eqsat.backend.params import Params

__all__ = ["BackendError", "Params", "choose_params", "run_program"]


def __getattr__(name: str) -> Any:
    if name in ("run_program", "choose_params"):
        from eqsat.backend import executor

        return getattr(executor, name)
    raise AttributeError(name)
