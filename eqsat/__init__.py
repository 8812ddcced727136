"""eqsat-fhe: an equality-saturation optimizer for FHE circuits.

The public API: ``program``/``trace`` (build programs from Python functions),
``secret_vector``/``secret_scalar`` (argument types), ``rotate``/``vector`` (slot ops),
``parse_mlir``/``print_mlir`` (MLIR text), ``optimize`` (the optimizer; returns an
``OptimizeResult`` with ``.program``, ``.report`` and ``.to_mlir()``), ``Limits``, and
``pack``/``unpack`` (the client's side of the argument and result layouts an optimize
report names),
``run`` (execute a program encrypted with BGV or CKKS); ``compile`` (a decorator in the
shape of HEIR's Python frontend: a callable ``Compiled`` with ``.original``,
``.optimize()``, ``.encrypt_<arg>``, ``.eval``, ``.decrypt_result``,
``.encrypt_run_decrypt`` and ``.stats()``), ``plain_vector``/``plain_scalar`` (plaintext
argument types).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing``'s: the ``eqsat`` command imports this package first
if TYPE_CHECKING:
    from typing import Any

    from eqsat.api import Compiled, compile
    from eqsat.egraph.session import Limits, StopReason
    from eqsat.frontend.heir_types import F16, F32, F64, I1, I8, I16, I32, I64, Secret, Tensor
    from eqsat.frontend.trace import (
        plain_scalar,
        plain_vector,
        program,
        rotate,
        secret_scalar,
        secret_vector,
        trace,
        vector,
    )
    from eqsat.ir import Program

#: the names imported on first use (``import eqsat.cli`` must not pay for egglog, xDSL, numpy)
_LAZY: dict[str, str] = {
    "Program": "eqsat.ir",
    **dict.fromkeys(("Compiled", "compile"), "eqsat.api"),
    **dict.fromkeys(("Limits", "StopReason"), "eqsat.egraph.session"),
    **dict.fromkeys(("F16", "F32", "F64", "I1", "I8", "I16", "I32", "I64", "Secret", "Tensor"),
                    "eqsat.frontend.heir_types"),
    **dict.fromkeys(("plain_scalar", "plain_vector", "program", "rotate", "secret_scalar", "secret_vector",
                     "trace", "vector"), "eqsat.frontend.trace"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'eqsat' has no attribute {name!r}")
    import importlib  # here, not at the top: the ``eqsat`` command imports this package first (0.6 ms)

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def optimize(prog: Program, scheme: str = "bgv", layouts: str | None = None, **kwargs: Any) -> Any:
    """Optimize ``prog`` (see ``eqsat.pipeline.optimize`` for the keyword arguments).

    ``layouts="auto"`` lets the optimizer choose how the client packs the arguments (and
    reads the results), ``"fixed"`` keeps row-major; either adds ``report["layouts"]``
    (``eqsat.layout_search``). Run the result with ``eqsat.run(..., layouts=report["layouts"])``."""
    if layouts is not None:
        from eqsat.layout_search import optimize_layouts

        return optimize_layouts(prog, scheme, layouts, **kwargs)
    from eqsat.pipeline import optimize as _optimize

    return _optimize(prog, scheme, **kwargs)


def parse_mlir(text: str | bytes, path: str = "<input>") -> list[Program]:
    from eqsat.frontend.mlir import parse_mlir as _parse

    return _parse(text, path)


def print_mlir(prog: Program | list[Program]) -> str:
    from eqsat.frontend.mlir import print_mlir as _print

    return _print(prog)


def run(prog: Program, inputs: dict[str, object], scheme: str = "bgv", **kwargs: Any) -> dict[str, object]:
    """Run ``prog`` encrypted; returns the ``eqsat run --json`` report (``layouts=``: the
    optimize report's ``layouts``; inputs and outputs are then unpacked tensors)."""
    from eqsat.backend.executor import run_program

    return run_program(prog, inputs, scheme, **kwargs)


def pack(layouts: dict[str, Any], inputs: dict[str, object]) -> dict[str, object]:
    """The client's packing: tensors by argument name -> the vectors to encrypt, by the
    program's argument names (``layouts``: an optimize report's ``layouts`` section)."""
    from eqsat.layouts import Layout, pack_inputs

    return pack_inputs(inputs, {n: Layout.from_json(d) for n, d in layouts["arguments"].items()})


def unpack(layouts: dict[str, Any], outputs: list[object]) -> list[object]:
    """The client's unpacking: decrypted result vectors -> the result tensors."""
    from eqsat.layouts import Layout, unpack_results

    return unpack_results(outputs, [Layout.from_json(d) for d in layouts["results"]])


__all__ = [
    "F16",
    "F32",
    "F64",
    "I1",
    "I8",
    "I16",
    "I32",
    "I64",
    "Compiled",
    "Limits",
    "Program",
    "Secret",
    "StopReason",
    "Tensor",
    "compile",
    "optimize",
    "pack",
    "parse_mlir",
    "plain_scalar",
    "plain_vector",
    "print_mlir",
    "program",
    "rotate",
    "run",
    "secret_scalar",
    "secret_vector",
    "trace",
    "unpack",
    "vector",
]


def __dir__() -> list[str]:
    return sorted(__all__)
