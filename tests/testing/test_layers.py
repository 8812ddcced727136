"""The layering of the package: no stage imports a higher one, no import cycles."""

from __future__ import annotations

from pathlib import Path

from eqsat.testing.layers import layer_of, violations

ROOT = Path(__file__).resolve().parents[2]


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    return tmp_path


def test_the_package_is_layered() -> None:
    assert violations(ROOT) == []


def test_stage_order_follows_the_data_flow() -> None:
    order = ["eqsat.errors", "eqsat.ir", "eqsat.models.cost", "eqsat.term", "eqsat.rulespec.spec",
             "eqsat.rules.slots", "eqsat.egraph.session", "eqsat.extract.dag", "eqsat.mgmt.manage",
             "eqsat.backend.executor", "eqsat.pipeline", "eqsat.cli"]
    layers = [layer_of(m) for m in order]
    assert layers == sorted(layers) and len(set(layers)) == len(layers)


def test_a_reversed_import_is_found(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "eqsat/__init__.py": "",
        "eqsat/ir.py": "from eqsat.pipeline import optimize\n",  # the IR reaching up to the pipeline
        "eqsat/pipeline.py": "from eqsat.ir import Program\n",
        "eqsat/extract/__init__.py": "",
        "eqsat/extract/dag.py": "def f():\n    from eqsat import mgmt\n",  # lazy imports count too
        "eqsat/mgmt/__init__.py": "",
    })
    found = violations(root, {"eqsat": "eqsat"})
    assert any("eqsat.ir (layer 1) imports eqsat.pipeline (layer 10)" in v for v in found)
    assert any("eqsat.extract.dag (layer 7) imports eqsat.mgmt (layer 8)" in v for v in found)
    assert any(v.startswith("import cycle: eqsat.ir -> eqsat.pipeline") for v in found)


def test_a_cycle_within_one_stage_is_found(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "eqsat/__init__.py": "",
        "eqsat/extract/__init__.py": "",
        "eqsat/extract/a.py": "from . import b\n",
        "eqsat/extract/b.py": "from eqsat.extract.a import x\n",
    })
    assert violations(root, {"eqsat": "eqsat"}) == ["import cycle: eqsat.extract.a -> eqsat.extract.b"]


def test_a_downward_import_is_fine(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "eqsat/__init__.py": "",
        "eqsat/ir.py": "",
        "eqsat/pipeline.py": "from eqsat.ir import Program\nfrom eqsat import ir\n",
    })
    assert violations(root, {"eqsat": "eqsat"}) == []
