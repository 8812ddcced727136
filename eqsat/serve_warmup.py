"""The warm-up requests ``eqsat serve`` runs on itself before it takes the first real one.

In: nothing.  Out: ``run()``: a few small programs (``PROGRAMS``) optimized in the server's
own process, as a request would, output thrown away; the seconds it took.

Why: every request is a fresh fork of the server, and what the first run of a code path
leaves behind -- xDSL's operation formats built on first use, Python's ABC caches for
``isinstance`` against xDSL's and the typing module's abstract classes, compiled regular
expressions, lazily imported helpers -- used to be built again in every request and thrown
away with it (0.02-0.05 s of a small kernel's 0.1 s request, measured on ``sum_8``,
``heco_roberts_cross_4x4`` and ``noisy_squarings``, none of them below).  Built once here, the
forks inherit them.  The server runs this last: anything loaded after it could invalidate what
it cached (``MAX_PASSES``).

What a warm-up may not do: run egglog or HiGHS in this process.  Both start thread pools
that a fork has no threads of, and a request that used them would wait forever.  The e-graph
stage already runs in a forked worker (``eqsat.egraph.guard``, as in any command); the
extraction is asked to be greedy (no MILP).  Nothing a warm-up leaves changes a result: the
requests' outputs are compared with the same commands run without a server
(``tests/test_serve.py``).
"""

from __future__ import annotations

import abc
import contextlib
import io
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: small programs over the dialects and shapes requests use most (tensors read slot by slot, a
#: loop with iter_args, a secret generic, the noisy dialect, a linalg op over a dense constant)
PROGRAMS: dict[str, str] = {
    "sum_extracts": """
func.func @sum4(%x: tensor<4xi16>, %y: tensor<4xi16>) -> i16 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a = tensor.extract %x[%c0] : tensor<4xi16>
  %b = tensor.extract %x[%c1] : tensor<4xi16>
  %c = tensor.extract %y[%c2] : tensor<4xi16>
  %d = tensor.extract %y[%c3] : tensor<4xi16>
  %s = arith.addi %a, %b : i16
  %p = arith.muli %c, %d : i16
  %t = arith.subi %s, %p : i16
  return %t : i16
}
""",
    "secret_loop": """
func.func @rot_loop(%arg0: !secret.secret<tensor<8xi16>>) -> !secret.secret<tensor<8xi16>> {
  %c1 = arith.constant 1 : index
  %k = arith.constant 3 : i16
  %0 = secret.generic ins(%arg0 : !secret.secret<tensor<8xi16>>) {
  ^bb0(%v: tensor<8xi16>):
    %1 = affine.for %i = 0 to 3 iter_args(%acc = %v) -> (tensor<8xi16>) {
      %r = tensor_ext.rotate %acc, %c1 : tensor<8xi16>, index
      %s = arith.addi %acc, %r : tensor<8xi16>
      affine.yield %s : tensor<8xi16>
    }
    %e = tensor.extract %1[%c1] : tensor<8xi16>
    %m = arith.muli %e, %k : i16
    %2 = tensor.insert %m into %1[%c1] : tensor<8xi16>
    secret.yield %2 : tensor<8xi16>
  } -> !secret.secret<tensor<8xi16>>
  return %0 : !secret.secret<tensor<8xi16>>
}
""",
    "nested_loops": """
func.func @stencil(%img: tensor<8xi16>) -> tensor<8xi16> {
  %cN = arith.constant 8 : index
  %cW = arith.constant 2 : index
  %zero = arith.constant 0 : i16
  %w1 = arith.constant 1 : i16
  %wm1 = arith.constant -1 : i16
  %weights = tensor.from_elements %w1, %wm1, %wm1, %w1 : tensor<2x2xi16>
  %out = affine.for %x = 0 to 2 iter_args(%rows = %img) -> (tensor<8xi16>) {
    %acc = affine.for %dy = 0 to 2 iter_args(%sy = %zero) -> (i16) {
      %inner = affine.for %dx = 0 to 2 iter_args(%sx = %sy) -> (i16) {
        %r = arith.addi %x, %dx : index
        %rw = arith.muli %r, %cW : index
        %flat = arith.addi %rw, %dy : index
        %wrapped = arith.remui %flat, %cN : index
        %p = tensor.extract %img[%wrapped] : tensor<8xi16>
        %w = tensor.extract %weights[%dx, %dy] : tensor<2x2xi16>
        %pw = arith.muli %p, %w : i16
        %s = arith.addi %sx, %pw : i16
        affine.yield %s : i16
      }
      affine.yield %inner : i16
    }
    %d = arith.subi %acc, %w1 : i16
    %next = tensor.insert %d into %rows[%x] : tensor<8xi16>
    affine.yield %next : tensor<8xi16>
  }
  return %out : tensor<8xi16>
}
""",
    "noisy": """
func.func @square() -> i5 {
  %0 = arith.constant 3 : i5
  %1 = noisy.encode %0 : i5 -> !noisy.i32
  %2 = noisy.mul %1, %1 : !noisy.i32
  %3 = noisy.add %2, %1 : !noisy.i32
  %4 = noisy.decode %3 : !noisy.i32 -> i5
  return %4 : i5
}
""",
    "linalg_float": """
func.func @matvec(%x: !secret.secret<tensor<4xf32>>) -> !secret.secret<tensor<4xf32>> {
  %w = arith.constant dense<[[1.0, 0.5, 0.0, 0.0], [0.0, 1.0, 0.5, 0.0],
                            [0.0, 0.0, 1.0, 0.5], [0.5, 0.0, 0.0, 1.0]]> : tensor<4x4xf32>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %0 = secret.generic(%x: !secret.secret<tensor<4xf32>>) {
  ^body(%v: tensor<4xf32>):
    %1 = linalg.matvec ins(%w, %v : tensor<4x4xf32>, tensor<4xf32>) outs(%zero : tensor<4xf32>) -> tensor<4xf32>
    %2 = arith.mulf %1, %1 : tensor<4xf32>
    secret.yield %2 : tensor<4xf32>
  } -> !secret.secret<tensor<4xf32>>
  return %0 : !secret.secret<tensor<4xf32>>
}
""",
}


#: passes over ``PROGRAMS``: another one while a pass registered an abstract base class (which
#: empties every ABC's cache of negative ``isinstance`` answers: a module a warm-up imports may
#: do that -- numba's loading did, and the next requests paid 5-15 ms of ``isinstance`` again)
MAX_PASSES = 3


def pretouch(stop: Callable[[], bool]) -> int:
    """Read and print ``PROGRAMS`` again in a spare request child while it waits for its
    request (``eqsat.serve._Spare``), until ``stop()`` says the request came; how many it read.

    Why: a fork shares the server's memory copy-on-write, and Python writes to every object it
    touches (reference counts), so the first touch of each page in a request copied it: reading
    a small kernel's input in a fresh fork took 1,250-1,450 page copies (``sum_8``,
    ``dot_product_8``, ``heco_gx_kernel_4x4``: 9-15 ms; read again in the same fork, 12-50
    copies and 4-5 ms).  Reading these programs once makes the spare's own copies of the
    reader's and printer's pages while it is idle.  Only the frontend runs here (no egglog, no
    HiGHS: their thread pools would be in the request's later forks), and its failures are
    ignored: nothing of it reaches a result (the reader's state is content-keyed)."""
    from eqsat.frontend.mlir import parse_mlir, print_mlir

    done = 0
    for text in PROGRAMS.values():  # a few ms each: looked at between reading and printing too
        if stop():
            break
        with contextlib.suppress(Exception):
            for prog in parse_mlir(text.encode(), "<warm-up>"):
                if stop():
                    return done
                print_mlir(prog)
        done += 1
    return done


#: True in a server's spare request child (``eqsat.serve._Spare``): only its early e-graph worker,
#: forked while the server is idle, runs ``pretouch_load``.  A command's own early worker (a batch
#: of inputs, a process warmed as the server warms: ``experiments/stage_times.py``) is forked just
#: before the input is read, and loading the warm-up programs there would only compete with reading
#: it (measured: parse 0.013 -> 0.030 s in such a batch on a loaded machine)
IN_SPARE = False
#: ``PROGRAMS`` as the e-graph stage gets them (``eqsat.ir.Program``), read once by the server
#: (``prepare_load``) and inherited by every fork: what ``pretouch_load`` loads
_LOAD_PROGRAMS: list[Any] = []


def prepare_load() -> int:
    """Read ``PROGRAMS`` once for ``pretouch_load`` (in the server, before it forks); how many."""
    from eqsat.frontend.mlir import parse_mlir

    _LOAD_PROGRAMS.clear()
    for text in PROGRAMS.values():
        with contextlib.suppress(Exception):
            _LOAD_PROGRAMS.extend(parse_mlir(text.encode(), "<warm-up>"))
    return len(_LOAD_PROGRAMS)


def pretouch_load(stop: Callable[[], bool]) -> int:
    """Turn ``PROGRAMS`` into the loader's rows and TSV files again (``eqsat.egraph.loader``,
    the Python side of loading an e-graph: no egglog) in a request's e-graph worker forked
    ahead (``eqsat.egraph.prefork``) while it waits for its job, until ``stop()`` says the job
    came; how many it loaded.

    Why: as ``pretouch`` for the reader -- the worker is a fork too, and the first touch of
    every page of the loader's code objects, classes and helpers (the canonical forms, the
    rotation summaries, the slot keys, pickling a ``Program``) copied it during the request's
    load: measured in forks of a warmed server, the loader's Python side took 2.2 ms on
    ``sum_8`` (0.2 ms in a process that had run it once), and loading four small kernels was
    2.3-4.5 ms faster after this.  Nothing of it reaches a result: the loader keeps its rows in
    its own objects, the TSV files go to a folder removed at once, and what it registers in
    the linear-map registry (content-keyed) is taken out again, so the worker's registry is
    the one it had."""
    import pickle
    import shutil

    from eqsat.algebra import linmap
    from eqsat.egraph import scratch
    from eqsat.egraph.loader import Loader

    maps, vectors = linmap._MAPS, linmap._VECTORS
    had_maps, had_vectors = set(maps), set(vectors)
    done = 0
    try:
        for prog in _LOAD_PROGRAMS:
            if stop():
                break
            with contextlib.suppress(Exception):
                loader = Loader(pickle.loads(pickle.dumps(prog)))
                loader.load()
                tmp = tempfile.mkdtemp(prefix="eqsat-load-", dir=scratch.root())
                try:
                    loader.write(Path(tmp))
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
            done += 1
    finally:
        for key in set(maps) - had_maps:
            del maps[key]
        for key in set(vectors) - had_vectors:
            del vectors[key]
    return done


def run() -> float:
    """Optimize each of ``PROGRAMS`` here (see the module docstring); the seconds taken.  A
    program that fails is skipped: a warm-up is never a reason for the server not to start."""
    if os.environ.get("EQSAT_IN_PROCESS") == "1":  # the e-graph stage would run egglog here
        return 0.0
    from eqsat.cli import main
    from eqsat.egraph import guard

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="eqsat-warmup-") as tmp:
        for _ in range(MAX_PASSES):
            token = abc.get_cache_token()
            for name, text in PROGRAMS.items():
                path = Path(tmp) / f"{name}.mlir"
                path.write_text(text.lstrip())
                out, err = io.StringIO(), io.StringIO()
                with contextlib.suppress(Exception), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    main(["optimize", str(path), "--json", "--quiet", "--extraction", "greedy"])
            if abc.get_cache_token() == token:
                break
    guard.reap(wait=True)
    return time.perf_counter() - t0
