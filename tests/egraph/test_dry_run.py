"""A realization at load run dry (``linrot_load.DryRun``) and replayed writes what the realization writes.

The summaries' planning asks whether a key is realized by a dry run, and the emission replays
that run over the real base instead of realizing the key again (``Summaries._dry_run``,
``_realize_row``): the rows and unions must be those a realization over that base writes, in
the same order, and one dry run serves every sum or tree with the same key.
"""

from __future__ import annotations

import random

import pytest

from eqsat.algebra import rotpoly
from eqsat.egraph import linrot_load, loader, prodrot_load
from eqsat.egraph.linrot_load import DryRun, RowRealizer
from eqsat.egraph.tables import Tables
from eqsat.ir import Builder, Type


def _tables_with_base(n: int) -> tuple[Tables, int]:
    t = Tables(0)
    x = t.node("In", "x", n)
    base = t.node("Rot", x, 1)  # a base with facts of its own
    t.unions.append((base, x))  # and something written before
    return t, base


def _keys() -> list[tuple[type[RowRealizer], int, str]]:
    rng = random.Random(7)
    out: list[tuple[type[RowRealizer], int, str]] = []
    for n in (4, 8, 16, 32):
        out.append((linrot_load.Realizer, n, rotpoly.key(dict.fromkeys(range(n), 1), n)))  # a full reduction
        out.append((prodrot_load.ProdRealizer, n, rotpoly.key(dict.fromkeys(range(n), 1), n)))
        out.append((linrot_load.Realizer, n, rotpoly.key({0: 1}, n)))  # lin-one: the base itself
        out.append((linrot_load.Realizer, n, rotpoly.key({1: -2}, n)))
        for _ in range(6):
            p = {rng.randrange(n): rng.choice([1, 1, -1, 2]) for _ in range(rng.randint(1, n))}
            if rotpoly.normalize(p, n):
                out.append((linrot_load.Realizer, n, rotpoly.key(p, n)))
            s = {rng.randrange(n): 1 for _ in range(rng.randint(1, n))}
            out.append((prodrot_load.ProdRealizer, n, rotpoly.key(s, n)))
    return out


@pytest.mark.parametrize(("realizer", "n", "key"), _keys())
def test_replay_writes_what_the_realization_writes(realizer: type[RowRealizer], n: int, key: str) -> None:
    direct, base = _tables_with_base(n)
    row, ok = realizer(direct, n).row(base, key)
    replayed, base2 = _tables_with_base(n)
    run = DryRun.of(realizer, n, key)
    row2 = run.replay(replayed, base2)
    assert (row2, run.ok) == (row, ok)
    assert replayed.rows == direct.rows
    assert replayed.unions == direct.unions
    assert replayed.facts == direct.facts
    # and replayed twice (two trees with one key): each time over its own base, fresh rows
    again = run.replay(replayed, row2)
    assert again == row2 or again > row2


def test_one_dry_run_per_key_in_a_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three sums of the same five slots of three vectors (one key): the planning runs one dry
    run and the emission replays it three times, writing what three realizations wrote."""
    n = 16
    b = Builder("sums")
    xs = [b.arg(f"x{j}", Type((n,), "i16", True)) for j in range(3)]
    outs = []
    for x in xs:
        acc = b.extract(x, 0)
        for k in (1, 2, 5, 9):
            acc = b.add(acc, b.extract(x, k))
        outs.append(acc)
    prog = b.finish(outs)

    calls: list[tuple[str, int, str]] = []
    real_of = DryRun.of

    def counting(realizer: type[RowRealizer], n: int, key: str) -> DryRun:
        calls.append((realizer.OP, n, key))
        return real_of(realizer, n, key)

    monkeypatch.setattr(DryRun, "of", staticmethod(counting))
    ld = loader.Loader(prog)
    ld.load()
    assert len(calls) == 1 and len(set(calls)) == 1

    # the same tables as realizing each sum afresh (no dry run to replay)
    monkeypatch.setattr(DryRun, "of", staticmethod(real_of))
    fresh = loader.Loader(prog)
    monkeypatch.setattr(fresh, "_dry_run", lambda realizer, n, key: real_of(realizer, n, key))
    fresh.load()
    assert fresh._dry_runs == {}  # every realization direct
    assert (ld.rows, ld.unions, ld.name, ld.root_rows) == (fresh.rows, fresh.unions, fresh.name, fresh.root_rows)
    assert len(ld.rows["LinRot"]) >= 3
