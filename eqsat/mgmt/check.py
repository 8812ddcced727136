"""The management checker: degrees, levels and (CKKS) scales of an explicitly managed program.

In: a ``Program`` with relinearize/modswitch/rescale/bootstrap ops, the scheme and the
level budget. Out: an ``MgmtReport`` (legal or the first errors).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from eqsat.ir import MGMT_OPS, Program
from eqsat.mgmt.relinearize import NEEDS_LINEAR


# -- checker ---------------------------------------------------------------------------
@dataclass
class MgmtReport:
    legal: bool
    max_level: int
    min_level: int
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"model": "levels", "levels_used": self.max_level - self.min_level, "budget": self.max_level,
                "legal": self.legal, "errors": self.errors[:5]}


def check(prog: Program, scheme: str, max_level: int) -> MgmtReport:
    """Validate degrees, levels and (CKKS) scales of an explicitly managed program."""
    if not any(prog.nodes[i].op == "mul" or prog.nodes[i].op in MGMT_OPS for i in prog.live()):
        # only a product raises a degree or a scale, only a management op changes a level:
        # every value stays at degree 2, scale Delta and ``max_level`` (a pass less over a
        # big sum or stencil)
        return MgmtReport(True, max_level, max_level, [])
    lvl: dict[int, int] = {}
    deg: dict[int, int] = {}
    scl: dict[int, int] = {}  # CKKS: the scale's power of Delta
    errors: list[str] = []
    for i in prog.live():
        n = prog.nodes[i]
        if not n.type.secret:
            continue
        sec = [a for a in n.args if a in lvl]
        where = f"%{i} ({n.op})"
        if n.op in ("input", "encode"):
            lvl[i], deg[i], scl[i] = max_level, 2, 1
            continue
        if n.op in NEEDS_LINEAR or (n.op == "mul" and len(sec) == 2):
            for a in sec:
                if deg[a] != 2:
                    errors.append(f"{where}: operand %{a} is degree {deg[a]}, needs relinearization")
        if len({lvl[a] for a in sec}) > 1:
            errors.append(f"{where}: operands at levels {sorted({lvl[a] for a in sec})}")
        if scheme == "ckks" and len({scl[a] for a in sec}) > 1:
            errors.append(f"{where}: operands at different scales")
        level = min(lvl[a] for a in sec)
        degree = max(deg[a] for a in sec)
        scale = max(scl[a] for a in sec)
        if n.op == "mul":
            if scheme == "ckks" and scale != 1:
                errors.append(f"{where}: multiplies a ciphertext that was not rescaled")
            scale += 1 if len(sec) == 1 else scl[sec[1]]
            if len(sec) == 2:
                degree = 3
        elif n.op == "relinearize":
            if degree != 3:
                errors.append(f"{where}: relinearizes a degree-2 ciphertext")
            degree = 2
        elif n.op == "modswitch":
            level -= 1
        elif n.op == "rescale":
            level -= 1
            if scheme == "ckks":
                if scale < 2:
                    errors.append(f"{where}: rescales a ciphertext at scale Delta")
                scale -= 1
        elif n.op == "bootstrap":
            level, degree, scale = max_level, 2, 1
        if level < 0:
            errors.append(f"{where}: level {level} below 0")
        lvl[i], deg[i], scl[i] = level, degree, scale
    for res in prog.results:
        if res in deg and deg[res] != 2:
            errors.append(f"result %{res} is degree {deg[res]}, needs relinearization")
        if scheme == "ckks" and res in scl and scl[res] != 1:
            errors.append(f"result %{res} is not rescaled")
    low = min(lvl.values(), default=max_level)
    return MgmtReport(not errors, max_level, low, errors)
