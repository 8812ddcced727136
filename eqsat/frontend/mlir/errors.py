"""The one error type of the MLIR frontend: a located, single-line diagnostic.

In: a path, a 1-based line and column, and a message.  Out: ``MLIRError`` whose
``str()`` is ``path:line:col: error: message`` on one line, ready for the CLI to print
before exiting with code 2.
"""

from __future__ import annotations


class MLIRError(Exception):
    """Malformed or unsupported MLIR input, with the position of the offending token."""

    def __init__(self, path: str, line: int, col: int, message: str) -> None:
        self.path = path
        self.line = line
        self.col = col
        self.message = " ".join(message.split())
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: error: {self.message}"


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset into ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col
