"""Frontends: programs in, IR ``Program`` s out.

``trace`` builds a program from a Python function over traced values (``eqsat.program``);
``mlir`` parses MLIR text with xDSL, lowers it to the IR, and prints IR back as MLIR.
"""
