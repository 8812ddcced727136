"""The one error type of the MLIR frontend: a located, single-line diagnostic.

In: a path, a 1-based line and column, and a message.  Out: ``MLIRError`` whose
``str()`` is ``path:line:col: error: message`` on one line, ready for the CLI to print
before exiting with code 2.
"""

from __future__ import annotations

from eqsat.errors import UserError


class MLIRError(UserError):
    """Malformed or unsupported MLIR input, with the position of the offending token."""

    def __init__(self, path: str, line: int, col: int, message: str) -> None:
        super().__init__(message, path=path, line=line, col=col)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset into ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col
