"""MLIR frontend and printer (xDSL): MLIR text <-> ``eqsat.ir.Program``.

In: MLIR text (``str`` or ``bytes``) in the subset of DESIGN.md.  Out: one ``Program``
per ``func.func`` (``parse_mlir``), and MLIR text for programs (``print_mlir``) that
``parse_mlir`` reads back to programs with the same meaning.  Malformed or
unsupported input raises ``MLIRError`` (``path:line:col: error: message``).

Accepted syntax beyond ``func``/``arith``/``tensor``/``affine`` (``affine.for`` and
``scf.for`` loops with compile-time bounds are fully unrolled):

* ``%r = tensor_ext.rotate %t, %c : tensor<16xi16>, index`` -- rotate left by the
  compile-time index ``%c``: ``r[i] = t[(i + c) mod n]``.
* the article's ``noisy`` dialect: ``noisy.encode %c : i5 -> !noisy.i32``,
  ``noisy.add|sub|mul %a, %b : !noisy.i32``, ``noisy.reduce_noise %a : !noisy.i32``,
  ``noisy.decode %a : !noisy.i32 -> i5``.
* HEIR's ``secret`` wrapper: ``!secret.secret<T>`` arguments and
  ``secret.generic ins(%a : !secret.secret<T>) { ^bb0(%x: T): ... secret.yield %r : T }
  -> !secret.secret<T>`` or the newer ``secret.generic(%a: !secret.secret<T>) {...}``.
* tensor programs (``linalg_lower.py``): ``linalg.matvec|vecmat|dot|matmul|conv_1d|conv_2d|
  conv_2d_nchw_fchw|conv_2d_nhwc_hwcf|pooling_nchw_sum|fill|transpose|add|sub|mul|copy|generic``
  and ``tensor.collapse_shape|expand_shape|extract_slice|insert_slice`` (static sizes); a
  function using them is lowered to packed slot vectors with plaintext-weight kernels as
  ``linmap`` nodes, its argument/result packings in ``meta["layouts"]``.
* management ops, identity on cleartext values (``T`` is the operand's type, which the
  result shares; in noisy programs ``T`` is ``!noisy.i32``)::

      %r = mgmt.relinearize %x : T    // after a ciphertext x ciphertext mul
      %r = mgmt.modswitch %x : T      // BGV modulus switch
      %r = mgmt.rescale %x : T        // CKKS rescale
      %r = mgmt.bootstrap %x : T      // refresh
      %r = mgmt.modreduce %x : T      // HEIR's name; read as modswitch (ints) / rescale (floats)
      %r = noisy.reduce_noise %x : !noisy.i32

Printing writes each program in its ``style``: ``plain`` (``func.func`` over
``arith``/``tensor``/``tensor_ext``), ``secret`` (the body wrapped in one
``secret.generic``) or ``noisy`` (the article's syntax).  Management ops print as
``mgmt.*`` in HEIR's spelling (``mgmt.modreduce`` for a modswitch on integers or a
rescale on floats), so ``heir-opt`` reads them; ``noisy.reduce_noise`` in noisy programs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eqsat.frontend.mlir.errors import MLIRError, ReadTimeLimit
from eqsat.frontend.mlir.parse import parse_module
from eqsat.frontend.mlir.printer import print_mlir
from eqsat.frontend.mlir.to_ir import FUNCTION_LOWERINGS, lower_module
from eqsat.ir import Program

if TYPE_CHECKING:
    from xdsl.dialects import func

__all__ = ["MLIRError", "ReadTimeLimit", "parse_mlir", "print_mlir"]

#: the ``tensor`` ops that make a function a tensor program (``linalg_lower.SHAPE_OPS``), by name
SHAPE_OP_NAMES = frozenset({"tensor.collapse_shape", "tensor.expand_shape", "tensor.extract_slice",
                            "tensor.insert_slice"})


def uses_tensor_programs(fn: func.FuncOp) -> bool:
    """True when ``fn`` needs the tensor-program lowering (a ``linalg`` op or a shape op),
    decided by op names: ``linalg_lower`` and xDSL's ``linalg`` dialect behind it (0.1-0.3 s of
    imports) are loaded only for such a function."""
    return any(op.name.startswith("linalg.") or op.name in SHAPE_OP_NAMES for op in fn.walk())


def _tensor_program_lowering(parsed: Any, fn: func.FuncOp) -> Any:
    from eqsat.frontend.mlir.linalg_lower import LinalgLowering

    return LinalgLowering(parsed, fn)


FUNCTION_LOWERINGS.append((uses_tensor_programs, _tensor_program_lowering))


def parse_mlir(text: str | bytes, path: str = "<input>", deadline: float | None = None) -> list[Program]:
    """One ``Program`` per ``func.func`` with a body, in source order.

    Raises ``MLIRError`` for anything malformed or outside the supported subset; no
    other exception escapes for any input.  ``deadline`` (a ``time.perf_counter()`` value):
    reading stops soon after it with ``ReadTimeLimit`` (an ``MLIRError`` located where
    reading stopped), also inside xDSL's parser and loop unrolling.
    """
    try:
        return lower_module(parse_module(text, path, deadline))
    except MLIRError:
        raise
    except RecursionError:
        raise MLIRError(path, 1, 1, "input nests too deeply") from None
    except Exception as exc:  # a defect, but still one located line, never a traceback
        raise MLIRError(
            path, 1, 1, f"internal error while reading MLIR: {type(exc).__name__}: {exc}"
        ) from None
