"""Cost tables: what each ciphertext operation costs, per scheme.

In: a scheme name (``noisy``, ``bgv``, ``ckks``) and optional overrides (the
``--costs COSTS.json`` object, op name -> number).  Out: a ``CostTable`` mapping
DESIGN.md's op vocabulary to numbers, used by extraction and by the reports.

Units are relative latencies (``add`` = 1).  Plaintext-only arithmetic costs nothing.
Reading slot ``k != 0`` (``extract``) is a rotation plus a masking ``mul_plain`` (our
executor measured 184.6 adds against 139.0 + 46.3), so it costs ``rotate + mul_plain``
(reading slot 0 is free); a rotation and a slot read never tie.

Where the numbers come from
---------------------------
* ``noisy``: the article's model, where ``reduce_noise`` is the expensive op.
* ``bgv``/``ckks``, in-code ``DEFAULTS``: ratios measured for SEAL at N = 8192 (add
  ~70 us, mul+relinearize ~2.8-16 ms, rotate ~2.4 ms).
* ``bgv``/``ckks``, calibrated: ``eqsat/models/cost_tables/{bgv,ckks}.json``, written by
  ``experiments/calibrate_costs.py`` from our own executor's median op latencies at
  N = 8192 (one thread).  Each file holds ``{"scheme", "N", "levels", "unit",
  "costs": {op: relative latency}, "measured_us": {op: microseconds},
  "not_measured": [...]}``; ``bootstrap``/``reduce_noise`` are not measured (the
  executor only simulates bootstrapping) and keep the in-code defaults.
  ``table(scheme, calibrated=True)`` uses it; a missing or malformed file falls back to
  ``DEFAULTS``.  ``--costs eqsat/models/cost_tables/bgv.json`` selects it on the command line
  (``load_overrides`` accepts a calibration file as well as a flat op -> number object).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from eqsat.errors import UserError

VOCABULARY = (
    "add", "sub", "neg", "mul", "mul_plain", "add_plain", "rotate", "relinearize", "modswitch",
    "rescale", "reduce_noise", "bootstrap", "extract", "insert",
)

SCHEMES = ("noisy", "bgv", "ckks")

DEFAULTS: dict[str, dict[str, float]] = {
    "noisy": {
        # a plaintext operand is encoded first (the article's dialect), so mixing one in
        # costs what the ciphertext op costs
        "add": 1, "sub": 1, "neg": 1, "mul": 2, "mul_plain": 2, "add_plain": 1, "rotate": 4,
        "relinearize": 0, "modswitch": 0, "rescale": 0, "reduce_noise": 40, "bootstrap": 40,
        "extract": 5, "insert": 5,
    },
    "bgv": {
        "add": 1, "sub": 1, "neg": 1, "mul": 12, "mul_plain": 2, "add_plain": 1, "rotate": 30,
        "relinearize": 28, "modswitch": 4, "rescale": 4, "reduce_noise": 1000, "bootstrap": 1000,
        "extract": 32, "insert": 33,
    },
    "ckks": {
        "add": 1, "sub": 1, "neg": 1, "mul": 10, "mul_plain": 3, "add_plain": 1, "rotate": 32,
        "relinearize": 30, "modswitch": 3, "rescale": 5, "reduce_noise": 1000, "bootstrap": 1000,
        "extract": 35, "insert": 36,
    },
}


class CostError(UserError, ValueError):
    """A cost table or override that is not usable."""


@dataclass(frozen=True)
class CostTable:
    scheme: str
    costs: Mapping[str, float]

    def __getitem__(self, op: str) -> float:
        return float(self.costs.get(op, 0.0))

    def total(self, ops: Mapping[str, int]) -> float:
        return float(sum(self[o] * k for o, k in ops.items()))


CALIBRATED_DIR = Path(__file__).resolve().parent / "cost_tables"


def calibrated(scheme: str, directory: Path | None = None) -> dict[str, float] | None:
    """The calibrated table of ``scheme`` (see the module docstring), or None if absent/bad."""
    path = (directory or CALIBRATED_DIR) / f"{scheme}.json"
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    costs = doc.get("costs") if isinstance(doc, dict) else None
    if not isinstance(costs, dict):
        return None
    out: dict[str, float] = {}
    for op in VOCABULARY:
        v = costs.get(op)
        if isinstance(v, bool) or not isinstance(v, int | float) or not v >= 0:
            return None
        out[op] = float(v)
    return out


def table(
    scheme: str, overrides: Mapping[str, object] | None = None, *, calibrated_costs: bool = False
) -> CostTable:
    """The cost table of ``scheme``: in-code defaults (or, with ``calibrated_costs``, the
    calibrated file when present), then ``overrides``."""
    if scheme not in DEFAULTS:
        raise CostError(f"unknown scheme '{scheme}' (choose from {', '.join(SCHEMES)})")
    costs = dict(DEFAULTS[scheme])
    if calibrated_costs:
        costs.update(calibrated(scheme) or {})
    for k, v in (overrides or {}).items():
        if k not in VOCABULARY:
            raise CostError(f"unknown op '{k}' in cost table (known: {', '.join(VOCABULARY)})")
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0 or v != v:
            raise CostError(f"cost of '{k}' must be a non-negative number, not {v!r}")
        costs[k] = float(v)
    return CostTable(scheme, costs)


def load_overrides(path: str | Path) -> dict[str, object]:
    """Read a ``--costs`` JSON file; errors name the file (and line:col for bad JSON)."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise CostError(f"cannot read cost table: {e.strerror}", path=str(p)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CostError(f"bad JSON in cost table: {e.msg}", path=str(p), line=e.lineno, col=e.colno) from None
    if not isinstance(data, dict):
        raise CostError("a cost table is a JSON object mapping op names to numbers", path=str(p))
    if isinstance(data.get("costs"), dict) and "scheme" in data:  # a calibration file
        return dict(data["costs"])
    return data
