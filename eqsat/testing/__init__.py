"""Shared test support: random-program generators (``programs``: IR programs;
``slot_uniform``: slot-uniform programs as MLIR text in the ways people write them) and the
layering check (``layers``), used by the test suite, the experiments and the fuzzer."""
