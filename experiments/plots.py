"""Plot pieces the experiment scripts share.

In: a matplotlib axis and the values to draw.  Out: ``stacked_barh``: one horizontal bar per
row, its parts stacked left to right (a stage's or a phase's share of a kernel's time).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def stacked_barh(ax: Any, rows: Sequence[Any], parts: Sequence[tuple[str, Sequence[float]]]) -> None:
    """On ``ax``, bar ``i`` at ``rows[i]`` (a label or a y position) made of ``parts``' values at
    ``i``, each part in its own colour and labelled for the legend."""
    left = [0.0] * len(rows)
    for label, vals in parts:
        ax.barh(rows, vals, left=left, label=label)
        left = [a + float(b) for a, b in zip(left, vals, strict=True)]
