"""The loader walks each sum and product tree once, reads its users once, and writes its row
tables joined at once: the rows and files are the ones the per-call walks and per-line
writes gave."""

from __future__ import annotations

from pathlib import Path

import pytest

from eqsat.egraph import canonical, tables
from eqsat.egraph.loader import Loader
from eqsat.ir import Builder, Program, Type


def stencil(w: int) -> Program:
    """A weighted 3-point wrapping stencil on ``w`` slots (pixel times weight, summed)."""
    b = Builder("st")
    ty = Type((w,), "i16", True)
    img = b.arg("img", ty)
    out = img
    for x in range(w):
        terms = [b.binary("mul", b.extract(img, (x + d) % w), b.const(c, Type((), "i16", False)))
                 for d, c in ((-1, 2), (0, -1), (1, 3))]
        s = b.binary("add", b.binary("add", terms[0], terms[1]), terms[2])
        out = b.insert(s, out, x)
    return b.finish([out])


def test_each_tree_is_walked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    sums: list[int] = []
    prods: list[int] = []
    orig_sum, orig_prod = canonical.CanonicalForms._sum_leaves, canonical.CanonicalForms._prod_leaves

    def count_sum(self, root, *a, **k):  # type: ignore[no-untyped-def]
        sums.append(root)
        return orig_sum(self, root, *a, **k)

    def count_prod(self, root, *a, **k):  # type: ignore[no-untyped-def]
        prods.append(root)
        return orig_prod(self, root, *a, **k)

    monkeypatch.setattr(canonical.CanonicalForms, "_sum_leaves", count_sum)
    monkeypatch.setattr(canonical.CanonicalForms, "_prod_leaves", count_prod)
    loader = Loader(stencil(8))
    loader.load()
    assert sums and prods
    assert len(sums) == len(set(sums))
    assert len(prods) == len(set(prods))


def test_tree_walks_hand_out_copies() -> None:
    loader = Loader(stencil(4))
    root = next(i for i in loader.prog.live() if loader.prog.nodes[i].op == "add"
                and not loader._inner(i, ("add", "sub", "neg")))
    pos, neg, interior = loader._sum_tree(root)
    assert len(pos) == 3 and not neg and len(interior) == 1
    pos.append(-1)
    interior.clear()
    assert loader._sum_tree(root) == (pos[:-1], [], loader._sum_tree(root)[2])
    assert len(loader._sum_tree(root)[2]) == 1


def test_users_are_computed_once() -> None:
    loader = Loader(stencil(4))
    users = loader._users()
    assert loader._users() is users
    prog = loader.prog
    expected: dict[int, list[int]] = {}
    for j in prog.live():
        for a in prog.nodes[j].args:
            expected.setdefault(a, []).append(j)
    assert users == expected


def test_table_text_is_the_lines_joined() -> None:
    rows: list[tuple[tables.Arg, ...]] = [(5, "x", 3), (6, "k1,2", -4), (7, "", 0)]
    assert tables._text(rows, "TSI") == "".join(tables._line(r, "TSI") for r in rows)
    floats: list[tuple[tables.Arg, ...]] = [(1, 2, 0.5)]
    assert tables._text(floats, "TIF") == "".join(tables._line(r, "TIF") for r in floats)
    with pytest.raises(ValueError, match="tabs and newlines"):
        tables._text([(1, "a\tb", 2)], "TSI")
    with pytest.raises(ValueError, match="tabs and newlines"):
        tables._text([(1, "a\nb", 2)], "TSI")


def test_loaded_rows_and_files_unchanged(tmp_path: Path) -> None:
    loader = Loader(stencil(8))
    loader.load()
    cmds = loader.write(tmp_path)
    assert cmds
    for path in tmp_path.glob("*.tsv"):
        table = path.stem
        text = path.read_text()
        assert text.endswith("\n")
        if table.startswith("ld_") and table[3:] in tables.LOAD_COLUMNS:
            cols = "T" + tables.LOAD_COLUMNS[table[3:]] + "II"  # and the term's facts
            rows = loader.rows[table[3:]]
            assert text == "".join(tables._line(r, cols) for r in rows)
