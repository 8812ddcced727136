"""The package's layering, checked: stages import only lower (or equal) stages, and no cycles.

In: a source tree (a folder holding the package's modules, mapped to module names by
``module_files``). Out: ``violations(tree)``, a list of one-line findings -- an import of a
higher stage, or an import cycle between modules -- empty when the layering holds.

The stages, low to high, follow the data flow: errors -> IR and its meaning, pure algebra ->
models, the MILP wrapper, the frontends -> the term language -> rule specs -> rules ->
e-graph -> extraction -> management placement -> backend -> pipeline -> entry points.
Every import counts, also one inside a function.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from eqsat.algebra.graphs import strongly_connected

# (module prefix, layer); the longest matching prefix decides
LAYERS: dict[str, int] = {
    "eqsat.errors": 0,
    "eqsat.fast_init": 0,  # standard library only: a helper the IR and the e-node classes use
    "eqsat.pagewarm": 0,  # standard library (and NumPy) only: used by the server and the e-graph worker
    "eqsat.ir": 1,
    "eqsat.interp": 1,
    "eqsat.layouts": 1,
    "eqsat.layouts_aligned": 1,
    "eqsat.layouts_lanes": 1,
    "eqsat.layouts_sched": 1,
    "eqsat.algebra": 1,
    "eqsat.models": 2,
    "eqsat.milp": 2,
    "eqsat.milp_reduce": 2,
    "eqsat.milp_contract": 2,
    "eqsat.milp_cover": 2,
    "eqsat.milp_cuts": 2,
    "eqsat.milp_hitting": 2,
    "eqsat.milp_bnb": 2,
    "eqsat.frontend": 2,
    "eqsat.term": 3,
    "eqsat.term_ops": 3,
    "eqsat.rulespec": 4,
    "eqsat.rules": 5,
    "eqsat.egraph": 6,
    "eqsat.extract": 7,
    "eqsat.mgmt": 8,
    "eqsat.backend": 9,
    "eqsat.pipeline": 10,
    "eqsat.source_ahead": 10,
    "eqsat.layout_search": 10,
    "eqsat.testing": 11,
    "eqsat.cli": 11,
    "eqsat": 11,
}


def layer_of(module: str, layers: dict[str, int] = LAYERS) -> int | None:
    """The layer of ``module`` by its longest listed prefix (None: not part of the package)."""
    best: str | None = None
    for prefix in layers:
        if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > len(best)):
            best = prefix
    return None if best is None else layers[best]


def module_files(root: Path, packages: dict[str, str]) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` under ``root / folder`` per ``packages``
    (folder -> installed package name, e.g. ``{"eqsat": "eqsat", "rules": "eqsat.rules"}``)."""
    out: dict[str, Path] = {}
    for folder, package in packages.items():
        for f in sorted((root / folder).rglob("*.py")):
            rel = f.relative_to(root / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out[".".join([package, *parts])] = f
    return out


def _imports(module: str, path: Path, known: dict[str, Path]) -> Iterable[tuple[str, int]]:
    """(imported module, line) for every import in ``path``, relative ones resolved;
    ``from p import m`` imports the module ``p.m`` when ``known`` has it, else ``p``."""
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                parts = parts if is_pkg else parts[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            for a in node.names:
                sub = f"{base}.{a.name}"
                yield (sub if sub in known else base), node.lineno


def violations(root: Path, packages: dict[str, str] | None = None, layers: dict[str, int] = LAYERS) -> list[str]:
    """Imports of higher layers and import cycles under ``root`` (see the module docstring)."""
    files = module_files(root, packages or {"eqsat": "eqsat", "rules": "eqsat.rules", "backend": "eqsat.backend"})
    found: list[str] = []
    edges: dict[str, set[str]] = {m: set() for m in files}
    for mod, path in files.items():
        own = layer_of(mod, layers)
        for target, line in _imports(mod, path, files):
            if target not in files:
                continue
            edges[mod].add(target)
            other = layer_of(target, layers)
            if own is not None and other is not None and other > own:
                found.append(f"{path}:{line}: {mod} (layer {own}) imports {target} (layer {other})")
    found += [f"import cycle: {' -> '.join(c)}" for c in _cycles(edges)]
    return found


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module."""
    comps = strongly_connected(sorted(edges), lambda m: sorted(edges.get(m, ())))
    return [sorted(c) for c in comps if len(c) > 1]
