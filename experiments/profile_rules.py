"""Where saturation spends its time: per-iteration e-graph size and per-rule time and matches.

In: one program -- an MLIR file (``--mlir F``) or a generated kernel (``--kernel
sum:4096``, ``blur:64``, ``random:2000``) -- and a rule schedule (``--rules``).
Out: ``profile_rules.csv`` (iteration, nodes, seconds, rule, matches, rule seconds) and
``profile_rules.png`` (e-graph size and seconds per iteration; the rules that cost the most,
with their match counts) under ``--out``, and a printed summary.

The loop is ``eqsat.egraph.Session.saturate`` one iteration at a time, so sizes and
times are those of the real driver; the per-rule times come from egglog's run report.

Run: ``python experiments/profile_rules.py --kernel sum:1024 --iterations 20``.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import time
from collections import Counter
from pathlib import Path

from eqsat.egraph.session import ANALYSIS_PREFIX, Session
from eqsat.frontend.mlir import parse_mlir
from eqsat.ir import Program
from eqsat.rules import resolve


def kernel(spec: str) -> Program:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scaling import box_blur_program, sum_program

    kind, _, size = spec.partition(":")
    n = int(size)
    if kind == "sum":
        return sum_program(n)
    if kind == "blur":
        return box_blur_program(n)
    if kind == "random":
        from eqsat.testing.programs import ARITH, random_program

        return random_program(0, n, ARITH)
    raise SystemExit(f"unknown kernel {spec!r} (sum:N, blur:W, random:N)")


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--mlir", type=Path, help="profile this MLIR file (its first function) instead of --kernel")
    ap.add_argument("--kernel", default="sum:256", help="a generated kernel: sum:N, blur:W or random:N")
    ap.add_argument("--rules", default="default", help="the rule schedule (as `eqsat optimize --rules`)")
    ap.add_argument("--iterations", type=int, default=40, help="stop after this many iterations")
    ap.add_argument("--nodes", type=int, default=400_000, help="stop once the e-graph has more nodes")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out",
                    help="directory for profile_rules.csv and profile_rules.png")
    args = ap.parse_args(argv)
    prog = parse_mlir(args.mlir.read_text(), str(args.mlir))[0] if args.mlir else kernel(args.kernel)
    t0 = time.perf_counter()
    sess = Session(prog)
    print(f"loaded {sess.size()} nodes in {time.perf_counter() - t0:.2f} s")
    step = sess.step(resolve(args.rules))
    rows: list[dict[str, object]] = []
    total_rule: Counter[str] = Counter()
    for it in range(1, args.iterations + 1):
        start = time.perf_counter()
        rep = sess.run_schedule(step)
        secs = time.perf_counter() - start
        size = sess.size()
        times = rule_seconds(rep)
        if not times:  # no per-rule durations in the report's text: the timedeltas, as shares
            raw = {_name(k): v.total_seconds() for k, v in rep.search_and_apply_time_per_rule.items()}
            # egglog 13.2's per-rule timedeltas are not in seconds (10.9 s of wall time came back
            # as 0.0109): use them as shares of the iteration's measured wall time
            scale = secs / max(sum(raw.values()), 1e-12)
            times = {r: t * scale for r, t in raw.items()}
        matches = {_name(k): v for k, v in rep.num_matches_per_rule.items()}
        for rule in set(times) | set(matches):
            total_rule[rule] += times.get(rule, 0.0)  # type: ignore[assignment]
            rows.append({"iteration": it, "nodes": size, "seconds": round(secs, 4), "rule": rule,
                         "matches": matches.get(rule, 0), "rule_seconds": round(times.get(rule, 0.0), 7)})
        rebuild = sum(v.total_seconds() for v in rep.rebuild_time_per_ruleset.values())
        top = sorted(times.items(), key=lambda kv: (-kv[1], -matches.get(kv[0], 0)))[:3]
        busy = sorted(((m, r) for r, m in matches.items() if m), reverse=True)[:3]
        print(f"it {it:2d}: {size:7d} nodes {secs:6.2f} s (rebuild {rebuild:.2f}) "
              + ", ".join(f"{r} {t * 1000:.2f}ms/{matches.get(r, 0)}" for r, t in top)
              + " | most matches: " + ", ".join(f"{r} {m}" for m, r in busy))
        if not rep.updated or size > args.nodes:
            break
    print("most expensive rules:", ", ".join(f"{r} {t * 1000:.2f}ms" for r, t in total_rule.most_common(8)))
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "profile_rules.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["iteration", "nodes", "seconds", "rule", "matches", "rule_seconds"])
        w.writeheader()
        w.writerows(rows)
    plot(rows, total_rule, args.out / "profile_rules.png", args.mlir.name if args.mlir else args.kernel)
    return rows


def plot(rows: list[dict[str, object]], total_rule: Counter[str], path: Path, title: str) -> None:
    """Left: nodes and seconds per iteration; right: the 12 most expensive rules (matches annotated)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    per_it: dict[int, tuple[int, float]] = {}
    matches: Counter[str] = Counter()
    for r in rows:
        per_it[int(str(r["iteration"]))] = (int(str(r["nodes"])), float(str(r["seconds"])))
        matches[str(r["rule"])] += int(str(r["matches"]))
    its = sorted(per_it)
    fig, (ax1, ax3) = plt.subplots(1, 2, figsize=(13, 4.5))
    ax1.plot(its, [per_it[i][0] for i in its], "o-", color="tab:blue")
    ax1.set_xlabel("iteration")
    ax1.set_ylabel("e-graph nodes after the iteration", color="tab:blue")
    ax2 = ax1.twinx()
    ax2.bar(its, [per_it[i][1] for i in its], color="tab:orange", alpha=0.4)
    ax2.set_ylabel("seconds in the iteration", color="tab:orange")
    top = total_rule.most_common(12)[::-1]
    ax3.barh(range(len(top)), [t for _, t in top], color="tab:green")
    ax3.set_yticks(range(len(top)), [r[:40] for r, _ in top], fontsize=7)
    for y, (rule, t) in enumerate(top):
        ax3.annotate(f" {matches[rule]} matches", (t, y), va="center", fontsize=6)
    ax3.set_xlabel("seconds over all iterations (share of measured wall time)")
    fig.suptitle(f"saturation profile: {title}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


#: one rule's entry in the text of an egglog iteration report: its name and its reports
_RULE_ENTRY = re.compile(r'"([^"]+)": \[((?:RuleReport \{[^}]*\}(?:, )?)+)\]')
_RULE_TIME = re.compile(r"search_and_apply_time: ([0-9.]+)(ns|µs|us|ms|s)\b")
_UNIT = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def rule_seconds(rep: object) -> dict[str, float]:
    """Seconds per rule in one run report, read from the text of its iterations' reports: egglog
    13.2's per-rule timedeltas lose everything below a millisecond (a rule's 5.8 us came back as
    0), so on a small e-graph every rule read 0.00 s, while the text keeps the durations with
    their units."""
    out: dict[str, float] = {}
    for it in getattr(rep, "iterations", []):
        for m in _RULE_ENTRY.finditer(str(it)):
            secs = sum(float(v) * _UNIT[u] for v, u in _RULE_TIME.findall(m.group(2)))
            out[_name(m.group(1))] = out.get(_name(m.group(1)), 0.0) + secs
    return out


def _name(decl: object) -> str:
    name = getattr(decl, "name", None) or str(decl)[:40]
    return name if not name.startswith(ANALYSIS_PREFIX) else "analysis:" + name


if __name__ == "__main__":
    main()
