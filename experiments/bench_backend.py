"""Per-operation latency of eqsat.backend next to SEAL (TenSEAL's sealapi) and OpenFHE.

In: nothing (optional ``--sizes 8192 16384``, ``--reps``, ``--quick``).  Out:
``experiments/out/bench_backend.csv`` (one row per N, scheme, op: our time, SEAL's,
OpenFHE's when available, and the ratio ours/SEAL) and
``experiments/out/bench_backend.png`` (bar chart of ours / SEAL per op, log scale).

Matched parameters: the same N, the same number and size of primes (ours: primes of
30 bits for BGV/BFV; CKKS: 3 primes of 31 bits -- two base primes and the special prime
-- plus 30-bit scaling primes; SEAL gets ``CoeffModulus.Create(N, same bit sizes)``,
whose last prime is likewise its special prime), one thread.  SEAL has no BGV: our
BGV is compared with SEAL's BFV (same ring, same primes, t = 65537), which is the
scheme a SEAL user would run for exact integer arithmetic; BFV multiplication does
more work than BGV's, so the mul ratio favours us.

OpenFHE (``openfhe``) ships wheels for Python 3.10 and 3.12 only (the 3.12 ones are
built on Ubuntu 24.04 and need libstdc++ >= GCC 13; the 3.10 ones, version suffix
.22.4, on Ubuntu 22.04).  So ``experiments/bench_openfhe.py`` runs in a separate venv,
``experiments/.venv-openfhe-py312`` or ``-py310``, created here on demand (``python3.X
-m venv`` + ``pip install openfhe``); the first whose ``import openfhe`` works is used,
and its JSON timings are merged.  If none works, the OpenFHE column is empty and the
CSV's note says why (``--no-openfhe`` skips it).  OpenFHE picks its own prime sizes (BGV
needs primes = 1 mod 2N*t, i.e. ~37 bits here); the CSV records them.  OpenFHE's
Python API exposes no bare NTT, so the NTT row compares with SEAL (and galois) only.
Timings: the median of ``reps`` runs after one warm-up.

What is timed: the median CPU time of ``reps`` calls after one warm-up, ours and SEAL's
interleaved call by call (so both see the same load on a shared machine).  Our ops run on
``Ciphertext.fresh()`` copies, so nothing an earlier call cached (the other polynomial
form, a key-switching decomposition) is reused.  Our CKKS ciphertexts are in NTT form
when fresh, as SEAL's; BGV ones in coefficient form, as SEAL's BFV ones.  ``mul_plain``
takes an already encoded plaintext (the executor encodes and NTTs each plaintext once
per key set); for BGV it includes the transform back to coefficient form, for CKKS it
does not (the result stays in NTT form, as SEAL's), and ``mul_plain+rescale`` is the
pair the CKKS lowering always runs.  ``8 rotations`` rotate one ciphertext
by 1, 2, 4, ..., 128: unhoisted (each rotation decomposes its input) and hoisted (one decomposition,
``RLWE.rotate_many``); SEAL's Python API has no hoisted rotation, so both rows compare
with 8 separate SEAL rotations (SEAL's default Galois keys are for
powers of two, so each is one key switch for both).  ``decrypt`` is decryption to slot
values (SEAL: decrypt + decode); ours also measures the noise (exact centered CRT of
the phase).  The SEAL NTT figure is (forward + inverse of a whole
ciphertext) / (4 * limbs).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from eqsat.backend.bgv import BGV
from eqsat.backend.ckks import CKKS
from eqsat.backend.params import HE_STANDARD, make_params

OUT = Path(__file__).resolve().parent / "out"
OPS = [
    "ntt (one limb)",
    "encrypt",
    "add",
    "mul_plain",
    "mul_plain+rescale",
    "mul+relinearize",
    "rotate",
    "8 rotations, unhoisted",
    "8 rotations, hoisted",
    "modswitch/rescale",
    "decrypt",
]
#: the core ops of the issue's goal (every one within GOAL x SEAL)
CORE = ("encrypt", "add", "mul_plain", "mul+relinearize", "rotate", "modswitch/rescale", "decrypt")
GOAL = 1.5


def timeit(fn: Callable[[], object], reps: int) -> float:
    """Median CPU time of fn() in microseconds (one warm-up call first).  CPU time of this
    process, not wall time: on a shared machine it counts only our own work."""
    fn()
    times = []
    for _ in range(reps):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times) * 1e6


#: a timed operation: (the call, repetitions, divisor of the measured time)
Job = tuple[Callable[[], object], int, float]


def job(fn: Callable[[], object], reps: int, per: float = 1.0) -> Job:
    return (fn, reps, per)


def run_jobs(ours: dict[str, Job], theirs: dict[str, Job]) -> tuple[dict[str, float], dict[str, float]]:
    """Median CPU microseconds per op, ours and SEAL's.  An op both sides have is timed
    *interleaved* (one call of ours, one of SEAL's, repeated): on a shared machine the
    load changes from second to second, and alternating exposes both to the same load."""
    mine: dict[str, float] = {}
    other: dict[str, float] = {}
    for op in dict.fromkeys([*ours, *theirs]):
        pair = [(d, out) for d, out in ((ours, mine), (theirs, other)) if op in d]
        samples: list[list[float]] = [[] for _ in pair]
        reps = max(d[op][1] for d, _ in pair)
        for d, _ in pair:
            d[op][0]()  # warm-up
        for _ in range(reps):
            for k, (d, _) in enumerate(pair):
                t0 = time.process_time()
                d[op][0]()
                samples[k].append(time.process_time() - t0)
        for (d, out), xs in zip(pair, samples, strict=True):
            out[op] = statistics.median(xs) * 1e6 / d[op][2]
    return mine, other


def levels_for(n: int, scheme: str) -> int:
    """As many 30-bit primes as 128-bit security allows at N."""
    bound = HE_STANDARD[n][0]
    if scheme == "bgv":
        return bound // 30 - 2  # ciphertext primes = levels + 1, plus P
    return (bound - 3 * 31) // 30


#: rotations of one ciphertext timed hoisted and unhoisted (powers of two: one key switch each in SEAL too)
ROT_STEPS = [1 << j for j in range(8)]


def _rotations(ev: Any, a: Any, hoisted: bool) -> Callable[[], object]:
    """The ROT_STEPS rotations of one ciphertext, hoisted or each from scratch."""
    ks = ROT_STEPS

    def run() -> object:
        ev.hoist = hoisted
        src = a.fresh()
        out = [ev.rotate(src if hoisted else src.fresh(), k) for k in ks]
        ev.hoist = True
        return out

    return run


def ours_bgv(n: int, reps: int) -> tuple[dict[str, Job], list[int]]:
    """Our BGV ops.  Every call works on ``fresh()`` copies, so no conversion or key-switch
    decomposition cached by an earlier call is reused; mul_plain takes a plaintext already
    encoded (as SEAL's multiply_plain does) and returns the coefficient form (as BFV's)."""
    p = make_params("bgv", n, levels_for(n, "bgv"))
    ev = BGV(p)
    rng = np.random.default_rng(0)
    row = [int(v) for v in rng.integers(0, p.t, n // 2)]
    a, b = ev.encrypt(row), ev.encrypt(row)
    pt = ev.plaintext(row, a.level)
    prod = ev.relinearize(ev.mul(a, b))
    ring = ev.ring(0)
    limb = ring.from_signed(rng.integers(-5, 5, n))
    res = {
        "ntt (one limb)": job(lambda: ring.tab.forward(limb), reps * 4),
        "encrypt": job(lambda: ev.encrypt(row), reps),
        "add": job(lambda: ev.add(a.fresh(), b.fresh()), reps),
        "mul_plain": job(lambda: ev._ct(ev._mul_const_poly(a.fresh(), pt), a.level).polys, reps),
        "mul+relinearize": job(lambda: ev.relinearize(ev.mul(a.fresh(), b.fresh())), reps),
        "rotate": job(lambda: ev.rotate(a.fresh(), 1), reps),
        "8 rotations, unhoisted": job(_rotations(ev, a, False), max(3, reps // 3)),
        "8 rotations, hoisted": job(_rotations(ev, a, True), max(3, reps // 3)),
        "modswitch/rescale": job(lambda: ev.modswitch(prod.fresh()), reps),
        "decrypt": job(lambda: ev.decrypt(a.fresh()), reps),
    }
    return res, [30] * (len(p.moduli) + 1)


def ours_ckks(n: int, reps: int) -> tuple[dict[str, Job], list[int]]:
    """Our CKKS ops on ``fresh()`` copies (fresh ciphertexts are in NTT form, as SEAL's)."""
    p = make_params("ckks", n, levels_for(n, "ckks"))
    ev = CKKS(p)
    rng = np.random.default_rng(0)
    row = list(rng.uniform(-1, 1, n // 2))
    a, b = ev.encrypt(row), ev.encrypt(row)
    pt = ev.plaintext(row, a.level, ev.canonical_scale(a.level))
    prod = ev.relinearize(ev.mul(a, b))
    res = {
        "encrypt": job(lambda: ev.encrypt(row), reps),
        "add": job(lambda: ev.add(a.fresh(), b.fresh()), reps),
        "mul_plain": job(lambda: ev._mul_const_poly(a.fresh(), pt), reps),
        "mul_plain+rescale": job(
            lambda: ev.rescale(ev._ct(ev._mul_const_poly(a.fresh(), pt), a.level, scale=a.scale**2)), reps
        ),
        "mul+relinearize": job(lambda: ev.relinearize(ev.mul(a.fresh(), b.fresh())), reps),
        "rotate": job(lambda: ev.rotate(a.fresh(), 1), reps),
        "8 rotations, unhoisted": job(_rotations(ev, a, False), max(3, reps // 3)),
        "8 rotations, hoisted": job(_rotations(ev, a, True), max(3, reps // 3)),
        "modswitch/rescale": job(lambda: ev.rescale(prod.fresh()), reps),
        "decrypt": job(lambda: ev.decrypt(a.fresh()), reps),
    }
    bits = [31, 31] + [30] * (len(p.moduli) - 2) + [31]
    return res, bits


def seal(n: int, scheme: str, bits: list[int], reps: int) -> dict[str, Job]:
    import tenseal.sealapi as s

    parms = s.EncryptionParameters(s.SCHEME_TYPE.BFV if scheme == "bgv" else s.SCHEME_TYPE.CKKS)
    parms.set_poly_modulus_degree(n)
    parms.set_coeff_modulus(s.CoeffModulus.Create(n, bits))
    if scheme == "bgv":
        parms.set_plain_modulus(65537)
    ctx = s.SEALContext(parms, True, s.SEC_LEVEL_TYPE.TC128)
    keygen = s.KeyGenerator(ctx)
    pk, rk, gk = s.PublicKey(), s.RelinKeys(), s.GaloisKeys()
    keygen.create_public_key(pk)
    keygen.create_relin_keys(rk)
    keygen.create_galois_keys(gk)
    enc, dec = s.Encryptor(ctx, pk), s.Decryptor(ctx, keygen.secret_key())
    ev = s.Evaluator(ctx)
    rng = np.random.default_rng(0)
    pt = s.Plaintext()
    if scheme == "bgv":
        encoder: object = s.BatchEncoder(ctx)
        vals = [int(v) for v in rng.integers(0, 65537, n)]
        encoder.encode(vals, pt)  # type: ignore[attr-defined]
    else:
        encoder = s.CKKSEncoder(ctx)
        vals_f = [float(v) for v in rng.uniform(-1, 1, n // 2)]
        encoder.encode(vals_f, ctx.first_parms_id(), 2.0**30, pt)  # type: ignore[attr-defined]
    a, b, out = s.Ciphertext(ctx), s.Ciphertext(ctx), s.Ciphertext(ctx)
    enc.encrypt(pt, a)
    enc.encrypt(pt, b)
    prod = s.Ciphertext(ctx)
    ev.multiply(a, b, prod)
    ev.relinearize_inplace(prod, rk)
    outp = s.Plaintext()

    def mulrelin() -> None:
        ev.multiply(a, b, out)
        ev.relinearize_inplace(out, rk)

    def rotate() -> None:
        if scheme == "bgv":
            ev.rotate_rows(a, 1, gk, out)
        else:
            ev.rotate_vector(a, 1, gk, out)

    def switch() -> None:
        if scheme == "bgv":
            ev.mod_switch_to_next(prod, out)
        else:
            ev.rescale_to_next(prod, out)

    def decrypt_decode() -> None:  # to slot values, as our decrypt returns them
        dec.decrypt(a, outp)
        if scheme == "bgv":
            encoder.decode_uint64(outp)  # type: ignore[attr-defined]
        else:
            encoder.decode_double(outp)  # type: ignore[attr-defined]

    def mulplain_rescale() -> None:
        ev.multiply_plain(a, pt, out)
        ev.rescale_to_next_inplace(out)

    def rotations() -> None:  # SEAL's API has no hoisted rotation: 8 separate ones
        for k in ROT_STEPS:
            if scheme == "bgv":
                ev.rotate_rows(a, k, gk, out)
            else:
                ev.rotate_vector(a, k, gk, out)

    res = {
        "encrypt": job(lambda: enc.encrypt(pt, out), reps),
        "add": job(lambda: ev.add(a, b, out), reps),
        "mul_plain": job(lambda: ev.multiply_plain(a, pt, out), reps),
        "mul+relinearize": job(mulrelin, reps),
        "rotate": job(rotate, reps),
        "modswitch/rescale": job(switch, reps),
        "decrypt": job(decrypt_decode, reps),
        "8 rotations, unhoisted": job(rotations, max(3, reps // 3)),
    }
    res["8 rotations, hoisted"] = res["8 rotations, unhoisted"]
    if scheme == "ckks":
        res["mul_plain+rescale"] = job(mulplain_rescale, reps)
    if scheme == "bgv":
        limbs = len(bits) - 1
        c = s.Ciphertext(ctx)
        enc.encrypt(pt, c)

        def ntt_roundtrip() -> None:
            ev.transform_to_ntt_inplace(c)
            ev.transform_from_ntt_inplace(c)

        # forward + inverse on 2 polynomials x limbs: per forward NTT of one limb ~ /(4*limbs)
        res["ntt (one limb)"] = job(ntt_roundtrip, reps * 4, 4 * limbs)
    return res


#: (Python version, pip requirement): the 3.12 wheels, then the Ubuntu-22.04 build for 3.10
OPENFHE_CANDIDATES = (("3.12", "openfhe"), ("3.10", "openfhe==1.6.1.0.22.4"))
EXPERIMENTS = Path(__file__).resolve().parent


def _interpreter(version: str) -> str | None:
    """A working ``python<version>``: on PATH, or under pyenv's versions directory."""
    import glob
    import shutil

    cands = [shutil.which(f"python{version}")]
    cands += sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")))
    for c in cands:
        if c and subprocess.run([c, "--version"], capture_output=True).returncode == 0:
            return c
    return None


def openfhe_python() -> tuple[str | None, str]:
    """(interpreter of a venv where ``import openfhe`` works, status message)."""
    reasons = []
    for version, req in OPENFHE_CANDIDATES:
        venv = EXPERIMENTS / f".venv-openfhe-py{version.replace('.', '')}"
        py = venv / "bin" / "python"
        if not py.exists():
            base = _interpreter(version)
            if base is None:
                reasons.append(f"no python{version}")
                continue
            print(f"creating {venv} ({req}) ...", flush=True)
            made = subprocess.run([base, "-m", "venv", str(venv)], capture_output=True, text=True)
            inst = made.returncode == 0 and (
                subprocess.run(
                    [str(py), "-m", "pip", "install", "-q", req], capture_output=True, text=True
                ).returncode
                == 0
            )
            if not inst:
                reasons.append(f"python{version}: venv or pip install {req} failed")
                continue
        check = subprocess.run([str(py), "-c", "import openfhe"], capture_output=True, text=True)
        if check.returncode == 0:
            return str(py), f"openfhe via Python {version} ({venv.name})"
        last = (check.stderr.strip().splitlines() or ["?"])[-1]
        reasons.append(f"python{version}: import openfhe failed: {last[-120:]}")
    return None, "openfhe unavailable: " + "; ".join(reasons)


def openfhe_timings(py: str, sizes: list[int], reps: int) -> tuple[dict[str, Any], str]:
    """Run bench_openfhe.py in its venv; {} and the reason on failure."""
    cmd = [py, str(EXPERIMENTS / "bench_openfhe.py"), "--sizes", *map(str, sizes), "--reps", str(reps)]
    cmd += ["--bgv-levels", *(str(levels_for(n, "bgv")) for n in sizes)]
    cmd += ["--ckks-levels", *(str(levels_for(n, "ckks") + 1) for n in sizes)]  # same prime count
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return {}, "openfhe run failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][-160:]
    data = json.loads(proc.stdout)
    return data, f"OpenFHE {data['version']} (Python {data['python']}, 1 thread)"


def galois_ntt_us(n: int, reps: int) -> float:
    import galois

    from eqsat.backend.params import ntt_primes

    q = ntt_primes(n, 30, 1)[0]
    x = np.random.default_rng(0).integers(0, q, n)
    return timeit(lambda: galois.ntt(x, modulus=q), max(3, reps // 2))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[8192, 16384], help="ring dimensions N to time")
    ap.add_argument("--reps", type=int, default=15, help="repetitions per operation (the median is reported)")
    ap.add_argument("--out", type=Path, default=OUT, help="directory for bench_backend.csv and bench_backend.png")
    ap.add_argument("--no-openfhe", action="store_true", help="skip the OpenFHE column")
    args = ap.parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, object]] = []
    ofhe: dict[str, Any] = {}
    if args.no_openfhe:
        status = "openfhe skipped (--no-openfhe)"
    else:
        py, status = openfhe_python()
        if py is not None:
            ofhe, status = openfhe_timings(py, args.sizes, args.reps)
    print(status)
    for n in args.sizes:
        for scheme, ours_fn in (("bgv", ours_bgv), ("ckks", ours_ckks)):
            ours_jobs, bits = ours_fn(n, args.reps)
            ours, theirs = run_jobs(ours_jobs, seal(n, scheme, bits, args.reps))
            other = ofhe.get("results", {}).get(str(n), {}).get(scheme, {})
            if scheme == "bgv":
                ours["ntt (one limb, galois)"] = galois_ntt_us(n, args.reps)
            for op in [*OPS, "ntt (one limb, galois)"]:
                if op not in ours:
                    continue
                o, t, f = ours[op], theirs.get(op), other.get(op)
                rows.append(
                    {
                        "N": n,
                        "primes": "+".join(map(str, bits)),
                        "ours": scheme.upper(),
                        "seal": "BFV" if scheme == "bgv" else "CKKS",
                        "op": op,
                        "ours_us": round(o, 1),
                        "seal_us": None if t is None else round(t, 1),
                        "ratio": None if t is None else round(o / t, 2),
                        "openfhe_us": None if f is None else round(f, 1),
                        "ratio_openfhe": None if f is None else round(o / f, 2),
                        "openfhe_primes": _openfhe_primes(other, len(bits) - 1),
                        "note": status if op == "encrypt" else "",
                    }
                )
                print(
                    f"N={n:6d} {scheme:4s} {op:24s} ours {o:10.1f} us   seal {t or float('nan'):10.1f} us"
                    f"   openfhe {f or float('nan'):10.1f} us"
                )
    for n in args.sizes:
        for sch in ("BGV", "CKKS"):
            core = [r for r in rows if r["N"] == n and r["ours"] == sch and r["op"] in CORE and r["ratio"]]
            if core:
                ratios = [float(str(r["ratio"])) for r in core]
                worst = max(core, key=lambda r: float(str(r["ratio"])))
                gm = float(np.exp(np.mean(np.log(ratios))))
                print(f"N={n} {sch}: core ops / SEAL geometric mean {gm:.2f}, worst {worst['op']} "
                      f"{worst['ratio']}x, all <= {GOAL}x: {max(ratios) <= GOAL}")
    path = out / "bench_backend.csv"
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(rows, out / "bench_backend.png", status)
    print(f"wrote {path} and {out / 'bench_backend.png'}")
    return 0


def _openfhe_primes(timings: dict[str, float], count: int) -> str:
    if not timings:
        return ""
    return f"{count} x ~{timings['prime_bits']:.0f} bits, log2 Q = {timings['log_q']:.0f}"


def plot(rows: list[dict[str, object]], path: Path, openfhe_note: str) -> None:
    """Our time / SEAL's per op (log scale), and a second panel against OpenFHE only when
    OpenFHE timings exist (otherwise the figure says why in its title)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = sorted({(int(str(r["N"])), str(r["ours"])) for r in rows})
    panels = [("ratio", "SEAL (TenSEAL sealapi)")]
    if any(r["ratio_openfhe"] is not None for r in rows):
        panels.append(("ratio_openfhe", "OpenFHE"))
    ops = [op for op in OPS if any(r["op"] == op for r in rows)]
    fig, axes = plt.subplots(len(panels), 1, figsize=(12, 4.8 * len(panels) + 1.2), sharex=True, squeeze=False)
    width = 0.8 / max(1, len(series))
    for ax, (key, who) in zip(axes[:, 0], panels, strict=True):
        for k, (n, sch) in enumerate(series):
            ys = []
            for op in ops:
                match = [r for r in rows if r["N"] == n and r["ours"] == sch and r["op"] == op]
                val = match[0][key] if match else None
                ys.append(float(str(val)) if val is not None else np.nan)
            xs = np.arange(len(ops)) + k * width
            bars = ax.bar(xs, ys, width, label=f"{sch} N={n}")
            for bar, y in zip(bars, ys, strict=True):
                if not np.isnan(y):
                    ax.annotate(f"{y:.2g}", (bar.get_x() + bar.get_width() / 2, y), ha="center",
                                va="bottom", fontsize=6.5, rotation=90, xytext=(0, 2), textcoords="offset points")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.axhline(GOAL, color="r", lw=0.9, ls="--", label=f"goal: {GOAL}x")
        ax.set_yscale("log")
        ax.set_ylim(0.1, 20)
        ax.set_ylabel(f"our time / {who.split()[0]} time (lower is better)")
        title = f"eqsat.backend vs {who}: matched N and primes, one thread, median CPU time (calls interleaved)"
        if len(panels) == 1:
            title += f"\n(no OpenFHE panel: {openfhe_note})"
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8, ncol=len(series) + 1, loc="upper left")
        ax.grid(True, axis="y", which="both", alpha=0.25)
    last = axes[-1, 0]
    last.set_xticks(np.arange(len(ops)) + 0.4 - width / 2)
    last.set_xticklabels(ops, rotation=25, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
