"""The e-graph stage: load a program into egglog, saturate under limits, serialize.

In: an IR ``Program`` and a schedule of rulesets. Out: a ``Session`` (the egglog e-graph,
its result markers, a ``RunReport`` with a typed ``StopReason``) and its serialized view.

The names are loaded on first use (PEP 562): importing a light submodule (``limits``,
``compiled``) does not load the session and egglog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eqsat.egraph.limits import Limits, RunReport, StopReason
    from eqsat.egraph.session import Session

__all__ = ["Limits", "RunReport", "Session", "StopReason"]


def __getattr__(name: str) -> Any:
    if name == "Session":
        from eqsat.egraph.session import Session

        return Session
    if name in __all__:
        from eqsat.egraph import limits

        return getattr(limits, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
