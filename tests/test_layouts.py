"""Layouts as data: the named layouts, JSON round trips, packing, and programs over packed arguments."""

from __future__ import annotations

import json

import pytest

from eqsat import layouts as L
from eqsat.interp import evaluate
from eqsat.ir import Builder, Type

NAMED = [
    L.row_major((2, 3)), L.column_major((2, 3)), L.permuted((4,), [2, 0, 3, 1]), L.replicated((3,), 2),
    L.strided((3,), 2), L.diagonal((3, 3)), L.zero_padded((5,)), L.split((6,), 4),
]


@pytest.mark.parametrize("lay", NAMED, ids=lambda x: x.name)
def test_json_round_trip_and_pack_unpack(lay: L.Layout) -> None:
    back = L.Layout.from_json(json.loads(json.dumps(lay.to_json())))
    assert back == lay
    vals = list(range(10, 10 + lay.elements))
    vecs = L.pack(vals, lay)
    assert len(vecs) == lay.ciphertexts and all(len(v) == lay.slots for v in vecs)
    assert L.unpack(vecs, lay) == vals


def test_named_layouts_place_as_documented() -> None:
    assert L.column_major((2, 3)).slot_index() == [[0], [2], [4], [1], [3], [5]]
    assert L.replicated((2,), 2).slot_index() == [[0, 2], [1, 3]]
    assert L.diagonal((2, 2)).positions == (((0, 0),), ((1, 0),), ((1, 1),), ((0, 1),))
    assert L.zero_padded((5,)).slots == 8
    assert L.split((6,), 4).ciphertexts == 2


def test_bad_layouts_are_user_errors() -> None:
    with pytest.raises(L.LayoutError):
        L.Layout("x", (3,), 1, 4, (((0, 0),), ((0, 1),)))
    with pytest.raises(L.LayoutError):
        L.Layout("x", (1,), 1, 4, (((0, 9),),))
    with pytest.raises(L.LayoutError):
        L.Layout.from_json({"name": "x"})


@pytest.mark.parametrize("lay", [x for x in NAMED if x.shape == (3,) or x.elements == 6], ids=lambda x: x.name)
def test_repack_reads_the_packed_ciphertexts(lay: L.Layout) -> None:
    """A program over a packed argument computes the same values (reads and whole-tensor uses)."""
    b = Builder("f")
    ty = Type(lay.shape, "i16", True)
    x = b.arg("x", ty)
    s = b.add(b.extract(x, 0), b.mul(b.extract(x, 1), b.extract(x, lay.elements - 1)))
    whole = b.add(x, x)
    prog = b.finish([s, whole])
    packed = L.repack(prog, {"x": lay})
    assert L.check_packed(prog, packed)
    names = [n for n, _ in packed.program.args]
    assert names == L.arg_names("x", lay)
    vals = list(range(1, lay.elements + 1))
    got = evaluate(packed.program, L.pack_inputs({"x": vals}, packed.args))
    assert L.unpack_results(got, packed.results) == evaluate(prog, {"x": vals})
