"""The ``eqsat`` command line: optimize, run, explain.

In: argv.  Out: MLIR text, JSON reports or a human-readable explanation on stdout;
exit 0 on success, 2 on bad input (one line ``file:line:col: error: ...`` on stderr),
1 on an internal failure (also one line).  See DESIGN.md for the fixed interfaces.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from eqsat.egraph.session import Limits
from eqsat.errors import REPORT_HINT, EqsatError, UserError
from eqsat.ir import Program
from eqsat.models.cost import SCHEMES, CostError, load_overrides, table


def _read_program(path: str, func: str | None) -> Program:
    from eqsat.frontend.mlir import parse_mlir

    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise UserError(f"cannot read file: {e.strerror}", path=path) from None
    progs = parse_mlir(data, path)  # MLIRError is a located UserError
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


def _limits(args: argparse.Namespace) -> Limits:
    d = Limits()
    return Limits(
        iterations=args.iteration_limit if args.iteration_limit is not None else d.iterations,
        nodes=args.node_limit if args.node_limit is not None else d.nodes,
        time_s=args.time_limit if args.time_limit is not None else d.time_s,
    )


def _costs(args: argparse.Namespace) -> dict[str, object] | None:
    """The ``--costs`` overrides, read and validated against the scheme (errors name the file)."""
    if not args.costs:
        return None
    overrides = load_overrides(args.costs)  # its errors are located in the file
    try:
        table(args.scheme, overrides)
    except CostError as e:
        raise CostError(e.message, path=args.costs) from None
    return overrides


def _optimize(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from eqsat.pipeline import optimize

    prog = _read_program(args.input, args.func)
    kwargs = {"costs": _costs(args), "rules": args.rules, "limits": _limits(args), "extraction": args.extraction}
    if args.layouts:
        from eqsat.layout_search import optimize_layouts

        return optimize_layouts(prog, args.scheme, args.layouts, **kwargs)
    return optimize(prog, args.scheme, **kwargs)  # type: ignore[arg-type]


def cmd_optimize(args: argparse.Namespace) -> int:
    res = _optimize(args)
    for w in res.report.get("warnings", []):  # type: ignore[attr-defined]
        print(f"{args.input}:1:1: warning: {w}", file=sys.stderr)
    text = res.to_mlir()
    if args.output:
        Path(args.output).write_text(text)
    if args.json:
        print(json.dumps(res.report))
    elif not args.output:
        sys.stdout.write(text)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    res = _optimize(args)
    rep = res.report
    before, after = rep["before"], rep["after"]
    ops = sorted(set(before["ops"]) | set(after["ops"]))  # type: ignore[index]
    lines = [
        f"{args.input}: scheme {args.scheme}, stop reason: {rep['stop_reason']}",
        f"e-graph: {rep['egraph']['nodes']} nodes, {rep['egraph']['classes']} classes, "  # type: ignore[index]
        f"{rep['egraph']['iterations']} iterations, {rep['time_s']} s",  # type: ignore[index]
        "",
        f"{'op':<14}{'before':>8}{'after':>8}",
    ]
    for o in ops:
        lines.append(f"{o:<14}{before['ops'].get(o, 0):>8}{after['ops'].get(o, 0):>8}")  # type: ignore[index]
    lines.append(f"{'depth':<14}{before['depth']:>8}{after['depth']:>8}")  # type: ignore[index]
    lines.append(f"{'cost':<14}{before['cost']:>8g}{after['cost']:>8g}")  # type: ignore[index]
    lines.append(f"noise before: {json.dumps(before['noise'])}")  # type: ignore[index]
    lines.append(f"noise after:  {json.dumps(after['noise'])}")  # type: ignore[index]
    fired = sorted(res.rules_fired.items(), key=lambda kv: -kv[1])
    lines.append("")
    lines.append("rules that fired (matches): " + (", ".join(f"{k} {v}" for k, v in fired) if fired else "none"))
    lines.append("")
    lines.append("optimized program:")
    lines.append(res.to_mlir().rstrip())
    print("\n".join(lines))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    prog = _read_program(args.input, args.func)
    lays: dict[str, object] | None = prog.meta.get("layouts")  # type: ignore[assignment]
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
    from eqsat.backend.executor import run_program

    # a program printed with layouts: inputs and outputs are the tensors, packed by the client side
    out = run_program(  # BackendError, InputError: UserError
        prog, inputs, args.scheme, insecure=args.insecure, layouts=lays, noise_model=args.noise_model
    )
    if args.json:
        print(json.dumps(out))
    else:
        print(f"outputs:   {out['outputs']}\nreference: {out['reference']}\nmatch:     {out['match']}")
        print(f"noise:     {json.dumps(out['noise'])}\nparams:    {json.dumps(out['params'])}")
    return 0 if out["match"] else 1


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="eqsat", description="Equality-saturation optimizer for FHE circuits.")
    sub = ap.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("input", help="MLIR file")
        p.add_argument("--func", help="function to use when the file defines several")

    for name, helptext in (("optimize", "optimize a program"), ("explain", "explain an optimization")):
        p = sub.add_parser(name, help=helptext)
        common(p)
        p.add_argument("-o", "--output", help="write the optimized MLIR here")
        p.add_argument("--scheme", choices=SCHEMES, default="bgv")
        p.add_argument("--costs", help="JSON object: op name -> cost, overriding the scheme's table")
        p.add_argument("--rules", help="comma-separated rule families or a schedule name (default: default)")
        p.add_argument("--node-limit", type=int, dest="node_limit")
        p.add_argument("--time-limit", type=float, dest="time_limit")
        p.add_argument("--iteration-limit", type=int, dest="iteration_limit")
        p.add_argument(
            "--extraction",
            choices=("auto", "greedy", "ilp"),
            default="auto",
            help="greedy DAG, exact ILP, or auto (ILP for e-graphs up to 1500 nodes)",
        )
        p.add_argument("--layouts", choices=("auto", "fixed"),
                       help="argument/result layouts: auto = chosen by the optimizer, fixed = row-major "
                            "(either adds the report's layouts section)")
        p.add_argument("--json", action="store_true", help="print the JSON report")
        p.set_defaults(fn=cmd_optimize if name == "optimize" else cmd_explain)
    p = sub.add_parser("run", help="run a program encrypted and compare with the cleartext")
    common(p)
    p.add_argument("--scheme", choices=("bgv", "ckks"), required=True)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--inputs", help="JSON object: argument name -> number or list")
    g.add_argument("--seed", type=int, help="random inputs from this seed")
    p.add_argument("--insecure", action="store_true", help="allow parameters below 128-bit security (reported)")
    p.add_argument(
        "--noise-model",
        choices=("worst", "average"),
        default="average",
        dest="noise_model",
        help="noise model that chooses the parameters: worst-case bound, or average case with "
        "failure probability 2^-40 per output (default); the run compares the measurement with both",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(fn=cmd_run)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.fn(args))
    except UserError as e:
        where = getattr(args, "input", None) or "<input>"
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


if __name__ == "__main__":
    raise SystemExit(main())
