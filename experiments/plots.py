"""Plot pieces the experiment scripts share.

In: a matplotlib axis (or a file path) and the values to draw.  Out: ``stacked_barh``: one
horizontal bar per row, its parts stacked left to right (a stage's or a phase's share of a
kernel's time); ``stacked_barh_figure``: such bars as a whole figure saved to a file.
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


def stacked_barh_figure(path: Any, labels: Sequence[str], parts: Sequence[tuple[str, Sequence[float]]],
                        xlabel: str, title: str, top_down: bool = False, dpi: int = 110,
                        width: float = 9.0) -> None:
    """A figure of ``stacked_barh`` bars, one per label (the first at the top with
    ``top_down``), the parts in a legend, saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, 0.3 * len(labels) + 1.5))
    stacked_barh(ax, labels, parts)
    if top_down:
        ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
