"""The ``eqsat`` command line: optimize, run, explain.

In: argv.  Out: MLIR text, JSON reports or a human-readable explanation on stdout (one
MLIR program or exactly one JSON document -- nothing else reaches stdout); progress on
stderr when it is a terminal (``--quiet`` turns it off); exit 0 on success, 2 on bad
input (one line ``file:line:col: error: ...`` on stderr), 1 on an internal failure (also
one line).  See the README for the fixed interfaces.

The scheme is read from the input when ``--scheme`` is not given: a program in the
``noisy`` dialect is optimized under ``noisy``, everything else under ``bgv``; a
contradicting ``--scheme`` is refused.  ``optimize`` takes several inputs with
``--out-dir`` and pays the start-up (imports, rule compilation) once.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eqsat.errors import REPORT_HINT, EqsatError, UserError

if TYPE_CHECKING:
    from eqsat.egraph.limits import Limits
    from eqsat.ir import Program


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("eqsat-fhe")
    except PackageNotFoundError:
        return "unknown"


def _read_program(path: str, func: str | None, deadline: float | None = None) -> Program:
    from eqsat.frontend.mlir import parse_mlir

    if path == "-":
        data = sys.stdin.buffer.read()
        path = "<stdin>"
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise UserError(f"cannot read file: {e.strerror}", path=path) from None
    progs = parse_mlir(data, path, deadline)  # MLIRError is a located UserError
    if func is not None:
        chosen = [q for q in progs if q.name == func]
        if not chosen:
            names = ", ".join(q.name for q in progs)
            raise UserError(f"no function '{func}' (the file defines: {names})", path=path)
        return chosen[0]
    if len(progs) != 1:
        names = ", ".join(q.name for q in progs)
        raise UserError(f"the file defines {len(progs)} functions ({names}); choose one with --func", path=path)
    return progs[0]


def _scheme(args: argparse.Namespace, prog: Program, path: str) -> str:
    """``--scheme``, or the scheme the input is written for; a contradiction is a user error."""
    detected = "noisy" if prog.style == "noisy" else None
    given: str | None = args.scheme
    if given is None:
        return detected or "bgv"
    if detected == "noisy" and given != "noisy":
        raise UserError(
            f"'{prog.name}' is written in the noisy dialect; use --scheme noisy (or leave --scheme out), "
            f"not --scheme {given}", path=path)
    return given


def _limits(args: argparse.Namespace) -> Limits:
    import math

    from eqsat.egraph.limits import Limits

    for flag, value in (("--time-limit", args.time_limit), ("--node-limit", args.node_limit),
                        ("--iteration-limit", args.iteration_limit)):
        if value is not None and (not math.isfinite(value) or value <= 0):
            raise UserError(f"{flag} must be a positive number, not {value}")
    d = Limits()
    return Limits(
        iterations=args.iteration_limit if args.iteration_limit is not None else d.iterations,
        nodes=args.node_limit if args.node_limit is not None else d.nodes,
        time_s=args.time_limit if args.time_limit is not None else d.time_s,
    )


def _costs(args: argparse.Namespace, scheme: str) -> dict[str, object] | None:
    """The ``--costs`` overrides (a file, or a JSON object written inline), validated
    against the scheme (errors name the file or ``--costs``)."""
    from eqsat.models.cost import CostError, load_overrides, table

    if not args.costs:
        return None
    where = args.costs
    if args.costs.lstrip().startswith("{"):
        where = "--costs"
        try:
            overrides = json.loads(args.costs)
        except json.JSONDecodeError as e:
            raise CostError(f"bad JSON in --costs: {e.msg}", path=where, line=e.lineno, col=e.colno) from None
        if not isinstance(overrides, dict):
            raise CostError("a cost table is a JSON object mapping op names to numbers", path=where)
    else:
        overrides = load_overrides(args.costs)  # its errors are located in the file
    try:
        table(scheme, overrides)
    except CostError as e:
        raise CostError(e.message, path=where) from None
    return overrides


@contextmanager
def _progress(args: argparse.Namespace, what: str) -> Iterator[Callable[[str], None] | None]:
    """A live status line on stderr when it is a terminal (rich); a no-op otherwise."""
    if getattr(args, "quiet", False) or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console

    console = Console(stderr=True)
    with console.status(f"{what} ...") as status:
        yield lambda msg: status.update(f"{what}: {msg}")


#: the printing reserve, as a fraction of the time reading the input took: printing the result
#: (the text printer: a tenth of xDSL's printing, which measured about a quarter of parsing the
#: same program) is far less, but a result may hold more ops than its source (management)
PRINT_PER_PARSE = 0.5


def _optimize_one(args: argparse.Namespace, path: str, prog: Program | None = None,  # type: ignore[no-untyped-def]
                  early: bool = True):
    if early and prog is None and not args.layouts:
        # the e-graph worker imports its stage and declares the rules while this process
        # imports the frontend and reads the input (``eqsat.egraph.prefork``)
        from eqsat.egraph import prefork

        prefork.start(prepared=True)  # in a batch or a server's request, with the rules declared there
    from eqsat.frontend.mlir import ReadTimeLimit  # imported before the clock starts
    from eqsat.pipeline import optimize

    limits = _limits(args)
    t0 = time.perf_counter()
    started = getattr(args, "started", None)
    args.started = None  # the start-up counts toward the first input only
    deadline = (started or t0) + limits.time_s  # --time-limit bounds the whole command, reading included
    if prog is None:
        try:
            prog = _read_program(path, args.func, deadline)
        except ReadTimeLimit as e:  # nothing to optimize yet: a located error, exit 2
            raise UserError(f"--time-limit {limits.time_s:g} s ran out while reading the input ({e.stopped_at}): "
                            "nothing was optimized (stop stage: parse); raise --time-limit",
                            path=e.path, line=e.line, col=e.col) from None
    scheme = _scheme(args, prog, path)
    t_parse = time.perf_counter() - t0
    # the modules imported so far live as long as the command: the garbage collector's full
    # collections (each walked all their objects, 0.1-0.3 s on a loaded machine) skip them
    gc.freeze()
    kwargs: dict[str, Any] = {
        "costs": _costs(args, scheme), "rules": args.rules, "limits": limits, "extraction": args.extraction,
        "verify": args.verify}
    with _progress(args, f"optimizing {path}") as progress:
        if args.layouts:
            from eqsat.layout_search import optimize_layouts

            res = optimize_layouts(prog, scheme, args.layouts, **kwargs)
        else:
            # the optimizer stops early enough to leave printing its share
            res = optimize(prog, scheme, progress=progress, deadline=deadline - PRINT_PER_PARSE * t_parse, **kwargs)
    res.report["timings"] = {"parse": round(t_parse, 4), **res.report.get("timings", {})}  # type: ignore[dict-item]
    res.report.setdefault("scheme", scheme)
    for w in res.report.get("warnings", []):  # type: ignore[attr-defined]
        print(f"{path}:1:1: warning: {w}", file=sys.stderr)
    return res


def cmd_optimize(args: argparse.Namespace) -> int:
    inputs: list[str] = args.input
    if len(inputs) > 1 or args.out_dir:
        return _optimize_batch(args, inputs)
    path = inputs[0]
    res = _optimize_one(args, path)
    text = res.to_mlir()
    if args.output:
        try:
            Path(args.output).write_text(text)
        except OSError as e:
            raise UserError(f"cannot write the output: {e.strerror}", path=args.output) from None
    if args.json:
        sys.stdout.write(json.dumps(res.report) + "\n")
    elif not args.output:
        sys.stdout.write(text)
    return 0


def _optimize_batch(args: argparse.Namespace, inputs: list[str]) -> int:
    """Each input to ``OUT_DIR/<name>.mlir`` and ``OUT_DIR/<name>.json``; with ``--json`` one
    JSON document on stdout mapping each input to its report.  A bad input is reported (one
    line on stderr) and the others still run; exit 2 if any input was bad."""
    if not args.out_dir:
        raise UserError("several inputs need --out-dir (one optimized file per input)", path=inputs[0])
    if args.output:
        raise UserError("-o names one output; with several inputs use --out-dir", path=inputs[0])
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if len(inputs) > 1:
        # the rules declared once here: each input's e-graph worker (a fork) starts from a copy
        from eqsat.egraph import session

        session.prepare_default()
        # the rotation factorization's lazy sympy import (0.5-1 s), once here rather than in
        # every input's worker that factors a polynomial (each a fork of this process), as
        # ``eqsat serve`` does before its first request
        with contextlib.suppress(ImportError):
            import sympy  # noqa: F401
        # the MLIR dialects the reader loads on first use, as ``eqsat serve`` warms them
        from eqsat.frontend.mlir.dialects import LAZY_DIALECTS

        for load in LAZY_DIALECTS.values():
            load()
    reports: dict[str, object] = {}
    status = 0
    for path in inputs:
        try:
            res = _optimize_one(args, path)  # its early worker takes the rules declared above
        except UserError as e:
            print(e.located(path).splitlines()[0], file=sys.stderr)
            reports[path] = {"error": e.located(path).splitlines()[0]}
            status = 2
            continue
        stem = Path(path).stem if path != "-" else "stdin"
        (out / f"{stem}.mlir").write_text(res.to_mlir())
        (out / f"{stem}.json").write_text(json.dumps(res.report, indent=1) + "\n")
        reports[path] = res.report
        if not args.json and not args.quiet:
            b, a = res.report["before"], res.report["after"]
            print(f"{path} -> {out / (stem + '.mlir')}: cost {b['cost']:g} -> {a['cost']:g}", file=sys.stderr)
    if args.json:
        sys.stdout.write(json.dumps(reports) + "\n")
    return status


def cmd_explain(args: argparse.Namespace) -> int:
    path = args.input
    res = _optimize_one(args, path)
    rep = res.report
    # most matches first, ties by name (egglog reports the counts in a per-process hash order)
    fired = sorted(res.rules_fired.items(), key=lambda kv: (-kv[1], kv[0]))
    if args.json:
        doc = dict(rep)
        doc["rules_fired"] = dict(fired)
        doc["program"] = res.to_mlir()
        sys.stdout.write(json.dumps(doc) + "\n")
        return 0
    before, after = rep["before"], rep["after"]
    ops = sorted(set(before["ops"]) | set(after["ops"]))  # type: ignore[index]
    timings = ", ".join(f"{k} {v:.3f}" for k, v in rep["timings"].items())  # type: ignore[attr-defined]
    lines = [
        f"{path}: scheme {rep['scheme']}, extraction {rep['extraction']}, stop reason: {rep['stop_reason']}",
        f"e-graph: {rep['egraph']['nodes']} nodes, {rep['egraph']['classes']} classes, "  # type: ignore[index]
        f"{rep['egraph']['iterations']} iterations, {rep['time_s']} s",  # type: ignore[index]
        f"seconds per stage: {timings}",
        "",
        f"{'op':<14}{'before':>8}{'after':>8}",
    ]
    for o in ops:
        lines.append(f"{o:<14}{before['ops'].get(o, 0):>8}{after['ops'].get(o, 0):>8}")  # type: ignore[index]
    lines.append(f"{'depth':<14}{before['depth']:>8}{after['depth']:>8}")  # type: ignore[index]
    lines.append(f"{'cost':<14}{before['cost']:>8g}{after['cost']:>8g}")  # type: ignore[index]
    lines.append(f"noise before: {json.dumps(before['noise'])}")  # type: ignore[index]
    lines.append(f"noise after:  {json.dumps(after['noise'])}")  # type: ignore[index]
    lines.append("")
    lines.append("rules that fired (matches): " + (", ".join(f"{k} {v}" for k, v in fired) if fired else "none"))
    lines.append("")
    lines.append("optimized program:")
    lines.append(res.to_mlir().rstrip())
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def noise_line(scheme: str, noise: dict[str, Any]) -> str:
    """The executor's noise report in words: what was measured, what the model predicted,
    and the budget it is compared with."""
    m, p = noise.get("measured_bits"), noise.get("predicted_bits")
    model = {"average": "average-case model (failure probability 2^-40)", "worst": "worst-case bound"}.get(
        str(noise.get("model", "worst")), "model")
    if scheme == "bgv":
        b = noise.get("budget_bits")
        if m is None:
            return "no encrypted result to measure"
        spare = f"{b - m:.1f} bits to spare" if b is not None and m <= b else "OVER the budget"
        return (f"measured {m:.1f} bits of noise, budget {b:.1f} bits ({spare}; a result decrypts correctly "
                f"while measured < budget); the {model} predicted {p:.1f} bits")
    if m is None:
        return "no encrypted result to measure"
    line = (f"largest slot error 2^{m:.1f} against the cleartext result (about {-m:.0f} bits of precision); "
            f"the {model} predicted 2^{p:.1f}")
    whole = noise.get("ciphertext_error_bits")
    mine = noise.get("models", {}).get(str(noise.get("model")), {}).get("predicted_ciphertext_bits_per_output")
    if whole is not None and mine:
        worst_pred = max(x for x in mine if x is not None)
        line += f"; over all slots of the ciphertext 2^{whole:.1f}, predicted 2^{worst_pred:.1f}"
    return line


def cmd_run(args: argparse.Namespace) -> int:
    prog = _read_program(args.input, args.func)
    lays: dict[str, object] | None = prog.meta.get("layouts")  # type: ignore[assignment]
    scheme = args.scheme or "bgv"
    if prog.style == "noisy":
        raise UserError("'run' executes BGV or CKKS programs; this one is written in the noisy dialect",
                        path=args.input)
    if args.inputs:
        try:
            inputs = json.loads(Path(args.inputs).read_text())
        except OSError as e:
            raise UserError(f"cannot read inputs: {e.strerror}", path=args.inputs) from None
        except json.JSONDecodeError as e:
            raise UserError(f"bad JSON: {e.msg}", path=args.inputs, line=e.lineno, col=e.colno) from None
        if not isinstance(inputs, dict):
            raise UserError("inputs must be a JSON object of argument name -> value", path=args.inputs)
    else:
        from eqsat.interp import random_inputs

        inputs = random_inputs(prog, args.seed if args.seed is not None else 0)
        if lays is not None:
            from eqsat.layouts import random_tensors

            inputs = random_tensors(prog, lays, args.seed if args.seed is not None else 0)
    which = "the program as written (add --optimize to run the optimized one)"
    if args.optimize:
        from eqsat.pipeline import optimize

        with _progress(args, f"optimizing {args.input}") as progress:
            prog = optimize(prog, scheme=scheme, progress=progress).program
        which = "the OPTIMIZED program (eqsat optimize, default settings)"
    from eqsat.backend.executor import run_program

    if scheme == "bgv" and any(t.is_float for _, t in prog.args):
        raise UserError("a float program cannot run under BGV (integer arithmetic mod t): use --scheme ckks")
    with _progress(args, f"running {args.input} encrypted ({scheme})"):
        # a program printed with layouts: inputs and outputs are the tensors, packed by the client side
        out = run_program(  # BackendError, InputError: UserError
            prog, inputs, scheme, insecure=args.insecure, layouts=lays, noise_model=args.noise_model
        )
    out["program"] = "optimized" if args.optimize else "input"
    if args.json:
        sys.stdout.write(json.dumps(out) + "\n")
    else:
        params = out["params"]
        lines = [
            f"ran:       {which}, encrypted under {scheme.upper()}",
            f"outputs:   {out['outputs']}",
            f"reference: {out['reference']} (cleartext evaluation)",
            f"match:     {out['match']}",
            f"noise:     {noise_line(scheme, out['noise'])}",
            f"params:    N={params['N']}, log2 q={params['log_q']}, t={params.get('t')}, "
            f"{params['security_bits']}-bit security",
        ]
        sys.stdout.write("\n".join(lines) + "\n")
    return 0 if out["match"] else 1


class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Help that shows defaults (only for options that have one)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


class _VersionAction(argparse.Action):
    """``--version``: the installed version, looked up only when asked (``importlib.metadata``
    costs 0.04-0.07 s to import, which every command paid when the parser was built)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str = "show program's version number and exit") -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        parser._print_message(f"eqsat {_version()}\n", sys.stdout)
        parser.exit()


#: the parser built ahead by a process that runs many commands (``eqsat serve``: 5-10 ms a request)
_PREBUILT: argparse.ArgumentParser | None = None


def prebuild_parser() -> None:
    """Build the command line's parser once, for every later ``main`` of this process."""
    global _PREBUILT
    _PREBUILT = build_parser()


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="eqsat", description="Equality-saturation optimizer for FHE circuits.", formatter_class=_Formatter)
    ap.add_argument("--version", action=_VersionAction)
    sub = ap.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, several: bool = False) -> None:
        if several:
            p.add_argument("input", nargs="+", help="MLIR file(s); '-' reads standard input")
        else:
            p.add_argument("input", help="MLIR file; '-' reads standard input")
        p.add_argument("--func", help="function to use when the file defines several")
        p.add_argument("--quiet", action="store_true", help="no progress on stderr")

    def optimizing(p: argparse.ArgumentParser) -> None:
        from eqsat.models.cost import SCHEMES

        p.add_argument("--scheme", choices=SCHEMES, default=None,
                       help="cost and noise model (default: noisy for a noisy-dialect input, else bgv)")
        p.add_argument("--costs", help="JSON object op name -> cost (a file, or the object inline), "
                                        "overriding the scheme's table")
        p.add_argument("--rules", help="comma-separated rule families or a schedule name (default: default)")
        from eqsat.egraph.limits import Limits  # the defaults alone: not the e-graph stage

        d = Limits()
        p.add_argument("--node-limit", type=int, dest="node_limit", help=f"e-node limit (default: {d.nodes})")
        p.add_argument("--time-limit", type=float, dest="time_limit",
                       help=f"time limit in seconds for the whole command: parsing, saturation (a share), "
                            f"extraction, placement, checks (default: {d.time_s})")
        p.add_argument("--iteration-limit", type=int, dest="iteration_limit",
                       help=f"saturation iteration limit (default: {d.iterations})")
        p.add_argument(
            "--extraction",
            choices=("auto", "greedy", "ilp"),
            default="auto",
            help="greedy DAG, exact ILP, or auto (ILP for e-graphs up to 10,000 nodes)",
        )
        p.add_argument(
            "--verify",
            choices=("random", "encrypted", "off"),
            default="random",
            help="check the result against the input: random inputs (default), also encrypted runs, or off",
        )
        p.add_argument("--layouts", choices=("auto", "fixed"),
                       help="argument/result layouts: auto = chosen by the optimizer, fixed = row-major "
                            "(either adds the report's layouts section)")

    p = sub.add_parser("optimize", help="optimize programs", formatter_class=_Formatter,
                       description="Optimize MLIR programs; stdout carries the optimized MLIR or one JSON report.")
    common(p, several=True)
    optimizing(p)
    p.add_argument("-o", "--output", help="write the optimized MLIR here (one input)")
    p.add_argument("--out-dir", dest="out_dir", help="write NAME.mlir and NAME.json per input here (several inputs)")
    p.add_argument("--json", action="store_true", help="print the JSON report (one document) instead of the MLIR")
    p.set_defaults(fn=cmd_optimize)

    p = sub.add_parser("explain", help="explain an optimization", formatter_class=_Formatter,
                       description="Optimize one program and say what changed: op counts, depth, cost and "
                                   "noise before and after, the rules that fired, time per stage.")
    common(p)
    optimizing(p)
    p.add_argument("--json", action="store_true",
                   help="the explanation as one JSON document (the report, rules_fired, program)")
    p.set_defaults(fn=cmd_explain)

    p = sub.add_parser("run", help="run a program encrypted and compare with the cleartext", formatter_class=_Formatter,
                       description="Run a program encrypted (BGV or CKKS) on random or given inputs and compare "
                                   "with the cleartext evaluation.  Runs the program as written unless --optimize.")
    common(p)
    p.add_argument("--scheme", choices=("bgv", "ckks"), default=None, help="scheme to run under (default: bgv)")
    p.add_argument("--optimize", action="store_true", help="optimize first and run the optimized program")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--inputs", help="JSON file: argument name -> number or list")
    g.add_argument("--seed", type=int, help="random inputs from this seed (default: 0)")
    p.add_argument("--insecure", action="store_true", help="allow parameters below 128-bit security (reported)")
    p.add_argument(
        "--noise-model",
        choices=("worst", "average"),
        default="average",
        dest="noise_model",
        help="noise model that chooses the parameters: worst-case bound, or average case with "
        "failure probability 2^-40 per output; the run compares the measurement with both",
    )
    p.add_argument("--json", action="store_true", help="print the run report as one JSON document")
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser("fuzz", help="optimize random programs and check every result")
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scheduler", help="Dask scheduler address (default: serial, or a local cluster with --workers)")
    p.add_argument("--workers", type=int, default=1, help="local Dask workers (processes)")
    p.add_argument("--out", help="write one CSV row per program here")
    p.add_argument("--regressions", help="folder for shrunk failing programs (fuzz_<seed>.mlir)")
    p.set_defaults(fn=cmd_fuzz, input="<fuzz>")
    p = sub.add_parser(
        "serve", help="a warm server that runs later eqsat commands without the start-up cost",
        formatter_class=_Formatter,
        description="start: import eqsat once in a background server; while it runs, every eqsat command "
                    "of this installation is run by a fork of it (same output, same exit status). "
                    "stop: end it. status: say whether one runs (exit 0) or not (exit 3). An optimize, explain or "
                    "run command that finds no server starts one in the background itself (stopping after 900 s "
                    "unused; EQSAT_AUTOSTART=0 turns that off, EQSAT_NO_SERVER=1 uses no server).")
    p.add_argument("action", choices=("start", "stop", "status"))
    p.add_argument("--idle-timeout", type=float, default=7200.0, dest="idle_timeout",
                   help="start: the server stops after this many seconds without a request (0: never)")
    p.add_argument("--foreground", action="store_true", help="start: run the server in this process")
    p.add_argument("--all", action="store_true",
                   help="stop: also the servers of other installations and of older versions (same user)")
    p.set_defaults(fn=cmd_serve, input="<serve>")
    return ap


def cmd_serve(args: argparse.Namespace) -> int:
    """``eqsat serve start|stop|status`` (the server itself is ``eqsat.serve``)."""
    import os
    import subprocess

    from eqsat import client

    path = client.socket_path()
    running = client.status(path)
    others = [p for p in sorted(path.parent.glob("serve-*.sock")) if p != path]
    if args.action == "status":
        for p in others:
            other = client.status(p)
            if other is not None:
                print(f"eqsat serve: pid {other['pid']} on {p} serves another installation or an older version "
                      f"of this one (python {other['python']})")
        if running is None:
            if client.locked(str(path)):
                print(f"eqsat serve: the server for this installation is starting ({path.with_suffix('.log')})")
            else:
                print(f"eqsat serve: no server for this installation ({path})")
            return 3
        print(f"eqsat serve: pid {running['pid']} on {path}, {running['served']} requests served, "
              f"allocator {running.get('allocator', 'system')}")
        return 0
    if args.action == "stop" and args.all:
        for p in others:
            if client.stop(p) is not None:
                print(f"eqsat serve: stopped the server on {p}", file=sys.stderr)
    if args.action == "stop":
        if running is None:
            print(f"eqsat serve: no server for this installation ({path})", file=sys.stderr)
            return 0
        client.stop(path)
        deadline = time.monotonic() + 10.0
        while path.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        print(f"eqsat serve: stopped pid {running['pid']}", file=sys.stderr)
        return 0
    if running is not None:
        print(f"eqsat serve: already running (pid {running['pid']} on {path})", file=sys.stderr)
        return 0
    # -P: the working folder is not put first on the module path (``-m`` would: a server started
    # from another checkout's folder ran that checkout's code)
    cmd = [sys.executable, "-P", "-m", "eqsat.serve", "--idle-timeout", str(args.idle_timeout)]
    if args.foreground:
        os.execv(sys.executable, cmd)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    proc: subprocess.Popen[bytes] | None = None
    if not client.locked(str(path)):  # else one is starting already (a command started it): wait for it
        with open(path.with_suffix(".log"), "ab") as log:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    deadline = time.monotonic() + 120.0
    while time.monotonic() < deadline:
        running = client.status(path)
        if running is not None:
            print(f"eqsat serve: pid {running['pid']} ready on {path}", file=sys.stderr)
            return 0
        if proc is not None and proc.poll() is not None:
            break
        if proc is None and not client.locked(str(path)):
            break  # the starting one gave up
        time.sleep(0.05)
    raise UserError(f"the server did not start (see {path.with_suffix('.log')})")


def cmd_fuzz(args: argparse.Namespace) -> int:
    from eqsat.testing.fuzz import main as fuzz_main

    if args.count < 0 or args.workers < 1:
        raise UserError("--count must be >= 0 and --workers >= 1")
    return fuzz_main(args.count, args.seed, args.scheduler, args.workers, args.out, args.regressions)


def _process_start() -> float | None:
    """When this process started, as a ``time.perf_counter()`` value (Linux; else None):
    the interpreter's start-up and imports count toward ``--time-limit`` too."""
    import os

    try:
        with open("/proc/self/stat") as f:
            started_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        age = uptime - started_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    return time.perf_counter() - age if 0.0 <= age < 3600.0 else None


def main(argv: Sequence[str] | None = None, offer: bool = True) -> int:
    """The command line; ``argv`` None (the ``eqsat`` command) first offers the command to
    a running ``eqsat serve`` (``eqsat.client``) and runs it here when none runs (``offer``
    False: the caller offered it already, ``eqsat.entry``)."""
    # NumPy's OpenBLAS starts one thread per core when NumPy is imported (0.05-0.1 s of a
    # command on a loaded machine); eqsat's arrays are small and no stage calls BLAS in
    # parallel, so a command runs with one unless the environment asks for more
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if argv is None and offer:
        from eqsat.client import forward

        forwarded = forward(sys.argv[1:])
        if forwarded is not None:
            return forwarded
        from eqsat.client import start_in_background

        start_in_background(sys.argv[1:])
    # as the ``eqsat`` command (no argv given), the first input's budget counts from process start
    started = _process_start() if argv is None else None
    args = (_PREBUILT or build_parser()).parse_args(argv)
    args.started = started
    try:
        return int(args.fn(args))
    except UserError as e:
        where = getattr(args, "input", None) or "<input>"
        if isinstance(where, list):
            where = where[0]
        where = "<stdin>" if where == "-" else where
        print(e.located(where).splitlines()[0], file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head
        return 0
    except KeyboardInterrupt:
        print("eqsat: interrupted", file=sys.stderr)
        return 130
    except EqsatError as e:  # an InternalError or an unlocated eqsat error: one line, exit 1
        print(f"eqsat: internal error: {type(e).__name__}: {e}".splitlines()[0], file=sys.stderr)
        return 1
    except Exception as e:  # never a traceback: one line naming it a bug, exit 1
        print(f"eqsat: internal error: {type(e).__name__}: {e} ({REPORT_HINT})".splitlines()[0], file=sys.stderr)
        return 1
    finally:
        from eqsat.egraph import prefork

        prefork.discard()  # an early e-graph worker the command did not use (e.g. bad input)


if __name__ == "__main__":
    raise SystemExit(main())
