"""Cost tables: what each ciphertext operation costs, per scheme.

In: a scheme name (``noisy``, ``bgv``, ``ckks``) and optional overrides (the
``--costs COSTS.json`` object, op name -> number).  Out: a ``CostTable`` mapping
DESIGN.md's op vocabulary to numbers, used by extraction and by the reports.

Units are relative latencies (``add`` = 1).  Plaintext-only arithmetic costs nothing.
Reading slot ``k != 0`` (``extract``) is a rotation plus a masking ``mul_plain`` (our
executor measured 184.6 adds against 139.0 + 46.3), so it costs ``rotate + mul_plain``
(reading slot 0 is free); a rotation and a slot read never tie.

Hoisting: the executor rotates one ciphertext several times with one key-switching
decomposition (OpenFHE's fast rotations), so only the first rotation of a value pays
``rotate``; each further rotation (or slot read k != 0) of the same value pays
``rotate_hoisted``, a cost term beside the op vocabulary.  ``hoisted_saving`` is the
difference, which ``eqsat.models.hoisting`` and extraction subtract per extra rotation.
Its default fraction of ``rotate`` is measured on our executor (8 rotations of one
ciphertext at N = 8192: BGV 78 -> 49 ms, CKKS 100 -> 53 ms, so a further rotation costs
0.58 / 0.46 of a first one); the article's ``noisy`` model has no hoisting.

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

#: cost terms a table holds beyond the op vocabulary (not op counts)
EXTRA_TERMS = ("rotate_hoisted",)
TERMS = VOCABULARY + EXTRA_TERMS

SCHEMES = ("noisy", "bgv", "ckks")

DEFAULTS: dict[str, dict[str, float]] = {
    "noisy": {
        # a plaintext operand is encoded first (the article's dialect), so mixing one in
        # costs what the ciphertext op costs
        "add": 1, "sub": 1, "neg": 1, "mul": 2, "mul_plain": 2, "add_plain": 1, "rotate": 4,
        "relinearize": 0, "modswitch": 0, "rescale": 0, "reduce_noise": 40, "bootstrap": 40,
        "extract": 5, "insert": 5, "rotate_hoisted": 4,
    },
    "bgv": {
        "add": 1, "sub": 1, "neg": 1, "mul": 12, "mul_plain": 2, "add_plain": 1, "rotate": 30,
        "relinearize": 28, "modswitch": 4, "rescale": 4, "reduce_noise": 1000, "bootstrap": 1000,
        "extract": 32, "insert": 33, "rotate_hoisted": 17,
    },
    "ckks": {
        "add": 1, "sub": 1, "neg": 1, "mul": 10, "mul_plain": 3, "add_plain": 1, "rotate": 32,
        "relinearize": 30, "modswitch": 3, "rescale": 5, "reduce_noise": 1000, "bootstrap": 1000,
        "extract": 35, "insert": 36, "rotate_hoisted": 15,
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

    @property
    def hoisted_saving(self) -> float:
        """What a rotation of an already-rotated value saves (0 when the table has no
        ``rotate_hoisted`` or prices it at least as high as ``rotate``).  A slot read
        (``extract``) of such a value saves as much, so the saving is at most the cheaper of
        ``rotate`` and ``extract``: a table that prices a slot read below a rotation (the
        defaults never do) would otherwise give hoisted reads a negative price."""
        if "rotate_hoisted" not in self.costs:
            return 0.0
        return max(0.0, min(self["rotate"], self["extract"]) - self["rotate_hoisted"])


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
    for op in TERMS:
        v = costs.get(op)
        if v is None and op in EXTRA_TERMS:
            continue  # a file from before the term existed: the in-code default stays
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
        if k not in TERMS:
            raise CostError(f"unknown op '{k}' in cost table (known: {', '.join(TERMS)})")
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0 or v != v:
            raise CostError(f"cost of '{k}' must be a non-negative number, not {v!r}")
        costs[k] = float(v)
    return CostTable(scheme, costs)


#: exponent of the prime count in ``param_scale`` (see there)
PRIMES_EXPONENT = 1.5


def param_scale(n: int, primes: int) -> float:
    """Relative time of one operation at ring dimension ``n`` with ``primes`` RNS primes,
    for comparing programs run under different parameters (the tables price ops at one
    parameter set).  Key switching (rotations, relinearization) dominates the programs
    and grows as N * primes^1.5 on our executor: one rotation measured 2.6 / 4.0 / 8.5 ms
    with 2 / 3 / 5 primes at N = 8192 and 8.0 / 23 / 53 ms with 3 / 6 / 10 primes at
    N = 16384 (one thread).  The digits grow with the primes and each digit is
    transformed over all of them, which a linear term cannot follow."""
    return float(n) * float(primes) ** PRIMES_EXPONENT


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
