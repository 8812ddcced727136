"""The fuzzer: random programs through the whole optimizer, checked four ways.

In: a count and a base seed (optionally a Dask scheduler address, a worker count, an
output folder for regression files). Out: one row per program (``run_case``), gathered
into one CSV (``write_csv``) and summarised (``summarize``); failing programs are shrunk
(``shrink``) and written as ``fuzz_<seed>.mlir`` regression files.

Each case is drawn from its own seed (``draw_case``): a program of the shared generator
(``eqsat.testing.programs``: scalar and vector integer programs with rotations, slot moves,
negations, scalar and per-slot constants, management ops and several results; noisy
programs; float programs for CKKS), or MLIR text from ``eqsat.testing.mlir_programs``
(stencils with zero padding and wrap-around, ``affine.for`` loops with ``iter_args``,
``secret.generic`` bodies, integer and float element types; programs in the ``noisy``
dialect, ``text_noisy``) -- together with a scheme, a
rule schedule and a cost table (the scheme's, or one with every price scaled by 1/2, 1 or
2). A text program is first parsed, and the parsed program's cleartext value is compared
with the generator's own Python reference (the frontend's check). Each program is
optimized and checked: equivalence under the one semantics (the pipeline's guard),
report = re-read (``eqsat.testing.reread``), the noise verdict legal; every
``ENCRYPTED_EVERY``-th case also runs both programs encrypted (match, measured <= predicted).

Status of a row: ``ok``, ``rejected`` (a clear user error, e.g. a constant outside its
declared width), ``mismatch``, ``report_diff``, ``illegal``, ``encrypted_mismatch``,
``crash``, ``infeasible`` (no placement found: with an unbounded level budget every
program has one), ``frontend_error`` (generated text not accepted),
``frontend_mismatch`` (the parsed program differs from the generator's reference) or
``analysis_unsound`` (the e-graph analysis' depth floor of a result exceeds the depth of
the optimized or the source program, both in the e-graph) or ``costlier`` (the result
costs more than a source that meets the noise budget; a source over the budget may rightly
cost less than its legal result, which pays the management it needs -- the row's
``source_legal`` is then false and its detail says so). Rows
hold no timings, so serial and distributed runs give the same CSV.
"""

from __future__ import annotations

import csv
import gc
import json
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eqsat.algebra.linmap import scoped_registry
from eqsat.errors import InfeasibleError, UserError
from eqsat.ir import Builder, Program
from eqsat.testing.mlir_programs import random_text_program
from eqsat.testing.programs import Shape, random_noisy_program, random_program

ENCRYPTED_EVERY = 25
FAILURES = ("mismatch", "report_diff", "illegal", "encrypted_mismatch", "crash", "infeasible",
            "frontend_error", "frontend_mismatch", "analysis_unsound", "costlier")
COLUMNS = ("seed", "kind", "scheme", "rules", "costs", "n_ops", "status", "ops_before", "ops_after",
           "cost_before", "cost_after", "encrypted", "detail", "source_legal", "time_bound")
#: the columns a wall-clock limit cannot change: a result shaped by a time limit (``time_bound``:
#: saturation, placement or an ILP stopped by the clock) may differ in its counts from run to
#: run under different load, never in its verdict
VERDICT_COLUMNS = ("seed", "kind", "scheme", "rules", "costs", "n_ops", "status", "ops_before",
                   "cost_before", "encrypted", "source_legal")
SCHEDULES = ("default", "arith", "ring", "ring,slots")


@dataclass(frozen=True)
class Case:
    seed: int
    kind: str
    scheme: str
    rules: str
    costs: dict[str, float] | None
    program: Program | None  # None: the text did not parse (``frontend_error``)
    text: str | None = None  # the MLIR text of a text case
    reference: Callable[[Mapping[str, object]], Sequence[object]] | None = None
    frontend_error: str = ""


def draw_case(seed: int) -> Case:
    """The case of ``seed``: a small program, a scheme, a rule schedule, a cost table."""
    from eqsat.models.cost import DEFAULTS

    rng = random.Random(seed)
    kind = rng.choice(("int_scalar", "int_vector", "int_vector_consts", "noisy", "float_vector",
                       "text", "text", "text", "text", "text_noisy"))
    n_ops = rng.randint(2, 8)
    text = None
    reference = None
    error = ""
    prog: Program | None
    if kind.startswith("text"):
        # its own stream: not correlated with ``kind``
        tp = random_text_program(rng.getrandbits(32), kind="noisy" if kind == "text_noisy" else None)
        kind, scheme, text, reference = f"text_{tp.kind}", tp.scheme, tp.text, tp.reference
        prog, error = _parse(text, tp.name)
    elif kind == "noisy":
        prog = random_noisy_program(n_ops, seed, n_inputs=rng.randint(1, 3), decode=rng.random() < 0.7)
        scheme = "noisy"
    else:
        vector = kind != "int_scalar"
        ops: dict[str, float] = {"add": 1.0, "sub": 1.0, "mul": 1.0, "mul_const": 1.0, "add_const": 1.0,
                                 "neg": 0.3}
        if vector:
            ops.update(rotate=1.0, move_slot=0.5, modswitch=0.1)
        shape = Shape(
            slots=rng.choice((4, 8)) if vector else 1,
            elem="f32" if kind == "float_vector" else rng.choice(("i16", "i32")),
            inputs=rng.randint(1, 3),
            ops=ops,
            max_depth=3,
            results=rng.choice(("unused", 1, 2)),
            consts=(2, 3, 5, 9, -7, 100) if kind != "float_vector" else (2, 3, -1, 5),
            vector_consts=kind == "int_vector_consts",
        )
        prog = random_program(seed, n_ops, shape, name=f"fuzz_{seed}")
        scheme = "ckks" if kind == "float_vector" else rng.choice(("bgv", "bgv", "ckks"))
    rules = rng.choice(SCHEDULES)
    costs = None
    if rng.random() < 0.3:
        costs = {k: v * rng.choice((0.5, 1.0, 2.0)) for k, v in DEFAULTS[scheme].items()}
    return Case(seed, kind, scheme, rules, costs, prog, text, reference, error)


def _parse(text: str, name: str) -> tuple[Program | None, str]:
    """The one function of ``text``, or ``None`` and the frontend's message."""
    from eqsat.frontend.mlir import parse_mlir

    try:
        return parse_mlir(text, f"<{name}>")[0], ""
    except UserError as e:
        return None, e.message
    except Exception as e:
        return None, f"{type(e).__name__}: {e}"


def frontend_check(case: Case) -> tuple[str, str] | None:
    """For a text case: ``None`` when the parsed program means what the generator meant
    (its cleartext value equals the generator's reference on random inputs, integers mod
    t, floats within the tolerance), else ``(status, detail)``."""
    from eqsat.interp import PLAINTEXT_MODULUS, evaluate, random_inputs, results_equal

    if case.program is None:
        return "frontend_error", case.frontend_error.splitlines()[0][:200]
    if case.reference is None:
        return None
    p = case.program
    modulus = None if any(t.is_float for _, t in p.args) else PLAINTEXT_MODULUS
    for trial in range(2):
        inputs = random_inputs(p, case.seed * 7 + trial, bound=50)
        try:
            got = evaluate(p, inputs, modulus)
            want = case.reference(dict(inputs))
        except Exception as e:
            return "crash", f"frontend check: {type(e).__name__}: {e}".splitlines()[0][:200]
        if modulus is not None:
            want = [[int(v) % modulus for v in w] if isinstance(w, list) else int(w) % modulus  # type: ignore[call-overload]
                    for w in want]
        if not results_equal(want, got, modulus):  # type: ignore[arg-type]
            return "frontend_mismatch", f"reference {want} != parsed {got}"[:200]
    return None


def check(case: Case, prog: Program | None = None, encrypted: bool = False) -> tuple[str, str, dict[str, object]]:
    """Optimize ``prog`` (default: the case's) and check it: ``(status, detail, report)``."""
    import eqsat
    from eqsat.pipeline import OptimizeError, verify_encrypted
    from eqsat.testing.reread import floor_violations, report_differences, reread

    if prog is None and case.text is not None:
        bad = frontend_check(case)
        if bad is not None:
            return bad[0], bad[1], {}
    p = prog if prog is not None else case.program
    assert p is not None
    try:
        res = eqsat.optimize(p, scheme=case.scheme, costs=case.costs, rules=case.rules,
                             limits=eqsat.Limits(iterations=20, nodes=20_000, time_s=20.0), ilp_time_limit=5.0)
    except OptimizeError as e:
        return "mismatch", str(e).splitlines()[0][:200], {}
    except InfeasibleError as e:
        return "infeasible", e.message[:200], {}
    except UserError as e:
        return "rejected", e.message[:200], {}
    except Exception as e:
        return "crash", f"{type(e).__name__}: {e}".splitlines()[0][:200], {}
    try:
        printed = reread(res)
        diffs = report_differences(res, case.scheme, case.costs, printed)
        floors = floor_violations(res, printed) + floor_violations(res, p)
    except Exception as e:
        return "crash", f"re-read: {type(e).__name__}: {e}".splitlines()[0][:200], res.report
    if diffs:
        return "report_diff", "; ".join(diffs)[:200], res.report
    if floors:
        return "analysis_unsound", "; ".join(floors)[:200], res.report
    if not res.report["after"]["noise"]["legal"]:  # type: ignore[index]
        return "illegal", str(res.report["after"]["noise"])[:200], res.report  # type: ignore[index]
    costlier, detail = cost_verdict(res.report)
    if costlier:
        return "costlier", detail, res.report
    if encrypted:
        try:
            verify_encrypted(p, res.program, case.scheme, seed=case.seed)
        except OptimizeError as e:
            return "encrypted_mismatch", str(e).splitlines()[0][:200], res.report
        except UserError as e:
            return "ok", f"encrypted run refused: {e.message}"[:200], res.report
        except Exception as e:
            return "crash", f"encrypted: {type(e).__name__}: {e}".splitlines()[0][:200], res.report
    return "ok", detail, res.report


def cost_verdict(report: Mapping[str, Any]) -> tuple[bool, str]:
    """``(True, why)`` when the result costs more than its source under the model although the
    source meets the noise budget (the pipeline promises never to return that); a source
    over the budget may cost less than its legal result, which pays the management it
    needs: ``(False, words saying so)``; else ``(False, "")``."""
    before, after = report["before"], report["after"]
    if after["cost"] <= before["cost"] + 1e-9 * max(1.0, abs(before["cost"])):
        return False, ""
    if before["noise"]["legal"]:
        return True, f"cost {before['cost']:g} -> {after['cost']:g} from a source within the noise budget"
    return False, (f"source illegal ({_noise_words(before['noise'])}): cost {before['cost']:g} -> "
                   f"{after['cost']:g} pays the management it needs")


def _noise_words(noise: Mapping[str, Any]) -> str:
    """A noise verdict in words: ``28 > 26 bits`` (noisy) or the levels over the chain."""
    if "max_bits" in noise and "budget" in noise:
        return f"{noise['max_bits']:g} > {noise['budget']:g} bits"
    return ", ".join(f"{k} {v}" for k, v in sorted(noise.items()) if k != "legal")[:120]


def run_case(seed: int, out_dir: str | None = None) -> dict[str, object]:
    """One CSV row for ``seed`` (failures shrunk and written under ``out_dir`` when given)."""
    # an egglog e-graph may only be freed on the thread that made it; a cyclic collection
    # triggered on a Dask worker's event-loop thread would free it there (pyo3 refuses and
    # the memory leaks), so collect on this thread only, at the end of the case (a full
    # collection costs ~0.07 s: not done on the main thread, where nothing else runs)
    off_main = threading.current_thread() is not threading.main_thread()
    gc_was_on = gc.isenabled()
    if off_main:
        gc.disable()
    try:
        with scoped_registry():  # the case's linear maps and plans: not kept for the next case
            case = draw_case(seed)
            encrypted = seed % ENCRYPTED_EVERY == 0
            status, detail, rep = check(case, encrypted=encrypted)
            if status in FAILURES and out_dir is not None:
                small = shrink(case, status, encrypted)
                write_regression(case, small, status, detail, Path(out_dir))
    finally:
        if off_main:
            gc.collect()
            if gc_was_on:
                gc.enable()
        _return_freed_memory()
    before: dict[str, Any] = rep.get("before", {}) if rep else {}  # type: ignore[assignment]
    after: dict[str, Any] = rep.get("after", {}) if rep else {}  # type: ignore[assignment]
    return {
        "seed": seed, "kind": case.kind, "scheme": case.scheme, "rules": case.rules,
        "costs": "default" if case.costs is None else "scaled",
        "n_ops": len(case.program.live()) if case.program is not None else "",
        "status": status,
        "ops_before": sum(before["ops"].values()) if before else "",
        "ops_after": sum(after["ops"].values()) if after else "",
        "cost_before": before.get("cost", ""),
        "cost_after": after.get("cost", ""),
        "encrypted": encrypted, "detail": detail,
        "source_legal": before["noise"].get("legal", "") if before else "",
        "time_bound": _time_bound(rep),
    }


def _time_bound(report: Mapping[str, Any] | None) -> bool:
    """Whether a wall-clock limit shaped the result: the call stopped at its time limit
    (saturation, extraction, placement), an ILP stopped at its own, or its proof budget
    (``stalled``: a CPU-time limit) ended the extraction ILP's search."""
    if not report:
        return False
    ilp = report.get("ilp") or {}
    status = str(ilp.get("status", ""))
    return report.get("stop_reason") == "time_limit" or status.startswith("time") or status == "stalled"


def _return_freed_memory() -> None:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere a
    no-op): a case frees what it made, but fragmented free memory kept the resident size
    of a long serial run climbing in steps (measured over seeds 26-65, after 26 warm-up cases:
    +12.2 MB without it, +0.7 MB with it; Python objects did not grow)."""
    global _LIBC
    if _LIBC is None:
        try:
            import ctypes

            _LIBC = ctypes.CDLL("libc.so.6")
            _LIBC.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _LIBC = False
    if _LIBC:
        _LIBC.malloc_trim(0)


_LIBC: Any = None


# -- shrinking ----------------------------------------------------------------------
def _rebuild(prog: Program, subst: dict[int, int], results: Sequence[int]) -> Program | None:
    """``prog`` with every use of node ``k`` replaced by ``subst[k]`` and these results."""
    b = Builder(prog.name, style=prog.style)
    b.meta.update(prog.meta)
    for name, ty in prog.args:
        b.arg(name, ty)
    remap: dict[int, int] = {}

    def get(i: int) -> int:
        while i in subst:
            i = subst[i]
        return remap[i]

    try:
        for i in prog.live():
            n = prog.nodes[i]
            if i in subst:
                continue
            if n.op == "input":
                remap[i] = b._arg_ids[str(n.attrs[0])]
                continue
            remap[i] = b.add_node(n.op, tuple(get(a) for a in n.args), n.attrs, n.type)
        return b.finish([get(r) for r in results]).compact()
    except Exception:
        return None


def shrink(case: Case, status: str, encrypted: bool, budget: int = 60) -> Program | None:
    """A smaller program that fails the same way (greedy: drop results, bypass nodes);
    ``None`` for a frontend failure (the text itself is the regression)."""
    if case.program is None or status.startswith("frontend"):
        return None
    prog = case.program
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        cands: list[Program | None] = []
        if len(prog.results) > 1:
            cands += [_rebuild(prog, {}, [r]) for r in prog.results]
        for i in reversed(prog.live()):
            n = prog.nodes[i]
            for a in n.args:
                if prog.nodes[a].type == n.type:
                    cands.append(_rebuild(prog, {i: a}, prog.results))
        for cand in cands:
            if cand is None or len(cand.live()) >= len(prog.live()):
                continue
            tries += 1
            if check(case, cand, encrypted)[0] == status:
                prog, progress = cand, True
                break
            if tries >= budget:
                break
    return prog


def write_regression(case: Case, prog: Program | None, status: str, detail: str, out_dir: Path) -> Path:
    """``prog`` (``None``: the case's text) as ``out_dir/fuzz_<seed>.mlir``, headed by how to
    replay it."""
    from eqsat.frontend.mlir import print_mlir

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"fuzz_{case.seed}.mlir"
    head = [f"// fuzz seed {case.seed}: {status}: {detail}".replace("\n", " "),
            f"// scheme: {case.scheme}", f"// rules: {case.rules}"]
    if case.costs is not None:
        head.append(f"// costs: {json.dumps(case.costs, sort_keys=True)}")
    try:
        text = print_mlir(prog) if prog is not None else (case.text or "")
    except UserError as e:
        text = f"// (not printable: {e.message})\n"
    path.write_text("\n".join(head) + "\n" + text)
    return path


# -- running many -------------------------------------------------------------------
def run_many(
    count: int,
    seed: int = 0,
    *,
    scheduler: str | None = None,
    workers: int = 1,
    out_dir: str | None = None,
    progress: Callable[[dict[str, object]], None] | None = None,
) -> list[dict[str, object]]:
    """Rows for seeds ``seed .. seed + count - 1``, in seed order: serially (``workers=1``
    and no scheduler), on a local Dask cluster of ``workers`` processes, or on the Dask
    scheduler at ``scheduler``."""
    seeds = list(range(seed, seed + count))
    if scheduler is None and workers <= 1:
        rows = []
        for s in seeds:
            rows.append(run_case(s, out_dir))
            if progress:
                progress(rows[-1])
        return rows
    try:
        import dask
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise UserError("distributed fuzzing needs Dask: pip install 'eqsat-fhe[fuzz]'") from None
    cluster = None
    if scheduler is None:
        # no sampling profiler in the workers: its thread holds the frames it samples, and
        # an egglog e-graph freed from that thread (pyo3 "unsendable") raises there
        with dask.config.set({"distributed.worker.profile.enabled": False}):
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=":0")  # any free port: no clash with another cluster
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        # no list of futures is kept: each result is released once gathered, so a worker the
        # nanny restarts (memory) does not take finished cases with it to be run again
        pending = as_completed(client.map(run_case, seeds, out_dir=out_dir, pure=False))
        by_seed: dict[int, dict[str, object]] = {}
        for fut in pending:
            row = fut.result()
            fut.release()
            by_seed[int(row["seed"])] = row  # type: ignore[call-overload]
            if progress:
                progress(row)
        return [by_seed[s] for s in seeds]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def write_csv(rows: Iterable[dict[str, object]], path: str | Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def summarize(rows: Sequence[dict[str, object]], seconds: float) -> dict[str, object]:
    """Counts per status (the failures by name), encrypted runs and the wall time."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[str(r["status"])] = counts.get(str(r["status"]), 0) + 1
    return {
        "programs": len(rows),
        **{k: counts.get(k, 0) for k in ("ok", "rejected", *FAILURES)},
        "encrypted_runs": sum(1 for r in rows if r["encrypted"]),
        "time_s": round(seconds, 1),
    }


def main(count: int, seed: int, scheduler: str | None, workers: int, out: str | None,
         regressions: str | None) -> int:
    """``eqsat fuzz``: run, write the CSV, print the summary; exit 1 on any failure."""
    import sys

    start = time.perf_counter()
    done = 0
    try:
        partial = open(out + ".partial", "w", newline="") if out else None  # noqa: SIM115
    except OSError as e:
        raise UserError(f"cannot write the CSV: {e.strerror}", path=out) from None
    writer = csv.DictWriter(partial, fieldnames=COLUMNS) if partial else None
    if writer:
        writer.writeheader()

    def progress(row: dict[str, object]) -> None:
        # one line per finished program, and its row flushed at once: a long campaign that is
        # stopped still leaves every result it finished
        nonlocal done
        done += 1
        print(f"[{done}/{count}] seed {row['seed']}: {row['status']}", file=sys.stderr, flush=True)
        if writer and partial:
            writer.writerow(row)
            partial.flush()

    try:
        rows = run_many(count, seed, scheduler=scheduler, workers=workers, out_dir=regressions,
                        progress=progress)
    finally:
        if partial:
            partial.close()
    if out:
        try:
            write_csv(rows, out)
        except OSError as e:
            raise UserError(f"cannot write the CSV: {e.strerror}", path=out) from None
        Path(out + ".partial").unlink(missing_ok=True)
    summary = summarize(rows, time.perf_counter() - start)
    print(json.dumps(summary))
    for r in rows:
        if r["status"] in FAILURES:
            print(f"seed {r['seed']}: {r['status']}: {r['detail']}", file=sys.stderr)
    return 1 if any(summary[k] for k in FAILURES) else 0
