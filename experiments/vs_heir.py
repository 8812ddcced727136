"""eqsat beside HEIR, in one run: rotations, ct x ct muls, relinearizations and wall time.

In: the kernels of ``kernels()`` (every ``.mlir`` file in ``tests/heir_cases/``,
``examples/`` and, where it exists, ``experiments/kernels/``; ``--only`` keeps those whose
name contains one of its comma-separated parts), ``--repeats`` (default 3), ``--out``
(default ``experiments/out/``).  Nothing is installed here: ``heir-opt`` is looked up on
PATH, then inside the ``heir`` package of ``heir-py`` (``pip install -e '.[heir]'``).
Without it the script prints one line and exits 0, writing no HEIR rows.

Each kernel goes through HEIR's pipeline for its kind, as HEIR's own lit tests run it:

* a kernel with a tensor argument or result: ``--secretize --wrap-generic --canonicalize
  --cse --heco-simd-vectorizer=unroll-fhe-kernel-loops=true`` (the vectorizer tests);
* a scalar-only (arithmetic) kernel: ``--secretize --annotate-module="backend=openfhe
  scheme=bgv" --mlir-to-bgv`` (HEIR's BGV pipeline as its OpenFHE examples run it; it also
  places relinearizations and modulus switches);
* a kernel with ``linalg.`` ops: ``--secretize --annotate-module="backend=openfhe scheme=bgv"
  --mlir-to-secret-arithmetic`` (``mlir-to-secret-arithmetic`` in the CSV): HEIR's layout
  assignment and its linalg kernels (a matvec or a conv2d becomes a Halevi-Shoup / baby-step
  giant-step diagonal product over ``tensor_ext.rotate``), stopping before the scheme dialect.
  The vectorizer pipeline leaves ``linalg`` ops unlowered (0 rotations, a measurement
  artifact), and ``--mlir-to-bgv`` runs past a minute on ``linalg_matvec_16x16``; this is the
  same lowering up to the point where the rotations and multiplications are fixed.  Its
  output keeps ``scf.for`` loops with constant bounds, so it is counted by running them
  (below); it places no relinearizations (0 by construction, as for the vectorizer).  A
  kernel this pipeline rejects (HEIR's layout passes reject some linalg ops, e.g.
  ``linalg.pooling_nchw_sum``, a rank-1 ``linalg.generic``) is reported as HEIR failing,
  with HEIR's first error line as the status.

and through ``eqsat optimize`` (default options).  eqsat is measured the way a user running
many kernels runs it, and also cold (``--modes``, default ``warm,batch,cold``; the first listed
gives the headline column ``eqsat_s`` and the counts, every mode gets its own column):

* ``warm`` (``eqsat_warm_s``): ``eqsat serve`` started once by this script (its own socket
  folder, stopped at the end); per kernel the wall clock of the whole ``eqsat optimize
  KERNEL --json`` command, the thin client's interpreter start-up included, as ``heir-opt``'s
  own process start-up is in HEIR's number;
* ``batch`` (``eqsat_batch_s``): one ``eqsat optimize K1 K2 ... --out-dir D --json`` process
  per repeat over all kernels (start-up paid once); per kernel its report's ``time_s`` plus
  its ``timings.parse``; the start-up the process paid once (its wall clock minus the
  kernels' times) is printed, and counted in the batch total;
* ``cold`` (``eqsat_cold_s``): a new ``eqsat optimize KERNEL --json`` process per kernel,
  no server (``EQSAT_NO_SERVER=1``), wall clock of the whole process: what one command costs
  on a machine that runs nothing else of eqsat.

The per-kernel runs alternate (cold, warm, HEIR) so a drift in machine load hits all; median
of ``--repeats``; the load average before each kernel is in ``load_avg``.  Counted in
HEIR's output (``count_heir``), as ops *run*, not ops printed: rotations of a secret value
(any ``*.rotate*`` op; a rotation of a plaintext, e.g. of a constant matrix's diagonal, costs
no key switch and is not counted), ct x ct multiplications (``bgv.mul`` / ``ckks.mul``, or an
``arith.mul*`` whose two operands both depend on a secret value) and relinearizations (any
``*.relinearize`` op; the vectorizer and secret-arithmetic pipelines place none, so their
count is 0 by construction and the CSV says which pipeline ran).  Loops run: an ``scf.for``
/ ``affine.for`` with constant bounds counts its body once per trip, with the induction
variable's value bound and the index arithmetic evaluated, so a rotation whose offset is 0
(mod the slot count) on a trip -- the first baby step of HEIR's kernels -- is a no-op and not
counted on it (the same holds in straight-line code: HEIR's vectorizer emits a rotation by the
full length on a few kernels, an identity); an ``scf.if`` counts its taken branch (unknown
condition: the larger branch); a loop without constant bounds counts once, with a warning;
an output that runs more than ``_MAX_STEPS`` ops is not counted (status ``uncounted: ...``).
eqsat's counts are its report's ``after.ops``.  Noisy-dialect kernels (``noisy.*``) are
eqsat's only; HEIR has no such dialect, so they get no HEIR row.

Out: ``vs_heir.csv`` (kernel, pipeline, per tool: status, rotations, muls, relins, the
``tensor.extract``/``tensor.insert`` of secret values left in the output (a lowering pays
rotations and masks for them, so a low rotation count beside many slot accesses is not a win;
an extract of slot 0 is free and not counted, as eqsat's report does), wall seconds; ``time_ratio`` = eqsat /
HEIR; ``*_moves`` = rotations + slot accesses, the fair comparison of the two) and
``vs_heir.png`` (wall time per kernel for both tools on a log axis, and rotations of eqsat
against HEIR's).

Run: ``python experiments/vs_heir.py [--repeats 3] [--only sum_8,dot] [--timeout 600]
[--modes warm,batch,cold]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from eqsat.testing.heir import find_heir_opt

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).resolve().parent / "out"

VECTORIZER = ["--secretize", "--wrap-generic", "--canonicalize", "--cse",
              "--heco-simd-vectorizer=unroll-fhe-kernel-loops=true"]
TO_BGV = ["--secretize", "--annotate-module=backend=openfhe scheme=bgv", "--mlir-to-bgv"]
TO_SECRET_ARITHMETIC = ["--secretize", "--annotate-module=backend=openfhe scheme=bgv", "--mlir-to-secret-arithmetic"]
PIPELINES = {"vectorizer": VECTORIZER, "mlir-to-bgv": TO_BGV, "mlir-to-secret-arithmetic": TO_SECRET_ARITHMETIC}

FIELDS = ["kernel", "source", "heir_pipeline",
          "eqsat_status", "eqsat_rotations", "eqsat_muls", "eqsat_relins", "eqsat_slot_accesses", "eqsat_s",
          "heir_status", "heir_rotations", "heir_muls", "heir_relins", "heir_slot_accesses", "heir_s",
          "time_ratio", "repeats", "eqsat_moves", "heir_moves",
          "eqsat_mode", "eqsat_warm_s", "eqsat_batch_s", "eqsat_cold_s", "cold_ratio", "load_avg"]
MODES = ("warm", "batch", "cold")
#: the pause after a served (warm) eqsat run before the next tool's run: the server then makes its
#: next spare (two forks and page pre-writes, 30-40 ms of CPU), which a run started at once shares
#: the machine with (heir-opt measured 0.057 s beside it, 0.041-0.046 s apart)
SETTLE_S = 0.2


def kernels(root: Path = ROOT) -> list[Path]:
    """Every kernel this benchmark runs, in a stable order (extend the folder list here)."""
    folders = [root / "tests" / "heir_cases", root / "examples", root / "experiments" / "kernels"]
    return [p for d in folders if d.is_dir() for p in sorted(d.glob("*.mlir"))]


def eqsat_command() -> list[str]:
    script = Path(sys.executable).parent / "eqsat"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "eqsat.cli"]


# -- classification and counting ---------------------------------------------------------

_FUNC = re.compile(r"func\.func\s+(?:private\s+)?@[\w$.]+\((?P<args>[^)]*)\)\s*(?:->\s*(?P<res>[^{]*))?"
                   r"(?:attributes\s*)?\{")


def kind(text: str) -> str:
    """``noisy`` (eqsat's article dialect), ``tensor`` (a tensor at the function boundary or a
    ``tensor_ext`` op) or ``scalar``."""
    if "noisy." in text:
        return "noisy"
    m = _FUNC.search(text)
    boundary = (m.group("args") + " " + (m.group("res") or "")) if m else ""
    return "tensor" if "tensor<" in boundary or "tensor_ext." in text else "scalar"


def pipeline_name(text: str) -> str:
    """The HEIR pipeline (a key of ``PIPELINES``) a kernel runs through; ``""``: none (noisy)."""
    k = kind(text)
    if k == "noisy":
        return ""
    if "linalg." in text:  # the vectorizer leaves linalg unlowered; this lowers it to HEIR's kernels
        return "mlir-to-secret-arithmetic"
    return "vectorizer" if k == "tensor" else "mlir-to-bgv"


_DEF = re.compile(r"^\s*(?P<res>%[\w$.\-]+(?::\d+)?(?:\s*,\s*%[\w$.\-]+)*)\s*=\s*(?P<op>\"?[a-z_]+\.[a-z_0-9.]+\"?)"
                  r"(?P<rest>.*)$")
_USE = re.compile(r"%[\w$.\-]+")
_INDEX = re.compile(r"\[\s*(%[\w$.\-]+)\s*\]")
_BLOCK_ARGS = re.compile(r"^\s*\^[\w]+\((?P<args>[^)]*)\)")
_FUNC_HEAD = re.compile(r"^\s*func\.func\s+(?:private\s+)?@[\w$.]+\(")
_NAME = r"%[\w$.\-]+"
_BOUND = r"(?:%[\w$.\-]+|-?\d+)"
_FOR = re.compile(rf"^\s*(?:(?P<res>{_NAME})(?::\d+)?\s*=\s*)?(?P<op>scf\.for|affine\.for)\s+(?P<iv>{_NAME})\s*=\s*"
                  rf"(?P<lb>{_BOUND})\s+to\s+(?P<ub>{_BOUND})(?:\s+step\s+(?P<step>{_BOUND}))?"
                  r"(?:\s+iter_args\((?P<iters>[^)]*)\))?")
_INT_CONST = re.compile(r"^arith\.constant\s+(-?\d+|true|false)\b")
_OFFSET_ATTR = re.compile(r"\b(?:offset|index|shift)\s*=\s*(-?\d+)")
_LAST_DIM = re.compile(r"tensor<(?:\d+x)*(\d+)x[a-z!]")
_SECRET_TYPES = ("!secret.secret", "!lwe.", "!bgv.", "!ckks.")
_SCHEME_DIALECTS = ("bgv", "bfv", "ckks", "openfhe", "lwe")  # their rotations act on ciphertexts
_MAX_STEPS = 2_000_000  # ops run in one counted output; beyond that the count gives up


class Counts:
    """Op counts in one tool's output (for HEIR's: ops run, loop trips included)."""

    def __init__(self, rotations: int = 0, muls: int = 0, relins: int = 0, slot_accesses: int = 0,
                 ops: dict[str, int] | None = None) -> None:
        self.rotations = rotations
        self.muls = muls
        self.relins = relins
        self.slot_accesses = slot_accesses  # tensor.extract / insert left (a lowering pays rotations for them)
        self.ops = ops if ops is not None else {}
        self.unknown_loops = 0  # loops of HEIR's output whose trip count was not a constant: body counted once

    def __repr__(self) -> str:
        return (f"Counts(rotations={self.rotations}, muls={self.muls}, relins={self.relins}, "
                f"slot_accesses={self.slot_accesses})")

    def add(self, other: Counts) -> None:
        self.rotations += other.rotations
        self.muls += other.muls
        self.relins += other.relins
        self.slot_accesses += other.slot_accesses
        self.unknown_loops += other.unknown_loops
        for k, v in other.ops.items():
            self.ops[k] = self.ops.get(k, 0) + v

    def add_max(self, a: Counts, b: Counts) -> None:
        """Add the larger of ``a`` and ``b``, field by field (the two branches of an ``scf.if``
        whose condition is not a constant: at most one runs)."""
        self.add(Counts(max(a.rotations, b.rotations), max(a.muls, b.muls), max(a.relins, b.relins),
                        max(a.slot_accesses, b.slot_accesses),
                        {k: max(a.ops.get(k, 0), b.ops.get(k, 0)) for k in {*a.ops, *b.ops}}))
        self.unknown_loops += max(a.unknown_loops, b.unknown_loops)


class _Op:
    """One op line of an MLIR text and the regions it opens (a line ending in ``{`` opens one,
    ``} else {`` closes it and opens the next)."""

    __slots__ = ("line", "regions")

    def __init__(self, line: str) -> None:
        self.line = line
        self.regions: list[list[_Op]] = []


def _tree(text: str) -> list[_Op]:
    """The ops of ``text`` nested by their regions (HEIR prints one op per line)."""
    top: list[_Op] = []
    stack: list[tuple[_Op | None, list[_Op]]] = [(None, top)]
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        if line.startswith("}"):
            owner = stack.pop()[0] if len(stack) > 1 else None
            if owner is not None and line.endswith("{"):
                owner.regions.append([])
                stack.append((owner, owner.regions[-1]))
            continue
        op = _Op(line)
        stack[-1][1].append(op)
        if line.endswith("{"):
            op.regions.append([])
            stack.append((op, op.regions[-1]))
    return top


def _functions(ops: list[_Op]) -> list[_Op]:
    found: list[_Op] = []
    for op in ops:
        if _FUNC_HEAD.match(op.line):
            found.append(op)
        else:
            for region in op.regions:
                found.extend(_functions(region))
    return found


def _func_args(line: str) -> list[tuple[str, str]]:
    """``(name, type)`` of each argument of a ``func.func`` line (balanced parentheses)."""
    start = line.index("(", line.index("@")) + 1
    depth, end = 1, start
    while depth and end < len(line):
        depth += {"(": 1, ")": -1}.get(line[end], 0)
        end += 1
    args = []
    for arg in _top_level_split(line[start:end - 1], ","):
        name, _, ty = arg.partition(":")
        if name.strip().startswith("%"):
            args.append((name.strip(), ty))
    return args


def _results(m: re.Match[str]) -> list[str]:
    return [r.strip().split(":")[0] for r in m.group("res").split(",")]


def _operands(rest: str) -> list[str]:
    return _USE.findall(rest.split(":")[0])


def _yields(op: _Op) -> list[list[str]]:
    """The operands of each region's ``*.yield`` terminator."""
    out = []
    for region in op.regions:
        for inner in region:
            head = inner.line.split(" ", 1)
            if head[0].endswith(".yield"):
                out.append(_operands(head[1] if len(head) > 1 else ""))
    return out


def _iter_args(m: re.Match[str]) -> list[tuple[str, str]]:
    pairs = []
    for part in (m.group("iters") or "").split(","):
        name, _, init = part.partition("=")
        if name.strip():
            pairs.append((name.strip(), init.strip()))
    return pairs


def _taint(ops: list[_Op], secret: set[str], parent: _Op | None) -> None:
    """One pass of secret propagation over ``ops`` (``_secrets`` repeats it to a fixpoint: a
    loop's carried value turns secret when its yield does)."""
    for op in ops:
        line = op.line
        b = _BLOCK_ARGS.match(line)
        if b:
            if parent is not None and (parent.line.split("=", 1)[-1].lstrip().startswith("secret.generic") or
                                       any(u in secret for u in _operands(parent.line.split("=", 1)[-1]))):
                secret.update(a.split(":")[0].strip() for a in b.group("args").split(",") if a.strip())
            continue
        f = _FOR.match(line)
        if f:
            carried = _iter_args(f)
            ys = _yields(op)
            for i, (name, init) in enumerate(carried):
                if init in secret or (ys and i < len(ys[0]) and ys[0][i] in secret):
                    secret.add(name)
            for region in op.regions:
                _taint(region, secret, op)
            if f.group("res") and any(name in secret for name, _ in carried):
                secret.add(f.group("res"))
            continue
        for region in op.regions:
            _taint(region, secret, op)
        m = _DEF.match(line)
        if not m or m.group("op").strip('"') == "arith.constant":
            continue
        rest = m.group("rest")
        if (any(u in secret for u in _operands(rest)) or any(t in rest for t in _SECRET_TYPES)
                or any(u in secret for ys in _yields(op) for u in ys)):
            secret.update(_results(m))


def _secrets(func: _Op, args: set[str]) -> set[str]:
    secret = set(args)
    while True:
        size = len(secret)
        for region in func.regions:
            _taint(region, secret, func)
        if len(secret) == size:
            return secret


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


_INT_OPS: dict[str, Any] = {
    "addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
    "floordivsi": lambda a, b: a // b, "divsi": _c_div, "divui": lambda a, b: a // b,
    "ceildivsi": lambda a, b: -(-a // b), "ceildivui": lambda a, b: -(-a // b),
    "remsi": lambda a, b: a - b * _c_div(a, b), "remui": lambda a, b: a % b,
    "minsi": min, "maxsi": max, "minui": min, "maxui": max,
    "andi": lambda a, b: a & b, "ori": lambda a, b: a | b, "xori": lambda a, b: a ^ b,
    "shli": lambda a, b: a << b, "shrsi": lambda a, b: a >> b, "shrui": lambda a, b: a >> b,
}
_CASTS = ("index_cast", "index_castui", "extsi", "extui", "trunci", "bitcast")
_CMP: dict[str, Any] = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b,
    "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b, "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b,
    "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b,
}


class _Runner:
    """Runs a function of HEIR's output the way it executes: every ``scf.for`` /
    ``affine.for`` with constant bounds once per trip (its induction variable bound, so index
    arithmetic, ``scf.if`` conditions and rotation offsets take their per-trip values), the
    taken branch of an ``scf.if`` (both unknown: the larger count).  Counted per op run:
    rotations of a secret value by an offset that is not 0 (mod the slot count) at run time,
    ct x ct muls, relinearizations, slot accesses on secret values."""

    def __init__(self, secret: set[str]) -> None:
        self.secret = secret
        self.env: dict[str, int] = {}  # integer / index values known at this point of the run
        self.steps = 0

    def value(self, token: str | None) -> int | None:
        if token is None:
            return None
        if re.fullmatch(r"-?\d+", token):
            return int(token)
        return self.env.get(token)

    def run(self, ops: list[_Op], c: Counts) -> None:
        for op in ops:
            self.steps += 1
            if self.steps > _MAX_STEPS:
                raise ValueError(f"more than {_MAX_STEPS} ops run")
            f = _FOR.match(op.line)
            if f:
                self.loop(f, op, c)
                continue
            m = _DEF.match(op.line)
            if m is None:
                for region in op.regions:
                    self.run(region, c)
                continue
            name = m.group("op").strip('"')
            if name == "scf.if" and len(op.regions) in (1, 2):
                self.branch(m, op, c)
                continue
            self.scalar(name, m)
            self.count(name, m, op.line, c)
            for region in op.regions:
                self.run(region, c)

    def loop(self, f: re.Match[str], op: _Op, c: Counts) -> None:
        lb, ub = self.value(f.group("lb")), self.value(f.group("ub"))
        step = self.value(f.group("step")) if f.group("step") else 1
        iv = f.group("iv")
        if lb is None or ub is None or not step or step < 0:
            c.unknown_loops += 1
            self.env.pop(iv, None)
            for region in op.regions:
                self.run(region, c)
            return
        for i in range(lb, ub, step):
            self.env[iv] = i
            for region in op.regions:
                self.run(region, c)

    def branch(self, m: re.Match[str], op: _Op, c: Counts) -> None:
        operands = _operands(m.group("rest"))
        cond = self.value(operands[0]) if operands else None
        if cond is not None:
            if cond:
                self.run(op.regions[0], c)
            elif len(op.regions) == 2:
                self.run(op.regions[1], c)
            return
        then, other = Counts(), Counts()
        self.run(op.regions[0], then)
        if len(op.regions) == 2:
            self.run(op.regions[1], other)
        c.add_max(then, other)

    def scalar(self, name: str, m: re.Match[str]) -> None:
        """Bind the value of an integer / index op whose operands are known."""
        res = _results(m)[0]
        self.env.pop(res, None)
        rest = m.group("rest")
        if name == "arith.constant":
            k = _INT_CONST.match(name + rest)
            if k and "tensor<" not in rest and "vector<" not in rest:
                word = k.group(1)
                self.env[res] = int(word == "true") if word in ("true", "false") else int(word)
            return
        if not name.startswith("arith.") or "tensor<" in rest or "vector<" in rest:
            return
        short = name.split(".", 1)[1]
        args = [self.value(u) for u in _operands(rest)]
        if any(a is None for a in args):
            return
        vals = [a for a in args if a is not None]
        if short in _INT_OPS and len(vals) == 2:
            if short in ("floordivsi", "divsi", "divui", "ceildivsi", "ceildivui", "remsi", "remui") and vals[1] == 0:
                return
            self.env[res] = int(_INT_OPS[short](vals[0], vals[1]))
        elif short in _CASTS and len(vals) == 1:
            self.env[res] = vals[0]
        elif short == "cmpi" and len(vals) == 2:
            pred = rest.strip().split(",", 1)[0].strip()
            if pred in _CMP:
                self.env[res] = int(_CMP[pred](vals[0], vals[1]))
        elif short == "select" and len(vals) == 3:
            self.env[res] = vals[1] if vals[0] else vals[2]

    def count(self, op: str, m: re.Match[str], line: str, c: Counts) -> None:
        c.ops[op] = c.ops.get(op, 0) + 1
        rest = m.group("rest")
        operands = _operands(rest)
        short = op.split(".", 1)[1]
        if "rotate" in short:
            scheme_op = op.split(".", 1)[0] in _SCHEME_DIALECTS  # rotates ciphertexts only
            if not scheme_op and (not operands or operands[0] not in self.secret):
                return  # a plaintext (e.g. a diagonal of a constant matrix) rotated: no key switch
            attr = _OFFSET_ATTR.search(rest)
            offset = int(attr.group(1)) if attr else self.value(operands[1] if len(operands) > 1 else None)
            dim = _LAST_DIM.search(rest)
            slots = int(dim.group(1)) if dim else 0
            if offset is not None and (offset == 0 or (slots and offset % slots == 0)):
                return  # a rotation by 0 at run time: no op
            c.rotations += 1
        elif short == "relinearize":
            c.relins += 1
        elif op in ("tensor.extract", "tensor.insert"):
            if not any(u in self.secret for u in operands):
                return
            idx = _INDEX.search(rest)
            slot0 = op == "tensor.extract" and idx is not None and self.value(idx.group(1)) == 0
            # not a ciphertext of a packed list; reading slot 0 is free (eqsat counts it so too)
            c.slot_accesses += "!ct" not in line and "!lwe." not in line and not slot0
        else:
            both_secret = len(operands) >= 2 and all(u in self.secret for u in operands[:2])
            c.muls += op in ("bgv.mul", "ckks.mul", "bfv.mul") or (op in ("arith.muli", "arith.mulf") and both_secret)


def count_heir(text: str) -> Counts:
    """Rotations, ct x ct muls, relinearizations and slot accesses HEIR's output runs.

    A value is secret when it is a block argument of a ``secret.generic`` body (or of a
    region whose op takes a secret operand), has a secret, LWE or scheme ciphertext type, or
    is computed from a secret value; a loop-carried value (``iter_args``) is secret when its
    initial or its yielded value is (propagated to a fixpoint).  Rotations count only of a
    secret value (HEIR's kernels also rotate plaintext diagonals, which costs no key switch)
    or by a scheme dialect's op (``bgv.rotate_cols`` ...: ciphertexts by definition);
    ``arith.mul*`` counts as ct x ct only when both operands are secret; ``bgv.mul`` /
    ``ckks.mul`` are ct x ct by definition (their plaintext forms are ``*.mul_plain``).  A text
    with no secret marking at all has every function argument secret (eqsat's plain-MLIR
    convention).

    Counts are of ops *run*, not ops printed: the function is executed symbolically
    (``_Runner``) -- a loop with constant bounds (``scf.for``, ``affine.for``) runs its body
    once per trip with the induction variable bound, index arithmetic (``arith.addi`` / ``muli``
    / ``cmpi`` / ``select`` / casts ...) is evaluated, so a rotation whose offset is 0 (mod the
    slot count) on some trip, as HEIR's baby-step loops start, is a no-op and not counted on
    that trip; an ``scf.if`` runs its taken branch (condition unknown: the larger of the two
    counts); a loop whose bounds are not constants counts its body once
    (``Counts.unknown_loops`` says how many).  Straight-line outputs count as before.

    The kernel's function counts: where HEIR marks its functions' roles (``heir.interface``, the
    ``--mlir-to-bgv`` output: ``@k__preprocessing`` encodes the constants, ``@k__preprocessed``
    with role ``server.evaluate`` computes, ``@k`` calls the two, client encrypt/decrypt
    helpers follow), every ``server.evaluate`` function; else the first function."""
    funcs = _functions(_tree(text))
    # without roles, HEIR appends client helpers (encrypt / decrypt) after the kernel: not counted
    funcs = [f for f in funcs if "server.evaluate" in f.line] if "heir.interface" in text else funcs[:1]
    plain_args_secret = "secret" not in text  # no secret marking at all: every argument is secret
    c = Counts()
    for func in funcs:
        args = {name for name, ty in _func_args(func.line)
                if plain_args_secret or any(w in ty for w in ("secret", "lwe", "bgv", "ckks", "!ct"))}
        runner = _Runner(_secrets(func, args))
        for region in func.regions:
            runner.run(region, c)
    return c


# -- runs --------------------------------------------------------------------------------

class Run:
    """One tool on one kernel: status, the wall seconds of each repeat, the counts."""

    def __init__(self, status: str, seconds: list[float], counts: Counts | None = None) -> None:
        self.status = status
        self.seconds = seconds
        self.counts = counts


def _timed(cmd: list[str], timeout: float, env: dict[str, str] | None = None) -> tuple[int, str, str, float]:
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired:
        return -1, "", "timeout", time.perf_counter() - start
    return proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - start


def _first_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if "error" in ln.lower()] or err.splitlines() or [""]
    return lines[0].strip()[:160]


def _json_report(out: str) -> dict[str, Any]:
    """The report object on stdout (tolerating a banner line before it)."""
    i = out.find("{")
    obj, _ = json.JSONDecoder().raw_decode(out[i:])
    assert isinstance(obj, dict)
    return obj


def _eqsat_counts(report: dict[str, Any]) -> Counts:
    ops = report["after"]["ops"]
    assert isinstance(ops, dict)
    return Counts(int(ops.get("rotate", 0)), int(ops.get("mul", 0)), int(ops.get("relinearize", 0)),
                  int(ops.get("extract", 0)) + int(ops.get("insert", 0)), dict(ops))


class Eqsat:
    """How eqsat is run: ``cold`` (own process, no server) or ``warm`` (through the server this
    object starts in a private socket folder, ``start``/``stop``)."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="eqsat-vs-heir-"))
        runtime = self.tmp / "run"
        runtime.mkdir(mode=0o700)
        self.warm_env = {k: v for k, v in os.environ.items() if k != "EQSAT_NO_SERVER"}
        self.warm_env["XDG_RUNTIME_DIR"] = str(runtime)
        self.cold_env = dict(self.warm_env, EQSAT_NO_SERVER="1")
        self.started = False

    def start(self) -> None:
        """Start ``eqsat serve`` and check that a command reaches it."""
        subprocess.run([*eqsat_command(), "serve", "start"], env=self.warm_env, cwd=ROOT, check=True,
                       capture_output=True, text=True)
        self.started = True
        status = subprocess.run([*eqsat_command(), "serve", "status"], env=self.warm_env, cwd=ROOT,
                                capture_output=True, text=True)
        if "requests served" not in status.stdout + status.stderr:
            raise SystemExit(f"vs_heir: eqsat serve did not start: {status.stdout}{status.stderr}")

    def stop(self) -> None:
        if self.started:
            subprocess.run([*eqsat_command(), "serve", "stop"], env=self.warm_env, cwd=ROOT, capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run(self, path: Path, timeout: float, mode: str) -> Run:
        """One ``eqsat optimize --json`` command, ``cold`` or ``warm``: wall clock of the whole command."""
        env = self.warm_env if mode == "warm" else self.cold_env
        rc, out, err, secs = _timed([*eqsat_command(), "optimize", str(path), "--json"], timeout, env)
        if rc != 0:
            return Run("timeout" if rc == -1 else f"rejected: {_first_line(err)}", [secs])
        return Run("ok", [secs], _eqsat_counts(_json_report(out)))

    def batch(self, paths: list[Path], timeout: float) -> tuple[dict[Path, Run], float]:
        """One ``eqsat optimize P1 P2 ... --out-dir D --json`` process (no server): per kernel
        its report's ``time_s`` + ``timings.parse``; and the process's wall clock."""
        out_dir = self.tmp / "batch"
        rc, out, err, secs = _timed([*eqsat_command(), "optimize", *map(str, paths), "--out-dir", str(out_dir),
                                     "--json", "--quiet"], timeout, self.cold_env)
        runs: dict[Path, Run] = {}
        reports: dict[str, Any] = {}
        if rc in (0, 2) and out.strip():
            reports = _json_report(out)
        for p in paths:
            rep = reports.get(str(p))
            if rep is None:
                runs[p] = Run("timeout" if rc == -1 else f"batch failed: {_first_line(err)}", [0.0])
            elif "error" in rep:
                runs[p] = Run(f"rejected: {str(rep['error'])[:160]}", [0.0])
            else:
                t = float(rep["time_s"]) + float(rep.get("timings", {}).get("parse", 0.0))
                runs[p] = Run("ok", [t], _eqsat_counts(rep))
        return runs, secs


def run_eqsat(path: Path, timeout: float) -> Run:
    """A cold ``eqsat optimize --json`` process (no server)."""
    runner = Eqsat()
    try:
        return runner.run(path, timeout, "cold")
    finally:
        runner.stop()


def _top_level_split(text: str, sep: str) -> list[str]:
    """``text`` split at each ``sep`` outside brackets (``<>``, ``()``, ``[]``, ``{}``)."""
    parts, depth, cur = [], 0, ""
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}" and not (ch == ">" and text[i - 1:i] == "-"):  # not the arrow of ``->``
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]


def current_secret_syntax(text: str) -> str:
    """``text`` with the older ``secret.generic ins(%a, %b : T1, T2)`` form (HEIR's lit tests
    of earlier releases, which the kernels copied) written as HEIR's current parser reads it,
    ``secret.generic(%a: T1, %b: T2)``; the same program.  Text without it, or where the form is
    malformed (unbalanced, as many names as types missing), is returned as is: HEIR's parser
    then reports it."""
    out, pos = [], 0
    key = "secret.generic ins("
    while (at := text.find(key, pos)) >= 0:
        start = at + len(key)
        depth, end = 1, start
        while depth and end < len(text):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        names, _, types = text[start:end - 1].partition(" : ")
        name_list, type_list = _top_level_split(names, ","), _top_level_split(types, ",")
        if depth or not types or len(name_list) != len(type_list):
            return text
        pairs = ", ".join(f"{n.strip()}: {t.strip()}" for n, t in zip(name_list, type_list, strict=True))
        out.append(text[pos:at] + "secret.generic(" + pairs + ")")
        pos = end
    return "".join(out) + text[pos:]


def heir_input(path: Path, folder: Path) -> Path:
    """The file to hand ``heir-opt`` for the kernel at ``path``: itself, or a copy in
    ``folder`` in HEIR's current ``secret.generic`` syntax (``current_secret_syntax``)."""
    text = path.read_text()
    new = current_secret_syntax(text)
    if new == text:
        return path
    copy = folder / path.name
    copy.write_text(new)
    return copy


def run_heir(heir_opt: Path, path: Path, pipeline: list[str], timeout: float) -> Run:
    rc, out, err, secs = _timed([str(heir_opt), *pipeline, str(path)], timeout)
    if rc != 0:
        return Run("timeout" if rc == -1 else f"failed: {_first_line(err.replace(str(path), path.name))}", [secs])
    try:
        counts = count_heir(out)
    except ValueError as e:  # an output that runs more ops than the counter executes
        return Run(f"uncounted: {e}", [secs])
    if counts.unknown_loops:
        print(f"vs_heir: {path.name}: {counts.unknown_loops} loops of HEIR's output have no constant trip count; "
              "their bodies are counted once", file=sys.stderr)
    return Run("ok", [secs], counts)


def _merge(acc: Run | None, new: Run) -> Run:
    if acc is None:
        return new
    acc.seconds += new.seconds
    return acc


def measure(path: Path, heir_opt: Path | None, repeats: int, timeout: float,
            modes: tuple[str, ...] = ("cold",), runner: Eqsat | None = None,
            batch: dict[str, Run] | None = None) -> dict[str, Any]:
    """One kernel's row: the per-process modes (cold, warm) and HEIR alternating, ``repeats``
    times; ``batch`` holds the batch mode's runs when it was measured (``Eqsat.batch``)."""
    pipe_name = pipeline_name(path.read_text())
    row: dict[str, Any] = {"kernel": path.stem, "source": path.parent.name,
                           "heir_pipeline": pipe_name, "repeats": repeats, "eqsat_mode": modes[0],
                           "load_avg": round(os.getloadavg()[0], 2)}
    own = runner or Eqsat()
    per: dict[str, Run | None] = {m: None for m in modes}
    if batch is not None and "batch" in modes:
        per["batch"] = batch.get(path.stem)
    he: Run | None = None
    heir_dir = Path(tempfile.mkdtemp(prefix="eqsat-vs-heir-"))
    heir_path = heir_input(path, heir_dir)
    try:
        for _ in range(repeats):  # alternate the tools so a drift in machine load hits all
            for mode in (m for m in modes if m != "batch"):
                per[mode] = _merge(per[mode], own.run(path, timeout, mode))
                if mode == "warm":
                    time.sleep(SETTLE_S)  # the server's next spare is made apart from the next run
            if heir_opt is not None and pipe_name:
                he = _merge(he, run_heir(heir_opt, heir_path, PIPELINES[pipe_name], timeout))
            if any(r is not None and r.status == "timeout" for r in [*per.values(), he]):
                break  # one timeout is the finding; do not pay it again
    finally:
        shutil.rmtree(heir_dir, ignore_errors=True)
        if runner is None:
            own.stop()
    for mode, r in per.items():
        if r is not None and r.status == "ok":
            row[f"eqsat_{mode}_s"] = round(statistics.median(r.seconds), 3)
    eq = per[modes[0]]
    for prefix, r in (("eqsat", eq), ("heir", he)):
        if r is None:
            row[f"{prefix}_status"] = ("not run" if prefix == "eqsat" else
                                       "no heir-opt" if heir_opt is None else "no HEIR dialect (noisy)")
            continue
        row[f"{prefix}_status"] = r.status
        row[f"{prefix}_s"] = round(statistics.median(r.seconds), 3)
        if r.counts is not None:
            row[f"{prefix}_rotations"] = r.counts.rotations
            row[f"{prefix}_muls"] = r.counts.muls
            row[f"{prefix}_relins"] = r.counts.relins
            row[f"{prefix}_slot_accesses"] = r.counts.slot_accesses
            # a slot access left in the output costs a rotation in any lowering
            row[f"{prefix}_moves"] = r.counts.rotations + r.counts.slot_accesses
    if eq is not None and he is not None and eq.status == he.status == "ok":
        row["time_ratio"] = round(float(row["eqsat_s"]) / max(float(row["heir_s"]), 1e-9), 2)
        if row.get("eqsat_cold_s") is not None:
            row["cold_ratio"] = round(float(row["eqsat_cold_s"]) / max(float(row["heir_s"]), 1e-9), 2)
    return row


# -- output ------------------------------------------------------------------------------

def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    both = [r for r in rows if r.get("eqsat_status") == "ok" and r.get("heir_status") == "ok"]
    both.sort(key=lambda r: float(r["heir_s"]))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(16, max(5.0, 0.22 * len(both) + 2)),
                                   gridspec_kw={"width_ratios": [3, 2]})
    names = [str(r["kernel"]) for r in both]
    ys = range(len(both))
    h = 0.4
    ax1.barh([y - h / 2 for y in ys], [float(r["eqsat_s"]) for r in both], h,
             color="tab:blue", label=f"eqsat optimize ({both[0].get('eqsat_mode', 'cold') if both else ''})")
    ax1.barh([y + h / 2 for y in ys], [float(r["heir_s"]) for r in both], h,
             color="tab:orange", label="heir-opt")
    ax1.set_yticks(list(ys), names, fontsize=7)
    ax1.set_xscale("log")
    ax1.set_xlabel(f"wall seconds per run (median of {both[0]['repeats'] if both else '-'}), log scale")
    tot_e = sum(float(r["eqsat_s"]) for r in both)
    tot_h = sum(float(r["heir_s"]) for r in both)
    ax1.set_title(f"Wall time per kernel (total: eqsat {tot_e:.1f} s, HEIR {tot_h:.1f} s)")
    ax1.legend(loc="lower right")
    ax1.grid(axis="x", alpha=0.3)

    # moves = rotations + reads of a slot other than 0 (a rotation in any lowering): the fair count,
    # since HEIR's outputs end with such an extract where eqsat's rotate first
    key = "moves" if all(r.get("eqsat_moves") not in (None, "") for r in both) else "rotations"
    er = [int(r[f"eqsat_{key}"]) for r in both]
    hr = [int(r[f"heir_{key}"]) for r in both]
    top = max([*er, *hr, 1]) * 1.5
    ax2.plot([0, top], [0, top], color="grey", lw=1, label="equal")
    worse = [i for i in range(len(both)) if er[i] > hr[i]]
    ok = [i for i in range(len(both)) if er[i] <= hr[i]]
    ax2.scatter([hr[i] for i in ok], [er[i] for i in ok], color="tab:blue", alpha=0.6,
                label=f"eqsat <= HEIR ({len(ok)} kernels)")
    ax2.scatter([hr[i] for i in worse], [er[i] for i in worse], color="tab:red", marker="x",
                label=f"eqsat > HEIR ({len(worse)} kernels)")
    for i in worse:
        ax2.annotate(names[i], (hr[i], er[i]), fontsize=6, xytext=(3, 3), textcoords="offset points")
    # symlog: 0 stays a value, and one 1,000-rotation kernel does not squash the rest
    ax2.set_xscale("symlog", linthresh=1)
    ax2.set_yscale("symlog", linthresh=1)
    ax2.set_xlim(-0.2, top)
    ax2.set_ylim(-0.2, top)
    ax2.set_xlabel(f"HEIR {key}")
    ax2.set_ylabel(f"eqsat {key}")
    ax2.set_title(f"{key.capitalize()} in the output (below the line: eqsat uses fewer)")
    ax2.legend(loc="upper left")
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _num(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The README's per-kernel table of a run's rows (as ``vs_heir.csv`` holds them): seconds
    per eqsat mode and HEIR's, the ratios, rotations and moves; slowest warm (else headline) first."""
    def cell(v: float | None, fmt: str = "{:.2f}") -> str:
        return "" if v is None else fmt.format(v)

    def key(r: dict[str, Any]) -> float:
        return -(_num(r.get("eqsat_warm_s")) or _num(r.get("eqsat_s")) or 0.0)

    lines = ["| kernel | eqsat warm | batch | cold | HEIR | warm / HEIR | batch / HEIR | rotations eqsat / HEIR "
             "| moves eqsat / HEIR |", "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=key):
        heir = _num(r.get("heir_s")) if r.get("heir_status") == "ok" else None
        warm, batch, cold = (_num(r.get(f"eqsat_{m}_s")) for m in ("warm", "batch", "cold"))
        status = str(r.get("heir_status", ""))
        heir_cell = cell(heir) if heir is not None else (
            "- (noisy dialect)" if status.startswith("no HEIR dialect") else "fails" if status else "")
        rot_h = r.get("heir_rotations", "-") if heir is not None else "-"
        mov_h = r.get("heir_moves", "-") if heir is not None else "-"
        lines.append(" | ".join([
            f"| {r['kernel']}", cell(warm), cell(batch), cell(cold), heir_cell,
            cell(warm / heir if warm is not None and heir else None, "{:.1f}"),
            cell(batch / heir if batch is not None and heir else None, "{:.1f}"),
            f"{r.get('eqsat_rotations', '-')} / {rot_h}", f"{r.get('eqsat_moves', '-')} / {mov_h} |"]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="runs per tool and kernel; the median is kept (default 3)")
    ap.add_argument("--only", default="", help="comma-separated name parts; keep kernels matching any (default: all)")
    ap.add_argument("--timeout", type=float, default=600.0, help="wall seconds per single run (default 600)")
    ap.add_argument("--out", type=Path, default=OUT, help="output folder for vs_heir.csv and vs_heir.png")
    ap.add_argument("--modes", default=",".join(MODES),
                    help="how eqsat runs, comma-separated, the first is the headline eqsat_s: warm (eqsat serve), "
                         "batch (one process for all kernels), cold (own process per kernel) (default: %(default)s)")
    ap.add_argument("--table", type=Path, metavar="CSV",
                    help="print the per-kernel markdown table of an earlier run's vs_heir.csv and exit")
    args = ap.parse_args(argv)
    if args.table is not None:
        with args.table.open() as f:
            table_rows = list(csv.DictReader(f))
        print(markdown_table(table_rows))
        return table_rows
    modes = tuple(m for m in args.modes.split(",") if m)
    if not modes or any(m not in MODES for m in modes):
        ap.error(f"--modes takes a comma-separated subset of {', '.join(MODES)}")
    heir_opt = find_heir_opt()
    if heir_opt is None:
        print("vs_heir: heir-opt not found (pip install -e '.[heir]'); skipping the HEIR comparison", file=sys.stderr)
        return []
    parts = [p for p in args.only.split(",") if p]
    todo = [p for p in kernels() if not parts or any(s in p.stem for s in parts)]
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    runner = Eqsat()
    batch: dict[str, Run] | None = None
    batch_walls: list[float] = []
    try:
        if "warm" in modes:
            runner.start()
        if "batch" in modes:  # first, on its own: one process over all kernels per repeat
            batch = {}
            for _ in range(args.repeats):
                runs, wall = runner.batch(todo, args.timeout * len(todo))
                batch_walls.append(wall)
                for p, r in runs.items():
                    batch[p.stem] = _merge(batch.get(p.stem), r)
        with (args.out / "vs_heir.csv").open("w", newline="") as f:
            w = csv.DictWriter(f, FIELDS)
            w.writeheader()
            for path in todo:
                row = measure(path, heir_opt, args.repeats, args.timeout, modes, runner, batch)
                rows.append(row)
                w.writerow(row)
                f.flush()
                print(", ".join(f"{k}={row.get(k, '')}" for k in FIELDS if k not in ("source", "repeats")),
                      flush=True)
    finally:
        runner.stop()
    plot(rows, args.out / "vs_heir.png")
    both = [r for r in rows if r.get("time_ratio") is not None]
    if both:
        tot_h = sum(float(r["heir_s"]) for r in both)
        for mode in modes:
            col = [float(r[f"eqsat_{mode}_s"]) for r in both if r.get(f"eqsat_{mode}_s") is not None]
            extra = ""
            if mode == "batch" and batch_walls:
                wall = statistics.median(batch_walls)
                startup = wall - sum(float(r.get("eqsat_batch_s") or 0.0) for r in rows)
                extra = f" + {startup:.1f} s paid once by the batch process (wall {wall:.1f} s, {len(todo)} kernels)"
            print(f"eqsat {mode}: {sum(col):.1f} s over {len(col)} kernels{extra}")
        tot_e = sum(float(r["eqsat_s"]) for r in both)
        slow = [str(r["kernel"]) for r in both if float(r["time_ratio"]) > 2.0]
        more = [str(r["kernel"]) for r in both if int(r["eqsat_moves"]) > int(r["heir_moves"])]
        print(f"total wall over {len(both)} kernels: eqsat ({modes[0]}) {tot_e:.1f} s, HEIR {tot_h:.1f} s "
              f"(ratio {tot_e / max(tot_h, 1e-9):.2f}); slower than 2x HEIR: {len(slow)} kernels; "
              f"eqsat has more moves (rotations + slot accesses) on: {', '.join(more) or 'none'}")
    return rows


if __name__ == "__main__":
    main()
    sys.exit(0)
