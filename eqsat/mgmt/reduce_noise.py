"""reduce_noise placement on a fixed noisy program: optimal (the article's ILP) and greedy.

In: a noisy-dialect ``Program``. Out: the same program with ``reduce_noise`` ops inserted so
that every value stays within the noise limit (``eqsat.models.noisy``).
"""

from __future__ import annotations

from eqsat.egraph.view import EGraphView
from eqsat.extract.dag import greedy_dag, program_elem, to_program
from eqsat.extract.noisy import build_noisy, ilp_extract_noisy
from eqsat.ir import Builder, Program
from eqsat.milp import Cand, Problem, solve
from eqsat.models import noisy as noise
from eqsat.models.cost import CostTable
from eqsat.models.noisy import FRESH, LIMIT, check, op_bits, plain_magnitudes, plain_operand_bits


# -- noisy: placement only, on a fixed program (the article's model) ------------------
def program_problem(prog: Program) -> Problem:
    """One class and one candidate per live node (cost 0: the program is fixed)."""
    live = prog.live()
    mags = noise.plain_magnitudes(prog)
    secret = [False] * len(prog.nodes)
    cands: list[Cand] = []
    for i in live:
        n = prog.nodes[i]
        secret[i] = n.type.secret
        if not n.type.secret:
            kind, inc = "plain", 0.0
        elif n.op in noise.FRESH_OPS:
            kind, inc = "fresh", 0.0
        elif n.op in ("add", "sub", "neg"):  # noisy has no negation: 0 - x
            kind, inc = "max", 1.0
        elif n.op == "mul" and all(prog.nodes[a].type.secret for a in n.args):
            kind, inc = "sum", 0.0
        elif n.op == "mul":
            pa = n.args[0] if not prog.nodes[n.args[0]].type.secret else n.args[1]
            kind, inc = "max", noise.plain_operand_bits(mags[pa])
        else:
            kind, inc = "max", 0.0
        cands.append(Cand(i, 0.0, n.args, kind, inc, i))
    return Problem(len(prog.nodes), secret, cands, list(prog.results))


def solve_placement(prog: Program, *, time_limit: float = 10.0) -> tuple[Program, dict[str, object]]:
    """The placement-only ILP: fewest reduce_noise making ``prog`` legal, and its info.

    Existing management ops are kept (reduce_noise/bootstrap count as fresh).  Raises
    ``noise.NoiseError`` if no placement fits; on a time limit returns the best found
    (or the greedy placement, ``info["fallback"] = "greedy"``; at once when ``time_limit <= 0``).
    """
    if time_limit <= 0:  # no time left for an ILP
        return place_greedy(prog), {"status": "time_limit", "fallback": "greedy"}
    pb = program_problem(prog)
    sol = solve(pb, with_noise=True, reduce_cost=1.0, time_limit=time_limit,
                warm={cd.cls: j for j, cd in enumerate(pb.cands)})
    info = dict(sol.info)
    if not sol.pick:
        if sol.status == "infeasible":
            raise noise.NoiseError("no reduce_noise placement keeps the noise within the budget")
        info["fallback"] = "greedy"
        return place_greedy(prog), info
    info["reduce_noise"] = len(sol.reduce)
    out = insert_reduce(prog, sol.reduce)
    noise.check(out)
    return out, info


def place_noisy_ilp(prog: Program, *, time_limit: float = 10.0) -> Program:
    """The article's optimal reduce_noise placement on a fixed program."""
    return solve_placement(prog, time_limit=time_limit)[0]


def insert_reduce(prog: Program, after: set[int]) -> Program:
    """``prog`` with a reduce_noise right after every node in ``after`` (all uses rewired)."""
    from eqsat.mgmt.edit import insert_after

    return insert_after(prog, after, "reduce_noise")


def place_greedy(prog: Program) -> Program:
    """The article's baseline: reduce an op's noisiest operand(s) when the op would overflow.

    Walks in order; when an op's result would exceed the limit, inserts reduce_noise on
    its noisiest ciphertext operand and retries, until the op fits.  Raises
    ``NoiseError`` when even fresh operands overflow (no placement exists).
    """
    b = Builder(prog.name, style=prog.style)
    b.meta.update(prog.meta)
    remap: dict[int, int] = {}
    for name, ty in prog.args:
        b.arg(name, ty)
    mags = plain_magnitudes(prog)
    bits: dict[int, float] = {}  # noise of the new program's secret nodes
    for i in prog.live():
        n = prog.nodes[i]
        if n.op == "input":
            remap[i] = b._arg_ids[str(n.attrs[0])]
            if n.type.secret:
                bits[remap[i]] = float(FRESH)
            continue
        args = [remap[a] for a in n.args]
        plain = [a for a in n.args if a in mags]
        scale = plain_operand_bits(mags[plain[0]]) if plain and n.op == "mul" else 0.0
        if n.type.secret:
            while True:
                nb = op_bits(n.op, [bits.get(a) for a in args], scale)
                noisy_args = [a for a in set(args) if bits.get(a, 0.0) > FRESH]
                if nb <= LIMIT or not noisy_args:
                    break
                noisiest = max(noisy_args, key=lambda a: bits[a])
                reduced = b.unary("reduce_noise", noisiest)
                bits[reduced] = float(FRESH)
                args = [reduced if a == noisiest else a for a in args]
        cand = b.add_node(n.op, tuple(args), n.attrs, n.type)
        if n.type.secret:
            bits[cand] = op_bits(n.op, [bits.get(a) for a in args], scale)
        remap[i] = cand
    out = b.finish([remap[r] for r in prog.results]).compact()
    check(out)
    return out


def count_reduce(prog: Program) -> int:
    return sum(1 for i in prog.live() if prog.nodes[i].op == "reduce_noise")


def extract_noisy(
    g: EGraphView,
    roots: list[int],
    original: Program,
    costs: CostTable,
    *,
    time_limit: float = 10.0,
    ilp: bool = True,
) -> tuple[Program, dict[str, object]]:
    """Joint extraction + placement, checked; falls back to greedy DAG + greedy placement.
    ``ilp=False`` (``--extraction greedy``) goes straight to the greedy pair, no solver.

    Raises ``noise.NoiseError`` when no placement fits (the ILP proves it infeasible and
    the greedy fallback finds nothing either).
    """
    if not ilp:
        prog = place_greedy(to_program(g, greedy_dag(g, costs), roots, original).compact())
        return prog, {"status": "not run (greedy extraction asked)"}
    plain_bits = noise.elem_bits(program_elem(original))
    nc, info = ilp_extract_noisy(g, roots, costs, time_limit=time_limit, plain_bits=plain_bits,
                                 warm=greedy_dag(g, costs))
    if nc is not None:
        prog = build_noisy(g, nc, roots, original)
        noise.check(prog)
        return prog, info
    if info.get("status") == "infeasible":
        raise noise.NoiseError("no reduce_noise placement keeps the noise within the budget")
    greedy = greedy_dag(g, costs)
    info["fallback"] = "greedy"
    return place_greedy(to_program(g, greedy, roots, original).compact()), info
