"""The e-graph stage's limits and its run report, without egglog.

In: nothing.  Out: ``Limits`` (iterations, e-nodes, seconds, egglog's match limit),
``StopReason`` and ``RunReport``.  ``eqsat.egraph.session`` runs under them (and re-exports
them); the command line reads the defaults here to print them in ``--help`` without loading
the e-graph stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class StopReason(StrEnum):
    SATURATED = "saturated"
    ITERATION_LIMIT = "iteration_limit"
    NODE_LIMIT = "node_limit"
    TIME_LIMIT = "time_limit"


@dataclass(frozen=True)
class Limits:
    """Bounds on saturation, checked after every iteration.  ``time_s`` is also the budget of a
    whole ``eqsat.pipeline.optimize`` call, which gives saturation a share of it and enforces
    that share inside an iteration too (``eqsat.egraph.guard``)."""

    iterations: int = 40
    nodes: int = 400_000
    time_s: float = 30.0  # the whole call; saturation gets 75% of what is left after loading
    match_limit: int = 0  # > 0: egglog's back-off scheduler with this many matches per rule per iteration


@dataclass
class RunReport:
    stop_reason: StopReason
    iterations: int
    nodes: int
    time_s: float
    rule_matches: dict[str, int] = field(default_factory=dict)
    #: stopped from outside, inside an iteration (``eqsat.egraph.guard``): the e-graph is the
    #: one of the last complete iteration
    interrupted: bool = False
