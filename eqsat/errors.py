"""The one error hierarchy of eqsat-fhe.

In: nothing (this module only defines exception classes). Out:

* ``EqsatError`` -- the base of every error eqsat raises on purpose.
* ``UserError`` -- bad input: malformed or unsupported MLIR, bad cost tables, unknown rule
  families, bad run inputs, infeasible noise budgets, insecure parameters. It carries an
  optional location; ``located(path)`` is the one line ``path:line:col: error: message``
  that the CLI prints before exiting with code 2.
* ``InternalError`` -- a bug in eqsat (an extracted program that differs from its source, a
  placement that fails its own check). The CLI prints it as one line with a hint to report
  it, and exits with code 1. Any exception that is not an ``EqsatError`` is treated the same.

The stages' own classes (``MLIRError``, ``CostError``, ``InfeasibleError``...) derive from
these, so a caller catches one class per branch.
"""

from __future__ import annotations

REPORT_HINT = "this is a bug in eqsat: please report it with the input that caused it"


class EqsatError(Exception):
    """Base of every error eqsat raises on purpose."""


class UserError(EqsatError):
    """Bad input, reported as ``path:line:col: error: message`` (exit code 2).

    ``path`` may be unknown where the error is raised (a cost value, an infeasible budget);
    the CLI then locates it at the start of the input file.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int = 1, col: int = 1) -> None:
        self.message = " ".join(str(message).split())
        self.path = path
        self.line = line
        self.col = col
        super().__init__(self.message)

    def located(self, path: str) -> str:
        """The one-line diagnostic, at this error's own location or else at ``path:1:1``."""
        where = self.path if self.path is not None else path
        return f"{where}:{self.line}:{self.col}: error: {self.message}"

    def __str__(self) -> str:
        return self.located(self.path) if self.path is not None else self.message


class InternalError(EqsatError):
    """A bug in eqsat; the CLI names it as such (exit code 1)."""

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text} ({REPORT_HINT})"


class InfeasibleError(UserError):
    """No program or management placement keeps the noise within the budget."""
