"""The kernel suite: the peers' published benchmark kernels, each in several writing styles.

In: ``manifest.toml`` beside this file and the MLIR files ``<kernel>/<style>.mlir``.
Out: ``load()``, the list of ``KernelEntry`` (name, family, styles with their files, the
frontend feature each style still needs, the peers' published numbers with their sources,
and the issue-19 goal where no fixed-layout peer publishes one), and helpers that pick the
best published number of a fixed-layout and of a chosen-packing peer.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.toml"

#: families whose output slots are all one template: no slot access may be left
SLOT_UNIFORM_FAMILIES = ("elementwise", "stencil")


@dataclass(frozen=True)
class Published:
    peer: str
    packing: str  # "fixed" (row-major, like us) or "chosen" (the peer picks the packing)
    source: str
    rotations: int | None = None
    muls: int | None = None
    depth: int | None = None
    via: str = ""


@dataclass(frozen=True)
class KernelEntry:
    name: str
    family: str
    source: str
    styles: tuple[str, ...]
    peers: tuple[Published, ...] = ()
    needs: dict[str, str] = field(default_factory=dict)
    goal_rotations: int | None = None
    goal_source: str = ""
    slow: bool = False

    def file(self, style: str) -> Path:
        return HERE / self.name / f"{style}.mlir"

    def best(self, packing: str) -> Published | None:
        """The published result with the fewest rotations (then muls) among ``packing`` peers."""
        cands = [p for p in self.peers if p.packing == packing and p.rotations is not None]
        return min(cands, key=lambda p: (p.rotations, p.muls or 0), default=None)

    def target(self) -> tuple[int | None, int | None, str]:
        """(rotations, ct*ct muls, source) we must meet: the best fixed-layout peer, else the goal."""
        fixed = self.best("fixed")
        if fixed is not None:
            return fixed.rotations, fixed.muls, f"{fixed.peer}: {fixed.source}"
        if self.goal_rotations is not None:
            return self.goal_rotations, None, self.goal_source
        return None, None, ""

    @property
    def slot_uniform(self) -> bool:
        return self.family in SLOT_UNIFORM_FAMILIES


def load(path: Path = MANIFEST) -> list[KernelEntry]:
    data = tomllib.loads(path.read_text())
    out = []
    for k in data["kernel"]:
        peers = tuple(
            Published(
                p["peer"],
                p["packing"],
                p["source"],
                p.get("rotations"),
                p.get("muls"),
                p.get("depth"),
                p.get("via", ""),
            )
            for p in k.get("peer", [])
        )
        goal = k.get("goal", {})
        out.append(
            KernelEntry(
                k["name"],
                k["family"],
                k["source"],
                tuple(k["styles"]),
                peers,
                dict(k.get("needs", {})),
                goal.get("rotations"),
                goal.get("source", ""),
                bool(k.get("slow", False)),
            )
        )
    return out
