"""The compiled rule text (``eqsat.egraph.compiled``): cached by a key of its sources, the same
rules as egglog's Python API sends, every section loadable beside every other."""

from __future__ import annotations

from pathlib import Path

import pytest
from egglog import bindings, rule, ruleset, union, var

from eqsat import term
from eqsat.egraph import compiled
from eqsat.egraph.session import Limits, Session
from eqsat.frontend.mlir import parse_mlir
from eqsat.rules import REGISTRY

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_every_section_loads_beside_the_others() -> None:
    eg = bindings.EGraph()
    names = [compiled.TERM, compiled.NOISE, *REGISTRY]
    for name in names:
        eg.run_program(*eg.parse_program(compiled.section(name).text))
    idents = {compiled.section(n).ident for n in names}
    assert len(idents) == len(names)
    for name, fam in REGISTRY.items():
        text = compiled.section(name).text
        assert all(f':name "{spec.name}"' in text for spec in fam.specs), name


def test_cache_is_written_and_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EQSAT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compiled, "_MEMO", {})
    ring = compiled.section("ring")
    files = list(tmp_path.glob("rules-*.json"))
    assert [f.name for f in files] == [f"rules-{compiled.cache_key()}.json"]
    monkeypatch.setattr(compiled, "_MEMO", {})
    monkeypatch.setattr(compiled, "_build", lambda: pytest.fail("the cache was not read"))
    assert compiled.section("ring") == ring


@pytest.mark.parametrize("damaged", ["[]", '{"term": ["text"]}', '{"term": {"text": "t", "ident": "i"}, "x": 1}',
                                     '{"term": {"text": "t", "ident": "i", "drop": "", "old": ""}}'])
def test_a_damaged_cache_is_built_again(damaged: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EQSAT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compiled, "_MEMO", {})
    (tmp_path / f"rules-{compiled.cache_key()}.json").write_text(damaged)
    built = {compiled.TERM: compiled.Section("(ruleset r)", "r")}
    monkeypatch.setattr(compiled, "_build_elsewhere", lambda key: dict(built))
    assert compiled.section(compiled.TERM) == built[compiled.TERM]
    assert compiled._from_json(compiled._as_json(built)) == built  # and the rebuilt file reads back


def test_key_follows_the_sources(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    before = compiled.cache_key()
    extra = tmp_path / "extra.py"
    extra.write_text("x = 1\n")
    files = compiled._source_files()
    monkeypatch.setattr(compiled, "_source_files", lambda: [*files, extra])
    changed = compiled.cache_key()
    assert changed != before
    extra.write_text("x = 2\n")
    assert compiled.cache_key() not in (before, changed)


def test_an_unregistered_ruleset_runs_too() -> None:
    prog = parse_mlir((EXAMPLES / "sum_8.mlir").read_text())[0]
    rs = ruleset(name="test-adhoc")
    a, b = var("a", term.T), var("b", term.T)
    rs.register(rule(term.Add(a, b)).then(union(term.Add(a, b)).with_(term.Add(b, a))))
    s = Session(prog)
    rep = s.saturate([rs], Limits(iterations=3))
    assert rep.rule_matches
    assert compiled.ruleset_section(rs).ident == str(rs.ident)


def test_the_first_run_after_an_edit_saturates(tmp_path: Path) -> None:
    """With no cached text the CLI builds it (in a child interpreter) and still optimizes: an
    in-process build started egglog's thread pool before the e-graph worker was forked, and
    the worker hung until the time limit returned the source program."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "EQSAT_CACHE_DIR": str(tmp_path), "EQSAT_NO_SERVER": "1"}
    env.pop("EQSAT_IN_PROCESS", None)
    out = subprocess.run([sys.executable, "-m", "eqsat.cli", "optimize", str(EXAMPLES / "sum_8.mlir"), "--json",
                          "--time-limit", "120"], capture_output=True, text=True, env=env, check=True, timeout=600)
    report = json.loads(out.stdout)
    assert report["stop_reason"] == "saturated"
    assert report["after"]["ops"] == {"rotate": 3, "add": 3}
    assert list(tmp_path.glob("rules-*.json"))
