"""The source program's share of the report, computed while the e-graph worker saturates.

In: the source program (as the pipeline holds it), its scheme, cost table and management
options.  Out: a ``SourceAhead`` that ``eqsat.egraph.guard.build`` starts in a thread once
the e-graph worker runs, and whose answers the pipeline takes afterwards:

* ``before(ilp_time)``: the "before" side of the report -- the source managed as it would
  need to run (BGV/CKKS placement, or the noisy dialect's encoded form) and its summary --
  the same values the pipeline computes in order when nothing was computed ahead;
* ``evaluations()``: the source's values on the random inputs of the translation check.

Why: these depend on the source alone, yet ran after extraction, one after the other with
everything else, while the request's process had waited idle for the e-graph worker.  On a
second core they overlap it: on unrolled kernels of thousands of nodes the source's
placement, noise check and evaluation take 0.1-0.5 s (``hamming_distance_1024``).

Safety: the thread starts only after the worker was forked and is joined before any other
fork of the process (``guard``) and before the pipeline goes on (so no two HiGHS solves run
at once).  An error in it is kept and raised where the in-order computation would have
raised it.  The placement ILP gets the time limit the in-order computation would have had at
the thread's start; when the time left at the point of use is too short for an ILP
(``ilp_time`` 0) the answer computed ahead is not used and the pipeline computes it as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from eqsat.ir import Program, has_mgmt
from eqsat.models.cost import CostTable


class SourceAhead:
    """See the module docstring."""

    def __init__(self, prog: Program, scheme: str, costs: CostTable, max_level: int | None, bootstrap: bool,
                 ilp_time: Callable[[], float], summarize: Callable[..., dict[str, object]],
                 evaluate_source: Callable[[], list[tuple[dict[str, Any], list[Any]]]] | None) -> None:
        self.prog, self.scheme, self.costs = prog, scheme, costs
        self.max_level, self.bootstrap = max_level, bootstrap
        self._ilp_time, self._summarize, self._evaluate = ilp_time, summarize, evaluate_source
        self._thread: threading.Thread | None = None
        self._before: tuple[Program, bool, dict[str, object]] | BaseException | None = None
        self._evals: list[tuple[dict[str, Any], list[Any]]] | BaseException | None = None

    # -- guard.Beside ------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="eqsat-source-ahead", daemon=True)
            self._thread.start()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()

    # -- the work ------------------------------------------------------------------------------
    def _run(self) -> None:
        ilp_time = self._ilp_time()
        if ilp_time > 0:  # else the point of use places without an ILP (never computed here)
            try:
                self._before = self._compute_before(ilp_time)
            except BaseException as e:  # kept for the point of use
                self._before = e
        if self._evaluate is not None:
            try:
                self._evals = self._evaluate()
            except BaseException as e:
                self._evals = e

    def _compute_before(self, ilp_time: float) -> tuple[Program, bool, dict[str, object]]:
        """(before program, whether it came from ``mgmt.manage``, its summary); see
        ``eqsat.pipeline.optimize`` for the cases."""
        from eqsat import mgmt
        from eqsat.models import noisy as noise

        prog = self.prog
        if self.scheme == "noisy":
            before, managed = noise.encode_plain_operands(prog), False
        elif not has_mgmt(prog):
            try:
                before, managed = mgmt.manage(mgmt.strip_mgmt(prog), self.scheme, self.max_level,
                                              bootstrap=self.bootstrap, time_limit=ilp_time), True
            except mgmt.PlacementError:
                before, managed = prog, False
        else:
            before, managed = prog, False
        return before, managed, self._summarize(before, self.costs, self.scheme, managed=managed)

    # -- answers -------------------------------------------------------------------------------
    def before(self, ilp_allowed: bool = True) -> tuple[Program, bool, dict[str, object]] | None:
        """The before side computed ahead (its error raised here), or None: not computed, or
        ``ilp_allowed`` False (no time left for a placement ILP: the in-order computation would
        have placed without one)."""
        self.join()
        got = self._before
        if got is None or not ilp_allowed:
            return None
        if isinstance(got, BaseException):
            raise got
        return got

    def evaluations(self) -> list[tuple[dict[str, Any], list[Any]]] | None:
        """The source's (inputs, values) per random trial, or None when not computed."""
        self.join()
        got = self._evals
        if isinstance(got, BaseException):
            raise got
        return got
