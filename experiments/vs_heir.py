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
  places relinearizations and modulus switches).

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
HEIR's output: rotations (any ``*.rotate*`` op), ct x ct multiplications (``bgv.mul`` /
``ckks.mul``, or an ``arith.mul*`` whose two operands both depend on a secret value) and
relinearizations (any ``*.relinearize`` op; the vectorizer pipeline places none, so its
count is 0 by construction and the CSV says which pipeline ran).  eqsat's counts are its
report's ``after.ops``.  Noisy-dialect kernels (``noisy.*``) are eqsat's only; HEIR has no
such dialect, so they get no HEIR row.

Out: ``vs_heir.csv`` (kernel, pipeline, per tool: status, rotations, muls, relins, the
``tensor.extract``/``tensor.insert`` left in the output (a lowering pays rotations and masks
for them, so a low rotation count beside many slot accesses is not a win; an extract of slot
0 is free and not counted, as eqsat's report does), wall seconds; ``time_ratio`` = eqsat /
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
PIPELINES = {"vectorizer": VECTORIZER, "mlir-to-bgv": TO_BGV}

FIELDS = ["kernel", "source", "heir_pipeline",
          "eqsat_status", "eqsat_rotations", "eqsat_muls", "eqsat_relins", "eqsat_slot_accesses", "eqsat_s",
          "heir_status", "heir_rotations", "heir_muls", "heir_relins", "heir_slot_accesses", "heir_s",
          "time_ratio", "repeats", "eqsat_moves", "heir_moves",
          "eqsat_mode", "eqsat_warm_s", "eqsat_batch_s", "eqsat_cold_s", "cold_ratio", "load_avg"]
MODES = ("warm", "batch", "cold")


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


_DEF = re.compile(r"^\s*(?P<res>%[\w$.\-]+(?::\d+)?(?:\s*,\s*%[\w$.\-]+)*)\s*=\s*(?P<op>\"?[a-z_]+\.[a-z_0-9.]+\"?)"
                  r"(?P<rest>.*)$")
_USE = re.compile(r"%[\w$.\-]+")
_INDEX_CONST = re.compile(r"^\s*(%[\w$.\-]+)\s*=\s*arith\.constant\s+(-?\d+)\s*:\s*index")
_INDEX = re.compile(r"\[\s*(%[\w$.\-]+)\s*\]")
_BLOCK_ARGS = re.compile(r"^\s*\^[\w]+\((?P<args>[^)]*)\)")


class Counts:
    """Op counts in one tool's output."""

    def __init__(self, rotations: int = 0, muls: int = 0, relins: int = 0, slot_accesses: int = 0,
                 ops: dict[str, int] | None = None) -> None:
        self.rotations = rotations
        self.muls = muls
        self.relins = relins
        self.slot_accesses = slot_accesses  # tensor.extract / insert left (a lowering pays rotations for them)
        self.ops = ops if ops is not None else {}

    def __repr__(self) -> str:
        return (f"Counts(rotations={self.rotations}, muls={self.muls}, relins={self.relins}, "
                f"slot_accesses={self.slot_accesses})")


def count_heir(text: str) -> Counts:
    """Rotations, ct x ct muls and relinearizations in HEIR's output text.

    A value is secret when it is a ``secret.generic`` block argument, has a secret, LWE or
    scheme ciphertext type, or is computed from a secret value; ``arith.mul*`` counts as
    ct x ct only when both operands are secret.  ``bgv.mul``/``ckks.mul`` are ct x ct by
    definition (their plaintext forms are ``*.mul_plain``).  A text with no secret marking at
    all has every function argument secret (eqsat's plain-MLIR convention).  The kernel's
    function counts: where HEIR marks its functions' roles (``heir.interface``, the
    ``--mlir-to-bgv`` output: ``@k__preprocessing`` encodes the constants, ``@k__preprocessed``
    with role ``server.evaluate`` computes, ``@k`` calls the two, client encrypt/decrypt
    helpers follow), every ``server.evaluate`` function; else the first function."""
    secret: set[str] = set()
    index_consts: dict[str, int] = {}  # %c = arith.constant N : index
    c = Counts()
    funcs_seen = False
    by_role = "heir.interface" in text
    counting = True
    plain_args_secret = "secret" not in text  # no secret marking at all: every argument is secret
    for line in text.splitlines():
        fa = _FUNC.search(line)
        if fa:
            if by_role:
                counting = "server.evaluate" in line
            elif funcs_seen:
                break  # HEIR appends client helpers (encrypt / decrypt) after the kernel: not counted
            funcs_seen = True
            secret = set()
            index_consts = {}
            if counting:
                for arg in fa.group("args").split(","):
                    name, _, ty = arg.partition(":")
                    if plain_args_secret or any(w in ty for w in ("secret", "lwe", "bgv", "ckks", "!ct")):
                        secret.add(name.strip())
            continue
        if not counting:
            continue
        if "secret.secret" in line or "!lwe." in line or "!bgv." in line or "!ckks." in line:
            head = line.split("=", 1)[0] if "=" in line else ""
            for name in _USE.findall(head):
                secret.add(name)
        b = _BLOCK_ARGS.match(line)
        if b:
            for arg in b.group("args").split(","):
                name = arg.split(":")[0].strip()
                if name.startswith("%"):
                    secret.add(name)
            continue
        m = _DEF.match(line)
        if not m:
            continue
        op = m.group("op").strip('"')
        c.ops[op] = c.ops.get(op, 0) + 1
        const = _INDEX_CONST.match(line)
        if const:
            index_consts[const.group(1)] = int(const.group(2))
        operands = [u for u in _USE.findall(m.group("rest").split(":")[0])]
        results = [r.strip().split(":")[0] for r in m.group("res").split(",")]
        is_secret = any(u in secret for u in operands) or any(
            s in m.group("rest") for s in ("!secret.secret", "!lwe.", "!bgv.", "!ckks."))
        if is_secret and op != "arith.constant":
            secret.update(results)
        name = op.split(".", 1)[1]
        if "rotate" in name:
            c.rotations += 1
        elif name == "relinearize":
            c.relins += 1
        elif op in ("tensor.extract", "tensor.insert"):
            idx = _INDEX.search(m.group("rest"))
            slot0 = op == "tensor.extract" and idx is not None and index_consts.get(idx.group(1)) == 0
            # not a ciphertext of a packed list; reading slot 0 is free (eqsat counts it so too)
            c.slot_accesses += "!ct" not in line and "!lwe." not in line and not slot0
        else:
            both_secret = len(operands) >= 2 and all(u in secret for u in operands[:2])
            c.muls += op in ("bgv.mul", "ckks.mul", "bfv.mul") or (op in ("arith.muli", "arith.mulf") and both_secret)
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
        return Run("timeout" if rc == -1 else f"failed: {_first_line(err)}", [secs])
    return Run("ok", [secs], count_heir(out))


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
    text = path.read_text()
    k = kind(text)
    pipe_name = "" if k == "noisy" else ("vectorizer" if k == "tensor" else "mlir-to-bgv")
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
