"""Compact canonical string keys for slot sets and dense constants.

In: sets of slot indices, tuples of numbers.  Out: strings that egglog stores as
``String`` primitives (and back).  Keys are canonical: equal sets give equal strings,
so hash-consing in the e-graph identifies equal summaries.

``set_key({0, 1, 2, 3, 7, 9, 11})`` is ``"0-3,7-11/2"``: runs of a constant stride
written ``first-last/stride`` (stride 1 omitted), singletons as a number.
"""

from __future__ import annotations

from collections.abc import Iterable


def set_key(slots: Iterable[int]) -> str:
    xs = sorted(set(slots))
    parts: list[str] = []
    i = 0
    while i < len(xs):
        if i + 1 < len(xs):
            step = xs[i + 1] - xs[i]
            j = i + 1
            while j + 1 < len(xs) and xs[j + 1] - xs[j] == step:
                j += 1
            if j - i >= 2 or (step == 1 and j > i):
                parts.append(f"{xs[i]}-{xs[j]}" + (f"/{step}" if step != 1 else ""))
                i = j + 1
                continue
        parts.append(str(xs[i]))
        i += 1
    return ",".join(parts)


def parse_set_key(key: str) -> list[int]:
    out: list[int] = []
    if not key:
        return out
    for part in key.split(","):
        if "-" in part:  # slot indices are never negative
            rng, _, step = part.partition("/")
            a, b = rng.split("-", 1)
            out.extend(range(int(a), int(b) + 1, int(step or 1)))
        else:
            out.append(int(part))
    return out


def dense_key(values: Iterable[int | float]) -> str:
    return ",".join(repr(v) if isinstance(v, float) else str(v) for v in values)


def parse_dense_key(key: str) -> list[int | float]:
    """The values of a dense key; a key ``pv<hash>`` names a registered plaintext vector
    (``eqsat.algebra.linmap.register_vector``), so large diagonals never become strings."""
    if key.startswith("pv"):
        from eqsat.algebra.linmap import lookup_vector

        return lookup_vector(key).tolist()  # type: ignore[no-any-return]
    out: list[int | float] = []
    for tok in key.split(","):
        out.append(float(tok) if any(ch in tok for ch in ".eEn") else int(tok))
    return out
