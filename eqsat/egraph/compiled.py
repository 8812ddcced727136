"""The egglog program text of the term language, the analyses and the rule families, compiled once.

In: section names -- ``"term"`` (sort ``T``, its constructors, the ``slots`` analysis),
``"noise-analysis"`` (``eqsat.egraph.noise_analysis``) and every rule family of
``eqsat.rules.REGISTRY`` by its name -- or an egglog ``Ruleset`` object built elsewhere.
Out: ``section(name)``, a ``Section``: the egglog text that declares what the section adds
(functions, one ruleset and its rules) and the egglog name of its ruleset (``ident``).

Why: turning the rule definitions into egglog through egglog's Python API
(``eqsat.rulespec.spec.to_egglog``, then egglog's conversion of every expression into a
command) cost 1-6 s at every start of the CLI and about 0.4 s for every new e-graph, before
any work on the program. The same commands as text parse and register in a fraction of
that. The text is what egglog's Python API itself sends (recorded from an ``EGraph`` with
``save_egglog_string``), so the rules run exactly as they did; the oracles a rule calls are
the ``py-object`` references egglog pickles (module functions, pickled by name).

The sections are built together on first use and cached in one JSON file per *key*: a hash
of egglog's installation (its files' paths, sizes and modification times) and of the source
of every module that defines the text (the term language, the rule specs and oracles, the
rule families, the algebra the oracles call, the noise analysis and this file). Any edit to
those gives a new key, so a stale text is never read. The cache lives in
``$EQSAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/eqsat``, else ``~/.cache/eqsat``; when it
cannot be written the sections are kept for the process only.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

CACHE_VERSION = 3


@dataclass(frozen=True)
class Section:
    """egglog text declaring one ruleset (and the functions it adds), and the ruleset's name."""

    text: str
    ident: str
    #: the ruleset deleting the rows of the section's oracle tables (``eqsat.egraph.oracle_tables``;
    #: "" when it has none): the tables are filled by the term analysis's ruleset
    drop: str = ""
    #: the egglog name of the family's eager ruleset (``RuleFamily.eager_ruleset``; "" when it
    #: has no eager rule), declared by ``text`` too
    eager: str = ""


TERM = "term"
NOISE = "noise-analysis"

_MEMO: dict[str, Section] = {}
_ADHOC: dict[int, tuple[Any, Section]] = {}


_ROOT = Path(__file__).resolve().parent.parent  # the eqsat package


def _package_dirs() -> list[Path]:
    import eqsat.rules as rules_package

    return [_ROOT / "rulespec", _ROOT / "algebra", Path(str(rules_package.__file__)).resolve().parent]


def _source_files() -> list[Path]:
    root = _ROOT
    files = [root / "term.py", root / "egraph" / "noise_analysis.py", root / "egraph" / "rule_cse.py",
             root / "egraph" / "oracle_tables.py", Path(__file__).resolve()]
    for d in _package_dirs():
        files += sorted(d.glob("*.py"))
    return files


def _egglog_installation() -> str:
    """egglog's installation, by the path, size and modification time of its package's files
    at the top of its folder (the Rust bindings among them), found without loading it: a
    new version or a reinstall changes it.  (Not ``importlib.metadata.version``: importing
    ``importlib.metadata`` alone took 0.04-0.07 s of every command.)"""
    from eqsat.egraph.egglog_import import package_folders

    parts = []
    for folder in package_folders():
        for f in sorted(Path(folder).iterdir()):
            if f.is_file():
                st = f.stat()
                parts.append(f"{f}|{st.st_size}|{st.st_mtime_ns}")
    return "\n".join(parts) or "egglog missing"


def cache_key() -> str:
    """A hash of egglog's installation and the source text of everything that defines the sections."""
    h = hashlib.sha256(f"v{CACHE_VERSION}|{_egglog_installation()}|".encode())
    for f in _source_files():
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def cache_dir() -> Path:
    env = os.environ.get("EQSAT_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "eqsat"


def _strip_runs(text: str) -> str:
    """The recorded commands without the ``run-schedule`` that made egglog register them."""
    return "\n".join(line for line in text.split("\n") if not line.startswith("(run-schedule"))


def _record(ruleset: Any | None, eager: Any | None = None) -> Section:
    """The text egglog's Python API sends to declare ``ruleset`` (and a family's ``eager``
    ruleset) on a fresh e-graph holding the term language (``None``: the term language itself)."""
    from egglog import EGraph

    from eqsat import term
    from eqsat.egraph import oracle_tables, rule_cse

    eg = EGraph(save_egglog_string=True)
    term.declare(eg)
    base = eg._state.egraph.commands() or ""
    if ruleset is None:
        return Section(rule_cse.rewrite(_strip_runs(base)), str(term.slots_analysis.ident))
    eg.run(ruleset)  # on the empty e-graph: registers the rules, matches nothing
    if eager is not None:
        eg.run(eager)
    full = eg._state.egraph.commands() or ""
    if not full.startswith(base):
        raise RuntimeError("egglog's recorded commands are not append-only")
    # oracles answered from tables, once per key; what remains a call is bound once per rule
    tabled = oracle_tables.rewrite(_strip_runs(full[len(base):]), str(ruleset.ident),
                                   str(term.slots_analysis.ident), base)
    return Section(rule_cse.rewrite(tabled.text), str(ruleset.ident), tabled.drop,
                   str(eager.ident) if eager is not None else "")


def _build() -> dict[str, Section]:
    from eqsat.egraph.noise_analysis import noise_analysis
    from eqsat.rules import REGISTRY

    out = {TERM: _record(None), NOISE: _record(noise_analysis)}
    for name, fam in REGISTRY.items():
        out[name] = _record(fam.ruleset, fam.eager_ruleset)
    return out


def _as_json(sections: dict[str, Section]) -> dict[str, dict[str, str]]:
    """The sections as the cache file (and a child builder) writes them."""
    return {k: asdict(sec) for k, sec in sections.items()}


def _from_json(data: dict[str, dict[str, str]]) -> dict[str, Section]:
    """``_as_json``'s inverse (a missing or unknown field: ``TypeError``; not a mapping:
    ``AttributeError`` -- a damaged cache, rebuilt)."""
    return {k: Section(**fields) for k, fields in data.items()}


def _build_elsewhere(key: str) -> dict[str, Section] | None:
    """``_build()`` in a child interpreter (None when that fails or sees other sources).

    Why: building runs egglog, which starts its thread pool, and a pool does not survive
    ``fork``: the e-graph worker forked after an in-process build waited forever on threads
    that do not exist in it (measured: the first run after an edit of the rules returned the
    unoptimized program when its time limit ran out)."""
    import subprocess
    import sys

    code = ("import json, sys\nfrom eqsat.egraph import compiled\n"
            "built = compiled._build()\n"
            "json.dump({'key': compiled.cache_key(), 'sections': compiled._as_json(built)}, sys.stdout)\n")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        data = json.loads(out)
        if data["key"] != key:
            return None
        return _from_json(data["sections"])
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _load_or_build() -> None:
    key = cache_key()
    path = cache_dir() / f"rules-{key}.json"
    try:
        data = json.loads(path.read_text())
        _MEMO.update(_from_json(data))
        return
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # missing or damaged: rebuilt
        pass
    built = _build_elsewhere(key) or _build()
    _MEMO.update(built)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".rules-", suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(_as_json(built), f)
        os.replace(tmp, path)  # atomic: parallel processes never read half a file
    except OSError:
        pass  # an unwritable cache: the sections stay in this process only


def is_cached() -> bool:
    """Whether the sections are in this process or in the cache file (``section`` then reads
    them instead of building them)."""
    return bool(_MEMO) or (cache_dir() / f"rules-{cache_key()}.json").is_file()


def section(name: str) -> Section:
    """The section ``name`` (``"term"``, ``"noise-analysis"`` or a rule family's name)."""
    if not _MEMO:
        _load_or_build()
    try:
        return _MEMO[name]
    except KeyError:
        raise KeyError(f"no compiled section {name!r} (known: {', '.join(sorted(_MEMO))})") from None


def drop_of(ident: str) -> str:
    """The ruleset deleting the oracle-table rows of the section whose ruleset is ``ident`` (""
    when it has none or is not known to this process)."""
    for sec in (*_MEMO.values(), *(hit[1] for hit in _ADHOC.values())):
        if sec.ident == ident:
            return sec.drop
    return ""


def ruleset_section(ruleset: Any, eager: Any | None = None) -> Section:
    """The section of an egglog ``Ruleset`` object: a family's cached one when it is a
    family's ruleset, else recorded now (kept for the process), with ``eager``, the family's
    eager ruleset (``RuleFamily.eager_ruleset``), if any."""
    ident = str(ruleset.ident)
    section(TERM)  # reads (or builds) the cache
    for sec in _MEMO.values():
        if sec.ident == ident:
            return sec
    hit = _ADHOC.get(id(ruleset))
    if hit is None or hit[0] is not ruleset:
        hit = (ruleset, _record(ruleset, eager))
        _ADHOC[id(ruleset)] = hit
    return hit[1]
