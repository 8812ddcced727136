"""The e-graph stage: load a program into egglog, saturate under limits, serialize.

In: an IR ``Program`` and a schedule of rulesets. Out: a ``Session`` (the egglog e-graph,
its result markers, a ``RunReport`` with a typed ``StopReason``) and its serialized view.
"""

from eqsat.egraph.session import Limits, RunReport, Session, StopReason

__all__ = ["Limits", "RunReport", "Session", "StopReason"]
