"""Extraction: one e-node per e-class, the cheapest program under the cost model.

In: an ``EGraphView`` (``eqsat.egraph.view``), the root classes and a ``CostTable``. Out: a
``Choice`` and the IR ``Program`` it denotes. ``dag`` is greedy DAG extraction with local
search (shared subterms paid once); ``ilp`` is exact by MILP (``eqsat.milp``); ``noisy``
chooses e-nodes and reduce_noise points together; ``levels`` fits a level budget.
"""
