"""Models that price and bound programs, with no e-graph in them.

``cost``: per-op cost tables per scheme (defaults, calibrated files, user overrides);
``noisy``: the noisy-arithmetic article's noise model (bits per value, the 26-bit limit).
The BGV/CKKS noise model of the executor lives beside it in ``eqsat.backend.noise``.
"""
