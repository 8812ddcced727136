"""Per-operation latency of OpenFHE (the ``openfhe`` wheel), printed as JSON.

Runs in its own interpreter: the ``openfhe`` wheels exist for Python 3.10 and 3.12 only,
so ``experiments/bench_backend.py`` creates a separate venv and runs this script there
(it does not import eqsat).  In: ``--sizes`` (ring dimensions), ``--bgv-levels`` and
``--ckks-levels`` (ciphertext primes minus one, per size, as eqsat's benchmark uses),
``--reps``.  Out (stdout, one JSON object)::

    {"version": "...", "threads": 1,
     "results": {"8192": {"bgv": {"encrypt": us, ..., "prime_bits": b, "log_q": q}, "ckks": {...}}},
     "notes": "..."}

Parameters: OpenFHE BGVRNS and CKKSRNS with the ring dimension forced (security level
``HEStd_NotSet``: the chain lengths match eqsat's, which the HE Standard allows at these
N), FIXEDMANUAL scaling (modswitch/rescale are explicit ops, as in eqsat), the same number
of ciphertext primes (multiplicative depth = levels) of the smallest size OpenFHE accepts
from 30 bits up (CKKS: 30, first prime 31; BGV: ~37-38, see ``context``), hybrid key
switching with one digit per ciphertext prime (as eqsat and SEAL); OpenFHE chooses its
own special primes (up to 60 bits), which eqsat cannot match exactly.  One OpenMP thread.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ["OMP_NUM_THREADS"] = "1"


def timeit(fn: Callable[[], object], reps: int) -> float:
    """Median wall time of fn() in microseconds (one warm-up call first)."""
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def context(n: int, scheme: str, levels: int) -> tuple[Any, int]:
    """A crypto context and its prime size: the smallest size from 30 bits that OpenFHE accepts.

    OpenFHE's BGV wants every prime = 1 (mod 2N*t) (no correction factor on modswitch),
    so with t = 65537 it needs primes of about 37 (N = 8192) or 38 bits (N = 16384).
    """
    import openfhe as o

    for bits in range(30, 51):
        p = o.CCParamsBGVRNS() if scheme == "bgv" else o.CCParamsCKKSRNS()
        p.SetSecurityLevel(o.HEStd_NotSet)
        p.SetRingDim(n)
        p.SetBatchSize(n // 2)
        p.SetMultiplicativeDepth(levels)
        p.SetScalingTechnique(o.FIXEDMANUAL)
        p.SetKeySwitchTechnique(o.HYBRID)
        p.SetNumLargeDigits(levels + 1)
        p.SetScalingModSize(bits)
        if scheme == "bgv":
            p.SetPlaintextModulus(65537)
            p.SetFirstModSize(bits)
        else:
            p.SetFirstModSize(bits + 1)
        try:
            return o.GenCryptoContext(p), bits
        except RuntimeError:
            continue
    raise RuntimeError(f"OpenFHE accepts no prime size up to 50 bits for {scheme} N={n}")


def bench(n: int, scheme: str, levels: int, reps: int) -> dict[str, float]:
    import math
    import random

    import openfhe as o

    cc, bits = context(n, scheme, levels)
    for feat in (o.PKESchemeFeature.PKE, o.PKESchemeFeature.KEYSWITCH, o.PKESchemeFeature.LEVELEDSHE):
        cc.Enable(feat)
    keys = cc.KeyGen()
    cc.EvalMultKeyGen(keys.secretKey)
    cc.EvalRotateKeyGen(keys.secretKey, [1])
    rng = random.Random(0)
    if scheme == "bgv":
        pt = cc.MakePackedPlaintext([rng.randrange(65537) - 32768 for _ in range(n)])
    else:
        pt = cc.MakeCKKSPackedPlaintext([rng.uniform(-1, 1) for _ in range(n // 2)])
    enc, ev = cc.Encrypt, cc
    a = enc(keys.publicKey, pt)
    b = enc(keys.publicKey, pt)
    prod = ev.EvalMult(a, b)
    switch = ev.ModReduce if scheme == "bgv" else ev.Rescale
    return {
        "encrypt": timeit(lambda: enc(keys.publicKey, pt), reps),
        "add": timeit(lambda: ev.EvalAdd(a, b), reps),
        "mul_plain": timeit(lambda: ev.EvalMult(a, pt), reps),
        "mul+relinearize": timeit(lambda: ev.EvalMult(a, b), reps),
        "rotate": timeit(lambda: ev.EvalRotate(a, 1), reps),
        "modswitch/rescale": timeit(lambda: switch(prod), reps),
        "decrypt": timeit(lambda: ev.Decrypt(keys.secretKey, a), reps),
        "prime_bits": float(bits),
        "log_q": math.log2(ev.GetModulus()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[8192, 16384], help="ring dimensions N to time")
    ap.add_argument("--bgv-levels", type=int, nargs="+", required=True, help="BGV multiplicative depth per size")
    ap.add_argument("--ckks-levels", type=int, nargs="+", required=True, help="CKKS multiplicative depth per size")
    ap.add_argument("--reps", type=int, default=15, help="repetitions per operation (the median is reported)")
    args = ap.parse_args(argv)
    import openfhe

    results: dict[str, dict[str, dict[str, float]]] = {}
    for n, lb, lc in zip(args.sizes, args.bgv_levels, args.ckks_levels, strict=True):
        results[str(n)] = {"bgv": bench(n, "bgv", lb, args.reps), "ckks": bench(n, "ckks", lc, args.reps)}
        print(f"openfhe N={n} done", file=sys.stderr)
    version = getattr(openfhe, "__version__", None) or _dist_version()
    json.dump(
        {
            "version": version,
            "python": sys.version.split()[0],
            "threads": 1,
            "results": results,
            "notes": "OpenFHE BGVRNS/CKKSRNS, FIXEDMANUAL, HYBRID, one digit per prime, HEStd_NotSet",
        },
        sys.stdout,
    )
    print()
    return 0


def _dist_version() -> str:
    from importlib.metadata import version

    return version("openfhe")


if __name__ == "__main__":
    raise SystemExit(main())
