"""The term language's constructor names by role, without egglog.

In: nothing.  Out: ``CONCRETE_OPS`` (e-nodes that are realizable programs: the extractor's
vocabulary), ``SUMMARY_OPS`` (summaries, never extracted themselves), ``INERT`` (the inert
copies of the arithmetic constructors and the op each stands for) and ``INERT_OPS``, by
egglog name.  ``eqsat.term`` declares the constructors and re-exports these; the e-graph
stage reads serialized e-graphs with them and so need not import egglog's Python layer
(``eqsat.egraph.egglog_import``).
"""

from __future__ import annotations

INERT = {"AddI": "Add", "SubI": "Sub", "MulI": "Mul", "NegI": "Neg", "ExtI": "Ext"}

# Ops whose e-nodes are realizable programs (the extractor's vocabulary), by egglog name.
CONCRETE_OPS = frozenset(
    {"In", "Num", "NumF", "Dense", "Mask", "Add", "Sub", "Mul", "Neg", "Rot", "Ext", "Ins", "Place", "Splat",
     "Encode", "Decode"}
)
SUMMARY_OPS = frozenset({"LinRot", "LinMap", "ProdRot", "Gather", "ChainElem"})
INERT_OPS = frozenset(INERT)
