"""Shared test support: random-program generators (``programs``) and the layering check
(``layers``), used by the test suite, the experiments and the fuzzer."""
