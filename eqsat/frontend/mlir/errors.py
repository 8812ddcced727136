"""The one error type of the MLIR frontend: a located, single-line diagnostic.

In: a path, a 1-based line and column, and a message.  Out: ``MLIRError`` whose
``str()`` is ``path:line:col: error: message`` on one line, ready for the CLI to print
before exiting with code 2.  ``ReadTimeLimit`` is the same diagnostic when a deadline
passed while the input was still being read (parsed, verified or lowered to the IR).
"""

from __future__ import annotations

from eqsat.errors import UserError


class MLIRError(UserError):
    """Malformed or unsupported MLIR input, with the position of the offending token."""

    def __init__(self, path: str, line: int, col: int, message: str) -> None:
        super().__init__(message, path=path, line=line, col=col)


class ReadTimeLimit(MLIRError):
    """The deadline passed while the input was being read; located where reading stopped.

    ``phase`` is ``parse``, ``verify`` or ``lower``; ``lines`` the input's line count.
    """

    def __init__(self, path: str, line: int, col: int, phase: str, lines: int) -> None:
        self.phase, self.lines = phase, lines
        what = {"parse": "parsing", "verify": "verifying", "lower": "lowering"}.get(phase, phase)
        #: where reading stopped, in words
        self.stopped_at = f"{what}, line {line} of {lines}"
        super().__init__(path, line, col, f"the deadline passed while reading the input ({self.stopped_at})")


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset into ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def line_count(text: str) -> int:
    """The number of lines of ``text`` (a final newline ends the last line)."""
    return text.count("\n") + (0 if text.endswith("\n") else 1)
