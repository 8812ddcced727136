"""Runs a program encrypted and reports outputs, reference, match, noise and parameters.

In: an ``eqsat.ir.Program``, inputs (name -> number or nested list), a scheme.
Out: ``run_program`` -> the ``eqsat run --json`` dict of DESIGN.md; ``choose_params``
-> the smallest secure ``Params`` under which the noise model says the program
decrypts correctly.

Noise reporting
---------------
BGV: ``measured_bits`` is log2 of the infinity norm of the phase x = [c_0 + c_1 s]_Q
(centered, before reduction mod t; x = f*m + t*e) at each secret output, measured by
decrypting with the secret key; ``budget_bits`` = log2(Q/2) - measured_bits;
``predicted_bits`` is the model's bound (``eqsat.backend.noise.predict_bgv``).
CKKS: ``measured_bits`` = log2 of the largest absolute slot error against the float
reference, ``predicted_bits`` = log2 of the model's error bound; ``match`` holds when
every output is within its predicted bound (the stated tolerance).  Beside it, the noise
of the whole ciphertext, BGV's measure carried over: ``ciphertext_error_bits_per_output``
is log2 of the largest error over all N/2 slots of the output's ciphertext (complex
modulus) against its noiseless twin (``backend.shadow.ExactCKKS``, run on the same
inputs through the same lowering), compared in ``noise.models`` with each model's bound
for all the slots of a ciphertext (``ciphertext_gap_bits_per_output``).
A result that is a ``decode`` reports the noise of that decryption; other plaintext
results (computed in the clear) carry ``None``.  A vector split over several ciphertexts
(wider than N/2 slots, see ``backend.lowering``) reports its noisiest chunk, measured and
predicted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

from eqsat.backend.errors import BackendError
from eqsat.backend.lowering import Enc, Lowering
from eqsat.backend.noise_average import P_FAIL, evaluators
from eqsat.backend.params import HE_STANDARD, Params, make_params
from eqsat.interp import evaluate, results_equal
from eqsat.ir import Program

INSECURE_SIZES = (64, 128, 256, 512)
#: the precision the model must *guarantee* (its worst-case error bound, relative to the
#: values).  With scaling primes below 2^31 the worst-case bound of a fresh ciphertext is
#: already ~2^-9 at N = 8192 and doubles with every squaring of values near 1 (x^8 by
#: seven products: ~2^-6 at N = 16384); measured errors are typically 5-8 bits smaller.
CKKS_MIN_PRECISION_BITS = 4.0


def _max_slots(prog: Program) -> int:
    return max((prog.nodes[i].type.slots for i in prog.live()), default=1)


def _model(params: Params, input_bound: float, noise_model: str) -> Any:
    """The abstract evaluator of ``noise_model`` (worst | average) for ``params``."""
    bgv, ckks = evaluators(noise_model)
    return bgv(params) if params.scheme == "bgv" else ckks(params, input_bound)


def slack_bits(prog: Program, params: Params, input_bound: float, noise_model: str = "worst") -> float | None:
    """Bits to spare under ``noise_model`` (None when a decryption would fail).

    BGV: the smallest decryption budget log2(Q_l/2) - noise, less the 2-bit margin the
    executor asks for.  CKKS: the smaller of the headroom of the phase below Q_l/8 and
    of the error below the required precision (CKKS_MIN_PRECISION_BITS).
    """
    try:
        ev: Any = _model(params, input_bound, noise_model)
        env = Lowering(prog, ev, params.scheme).run(None)
        return _slack_of(prog, env, ev)
    except (BackendError, OverflowError):  # OverflowError: the scale chain diverged (too many levels)
        return None


def _slack_of(prog: Program, env: Mapping[int, Any], ev: Any) -> float:
    """The slack of ``slack_bits`` from a model's environment (decrypts every result)."""
    params = ev.params
    for r in prog.results:
        if isinstance(env[r], Enc):
            for ct in env[r].cts:
                ev.decrypt(ct)
    if params.scheme == "bgv":
        return min((budget - 2.0 for _, budget in ev.decrypts), default=math.inf)
    slack = math.inf
    for ct, _ in ev.decrypts:
        top = ct.level
        logq = sum(math.log2(q) for q in params.moduli[: top + 1])
        slack = min(slack, logq - 3 - math.log2(max(ct.bound + ct.err, 1e-300) * ct.scale))
        need = -CKKS_MIN_PRECISION_BITS + math.log2(max(1.0, ct.bound))
        slack = min(slack, need - math.log2(max(ct.err, 1e-300)))
    return slack


def _fits(prog: Program, params: Params, input_bound: float, noise_model: str = "worst") -> bool:
    """True when the model says every decryption succeeds (and CKKS keeps precision)."""
    slack = slack_bits(prog, params, input_bound, noise_model)
    return slack is not None and slack >= 0.0


#: BGV ciphertext primes are never chosen below this size (NTT primes q = 1 mod 2N exist)
MIN_BGV_PRIME_BITS = 20


def _smaller_primes(prog: Program, n: int, levels: int, input_bound: float, noise_model: str) -> Params | None:
    """BGV: ``levels + 1`` primes of the largest size below 30 bits that is secure at N = n,
    if the model accepts it (the budget grows with the prime size, so a smaller size that
    is secure cannot fit when the largest secure one does not)."""
    for bits in range(29, MIN_BGV_PRIME_BITS - 1, -1):
        try:
            params = make_params("bgv", n, levels, prime_bits=bits)
        except BackendError:
            continue
        return params if _fits(prog, params, input_bound, noise_model) else None
    return None


def choose_params(
    prog: Program,
    scheme: str,
    insecure: bool = False,
    input_bound: float = 1.0,
    ring_dims: Sequence[int] | None = None,
    noise_model: str = "worst",
) -> Params:
    """Smallest N, then fewest primes, that is 128-bit secure and that the model accepts.

    BGV primes are 30 bits; when that many 30-bit primes exceed the HE Standard bound at
    this N, smaller primes (down to MIN_BGV_PRIME_BITS) are tried before giving up on N,
    so a program whose noise needs, say, 70 bits of modulus runs at N = 4096 on three
    24-bit primes instead of N = 8192 on three 30-bit ones.
    ``insecure=True`` also tries ring dimensions below the HE Standard table (64..512),
    for fast tests; the result then reports ``security_bits`` 0.  ``ring_dims`` restricts
    the candidate ring dimensions (with ``insecure``, any chain length is allowed there).
    """
    slots = _max_slots(prog)
    sizes = (INSECURE_SIZES if insecure else ()) + tuple(HE_STANDARD)
    if ring_dims is not None:
        sizes = tuple(ring_dims)
    for n in sizes:
        if slots > n // 2 and n != sizes[-1]:
            continue  # a larger N holds the vector in one row; split only at the largest N
        for levels in range(0, 40):
            try:
                params = make_params(scheme, n, levels, insecure=insecure or n not in HE_STANDARD)
            except BackendError:
                if scheme == "bgv" and n in HE_STANDARD and not insecure:
                    smaller = _smaller_primes(prog, n, levels, input_bound, noise_model)
                    if smaller is not None:
                        return smaller
                break  # too many primes for security at this N, or not enough primes
            if n not in HE_STANDARD and not insecure:
                break
            if _fits(prog, params, input_bound, noise_model):
                return params
    raise BackendError(
        f"no {'' if insecure else '128-bit secure '}parameters fit this program "
        f"({slots} slots, depth too large for N <= 32768 without bootstrapping)"
    )


def _input_bound(prog: Program, inputs: Mapping[str, object]) -> float:
    from eqsat.interp import coerce_input

    bound = 1.0
    for name, ty in prog.args:
        v = coerce_input(name, inputs[name], ty, None)
        vals = v if isinstance(v, list) else [v]
        bound = max(bound, *(abs(float(x)) for x in vals))
    return bound


def run_program(
    prog: Program,
    inputs: Mapping[str, object],
    scheme: str,
    *,
    params: Params | None = None,
    insecure: bool = False,
    seed: int | None = None,
    layouts: Mapping[str, Any] | None = None,
    noise_model: str = "average",
) -> dict[str, Any]:
    """Encrypt the inputs, run ``prog`` homomorphically, decrypt, compare, report.

    ``layouts`` (an optimize report's ``layouts`` section): ``inputs`` are by the original
    argument names and shapes; they are packed into ``prog``'s ciphertexts by those layouts,
    and ``outputs``/``reference`` are unpacked back (``packed_outputs`` keeps the raw ones).
    ``noise_model`` (worst | average) chooses the parameters and the prediction reported
    as ``predicted_bits`` (and, for CKKS, the match tolerance); the measured noise is
    compared with both models on every run (``noise.models``).
    """
    if layouts is not None:
        return _run_packed(prog, inputs, scheme, layouts, params=params, insecure=insecure, seed=seed,
                           noise_model=noise_model)
    if scheme not in ("bgv", "ckks"):
        raise BackendError(f"unknown scheme '{scheme}' (expected bgv or ckks)")
    from eqsat.algebra.linmap_realize import expand_linmaps  # a linmap runs as its plan

    prog = expand_linmaps(prog)
    if noise_model not in NOISE_MODELS:
        raise BackendError(f"unknown noise model '{noise_model}' (expected worst or average)")
    from eqsat.interp import InputError

    missing = [n for n, _ in prog.args if n not in inputs]
    unknown = [str(n) for n in inputs if n not in {a for a, _ in prog.args}]
    if missing or unknown:
        said = [f"missing input(s): {', '.join(missing)}"] if missing else []
        said += [f"unknown input name(s): {', '.join(unknown)}"] if unknown else []
        expected = ", ".join(n for n, _ in prog.args)
        raise BackendError(f"{'; '.join(said)} ('{prog.name}' takes: {expected})")
    try:
        bound = _input_bound(prog, inputs)
    except InputError as exc:
        raise BackendError(str(exc)) from None
    if params is None:
        params = choose_params(prog, scheme, insecure=insecure, input_bound=bound, noise_model=noise_model)
    if params.scheme != scheme:
        raise BackendError(f"parameters are for {params.scheme}, not {scheme}")
    params.check_security()
    if params.security_bits < 128 and not insecure:
        raise BackendError("insecure parameters need insecure=True")

    start = time.perf_counter()
    if scheme == "bgv":
        from eqsat.backend.bgv import BGV

        ev: Any = BGV(params, seed)
    else:
        from eqsat.backend.ckks import CKKS

        ev = CKKS(params, seed)
    low = Lowering(prog, ev, scheme)
    env = low.run(inputs)
    ct_errors: list[float | None] = []
    if scheme == "ckks":
        from eqsat.backend.shadow import ExactCKKS

        exact = Lowering(prog, ExactCKKS(params), scheme).run(inputs)
        ct_errors = _ciphertext_errors(prog, low, ev, env, exact)

    outputs: list[Any] = []
    infos: list[dict[str, float] | None] = []
    for r in prog.results:
        v = env[r]
        if isinstance(v, Enc):
            val, info = low._decrypt(v)
            outputs.append(val)
            infos.append(info)
        else:  # a plaintext result; if it came out of a decode, report that decryption
            outputs.append(v)
            infos.append(low.decrypt_info.get(r))
    elapsed = time.perf_counter() - start
    modelled = {name: _model_outputs(prog, params, bound, name, low) for name in NOISE_MODELS}
    model_cts = {name: cts for name, (cts, _, _) in modelled.items()}

    if scheme == "bgv":
        reference = evaluate(prog, inputs, modulus=params.t)
        match = results_equal(outputs, reference, modulus=params.t)
        noise = _bgv_noise(infos, model_cts[noise_model])
    else:
        reference = evaluate(prog, inputs)
        noise, match = _ckks_noise(outputs, reference, model_cts[noise_model])
    noise["model"] = noise_model
    noise["p_fail"] = P_FAIL if noise_model == "average" else None
    noise["models"] = _compare_models(noise["measured_bits_per_output"], model_cts, scheme)
    if scheme == "ckks":
        measured_ct = [None if e is None else _err_bits(e) for e in ct_errors]
        noise["ciphertext_error_bits_per_output"] = measured_ct
        noise["ciphertext_error_bits"] = max((m for m in measured_ct if m is not None), default=None)
        for name, (_, whole, _) in modelled.items():
            noise["models"][name].update(_compare_whole(measured_ct, whole))
    for name, rep in noise["models"].items():
        if not rep["holds"] or rep.get("ciphertext_holds") is False:
            MODEL_VIOLATIONS.append(f"{prog.name} ({scheme}, seed {seed}): the {name} model predicted less noise "
                                    f"than measured: {rep}")
    noise["ops_executed"] = dict(sorted(low.counts.items()))
    noise["bootstraps_simulated"] = low.counts.get("bootstraps_simulated", 0)
    noise["relinearize"] = "explicit" if low.explicit_relin else "auto"
    noise["galois_keys"] = ev.stats["galois_keys"]
    return {
        "outputs": outputs,
        "reference": reference,
        "match": bool(match),
        "noise": noise,
        "params": {
            **params.report(),
            "primes": len(params.moduli),
            "noise_model": noise_model,
            "slack_bits": _round(modelled[noise_model][2]),
        },
        "time_s": elapsed,
    }


NOISE_MODELS = ("worst", "average")

#: every run in this process where a noise model predicted less noise than was measured
#: (the report's ``noise.models.<m>.holds`` false): the test suite fails any test that adds
#: one (tests/conftest.py), so "never below measured on any run" is checked on all runs
MODEL_VIOLATIONS: list[str] = []


def _round(x: float | None) -> float | None:
    return None if x is None or math.isinf(x) else round(x, 3)


def _model_outputs(
    prog: Program, params: Params, bound: float, name: str, low: Lowering
) -> tuple[list[Any], list[float | None], float | None]:
    """The model's abstract ciphertext (noisiest chunk) at every result, None for clear
    ones; for CKKS its error bound over all the slots of that ciphertext (before the bound
    is narrowed to the slots the output reads); and the model's slack (``slack_bits``)."""
    model = _model(params, bound, name)
    mod_env = Lowering(prog, model, params.scheme).run(None)
    try:
        slack: float | None = _slack_of(prog, mod_env, _model(params, bound, name))
    except (BackendError, OverflowError):
        slack = None
    out: list[Any] = []
    whole: list[float | None] = []
    for r in prog.results:
        m = mod_env.get(r)
        if not isinstance(m, Enc):
            arg = prog.nodes[r].args[0] if prog.nodes[r].op == "decode" else None
            m = mod_env.get(arg) if arg is not None and r in low.decrypt_info else None
        ct = model.worst(m.cts) if isinstance(m, Enc) else None
        whole.append(ct.err if ct is not None and params.scheme == "ckks" else None)
        if ct is not None and hasattr(model, "error_over"):  # CKKS average: union over the output's slots
            ct.err = model.error_over(ct, prog.nodes[r].type.slots)
        out.append(ct)
    return out, whole, slack


def _ciphertext_errors(
    prog: Program, low: Lowering, ev: Any, env: Mapping[int, Any], exact: Mapping[int, Any]
) -> list[float | None]:
    """CKKS: per result, the largest error over all slots of its ciphertext (its noisiest
    chunk) against the exact twin; a ``decode`` result is measured at its operand, a clear
    result is None."""
    from eqsat.backend.shadow import ciphertext_error

    out: list[float | None] = []
    for r in prog.results:
        v, x = env.get(r), exact.get(r)
        if not isinstance(v, Enc) and prog.nodes[r].op == "decode" and r in low.decrypt_info:
            a = prog.nodes[r].args[0]
            v, x = env.get(a), exact.get(a)
        if isinstance(v, Enc) and isinstance(x, Enc) and len(v.cts) == len(x.cts):
            out.append(max(ciphertext_error(ev, c, e) for c, e in zip(v.cts, x.cts, strict=True)))
        else:
            out.append(None)
    return out


def _err_bits(err: float) -> float:
    return round(math.log2(err), 3) if err > 0 else -1074.0


def _compare_whole(measured: list[float | None], whole: list[float | None]) -> dict[str, Any]:
    """CKKS, one model: its bound for all slots of each output's ciphertext against the
    measured ciphertext error, and the gaps."""
    pred = [None if w is None else round(math.log2(w), 3) for w in whole]
    gaps = [round(p - m, 3) for m, p in zip(measured, pred, strict=True) if m is not None and p is not None]
    return {
        "predicted_ciphertext_bits_per_output": pred,
        "ciphertext_gap_bits_per_output": gaps,
        "median_ciphertext_gap_bits": _median(gaps),
        "ciphertext_holds": all(g >= 0 for g in gaps),
    }


def _bits_of(ct: Any, scheme: str) -> float | None:
    if ct is None:
        return None
    return round(ct.bits if scheme == "bgv" else math.log2(ct.err), 3)


def _compare_models(
    measured: list[float | None], model_cts: Mapping[str, list[Any]], scheme: str
) -> dict[str, dict[str, Any]]:
    """Per model: its prediction per output, predicted - measured per output (bits), the
    median gap and whether the prediction held (never below measured) on every output."""
    out: dict[str, dict[str, Any]] = {}
    for name, cts in model_cts.items():
        pred = [_bits_of(c, scheme) for c in cts]
        gaps = [round(p - m, 3) for m, p in zip(measured, pred, strict=True) if m is not None and p is not None]
        out[name] = {
            "predicted_bits_per_output": pred,
            "gap_bits_per_output": gaps,
            "median_gap_bits": _median(gaps),
            "holds": all(g >= 0 for g in gaps),
        }
    return out


def _median(xs: Sequence[float]) -> float | None:
    if not xs:
        return None
    ys = sorted(xs)
    k = len(ys) // 2
    return ys[k] if len(ys) % 2 else 0.5 * (ys[k - 1] + ys[k])


def _bgv_noise(infos: list[dict[str, float] | None], model_cts: list[Any]) -> dict[str, Any]:
    measured = [None if i is None else round(i["noise_bits"], 3) for i in infos]
    budget = [None if i is None else round(i["budget_bits"], 3) for i in infos]
    predicted = [None if m is None else round(m.bits, 3) for m in model_cts]
    return {
        "measured_bits": max((m for m in measured if m is not None), default=None),
        "predicted_bits": max((p for p in predicted if p is not None), default=None),
        "budget_bits": min((b for b in budget if b is not None), default=None),
        "measured_bits_per_output": measured,
        "predicted_bits_per_output": predicted,
        "budget_bits_per_output": budget,
        "definition": "log2 ||[c0 + c1*s]_Q||_inf (phase = f*m + t*e, before reduction mod t); "
        "predicted = canonical-norm bound of the same phase",
    }


def _ckks_noise(
    outputs: list[Any], reference: list[Any], model_cts: list[Any]
) -> tuple[dict[str, Any], bool]:
    measured: list[float | None] = []
    predicted: list[float | None] = []
    match = True
    for out, ref, m in zip(outputs, reference, model_cts, strict=True):
        if m is None:
            measured.append(None)
            predicted.append(None)
            match = match and results_equal([out], [ref])
            continue
        xs = out if isinstance(out, list) else [out]
        ys = ref if isinstance(ref, list) else [ref]
        err = max(abs(float(x) - float(y)) for x, y in zip(xs, ys, strict=True))
        bound = m.err
        measured.append(math.log2(err) if err > 0 else -1074.0)
        predicted.append(math.log2(bound))
        match = match and err <= bound
    noise = {
        "measured_bits": max((m for m in measured if m is not None), default=None),
        "predicted_bits": max((p for p in predicted if p is not None), default=None),
        "measured_bits_per_output": measured,
        "predicted_bits_per_output": predicted,
        "precision_bits": -max((m for m in measured if m is not None), default=0.0),
        "tolerance_per_output": [None if p is None else 2.0**p for p in predicted],
        "definition": "log2 of the largest absolute slot error vs the float reference; "
        "predicted = log2 of the model's error bound (the match tolerance)",
    }
    return noise, match


def _run_packed(
    prog: Program, inputs: Mapping[str, object], scheme: str, layouts: Mapping[str, Any], **kw: Any
) -> dict[str, Any]:
    """``run_program`` with the client's packing and unpacking by ``layouts``."""
    from eqsat.layouts import Layout, LayoutError, pack_inputs, unpack_results

    try:
        args = {n: Layout.from_json(d) for n, d in layouts["arguments"].items()}
        res = [Layout.from_json(d) for d in layouts["results"]]
        packed = pack_inputs(inputs, args)
    except (LayoutError, KeyError, TypeError) as exc:
        raise BackendError(f"bad layouts: {exc}") from None
    out = run_program(prog, packed, scheme, **kw)
    out["packed_outputs"] = out["outputs"]
    out["outputs"] = unpack_results(out["outputs"], res)
    out["reference"] = unpack_results(out["reference"], res)
    return out
