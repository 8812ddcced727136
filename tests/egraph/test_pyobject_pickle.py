"""eqsat/egraph/pyobject_pickle.py: the fast ``cloudpickle.dumps`` gives cloudpickle's own bytes
for the plain values egglog stores, passes everything else to cloudpickle, and is in place
wherever egglog's bindings are loaded."""

from __future__ import annotations

import cloudpickle
from hypothesis import given
from hypothesis import strategies as st

from eqsat.egraph import egglog_import, pyobject_pickle

PLAIN = st.one_of(st.integers(), st.integers(min_value=-(2**200), max_value=2**200), st.text(), st.binary(),
                  st.floats(allow_nan=False), st.booleans(), st.none())


def test_the_bindings_install_it() -> None:
    egglog_import.bindings()
    assert pyobject_pickle.original_dumps() is not None
    assert cloudpickle.dumps is not pyobject_pickle.original_dumps()


@given(PLAIN)
def test_plain_values_pickle_to_cloudpickles_bytes(value: object) -> None:
    pyobject_pickle.install()
    original = pyobject_pickle.original_dumps()
    assert cloudpickle.dumps(value) == original(value)
    assert cloudpickle.loads(cloudpickle.dumps(value)) == value


def test_other_objects_go_through_cloudpickle() -> None:
    pyobject_pickle.install()
    fn = lambda x: x * 2  # noqa: E731 -- a lambda only cloudpickle pickles
    assert cloudpickle.loads(cloudpickle.dumps(fn))(3) == 6
    assert cloudpickle.dumps((1, "a")) == pyobject_pickle.original_dumps()((1, "a"))
    assert cloudpickle.dumps(3, protocol=4) == pyobject_pickle.original_dumps()(3, protocol=4)


def test_egglog_oracles_see_the_same_values() -> None:
    # an oracle rule run through egglog: its PyObject arguments and result go through the fast path
    from pathlib import Path

    import eqsat
    from eqsat.cli import _read_program

    ex = Path(__file__).resolve().parents[2] / "examples" / "sum_8.mlir"
    res = eqsat.optimize(_read_program(str(ex), None))
    assert res.report["after"]["ops"].get("rotate") == 3  # type: ignore[index, union-attr]


def test_inside_memoized_the_same_bytes_and_equal_objects() -> None:
    pyobject_pickle.install()
    from eqsat.rulespec import slot_oracles
    from eqsat.rulespec.unary import Unary

    values: list[object] = [0, 7, -3, 2**70, "", "1:1,3:-2", slot_oracles.poly_add, Unary(slot_oracles.single_offset)]
    outside = [cloudpickle.dumps(v) for v in values]
    data = cloudpickle.dumps({"a": 1})
    with pyobject_pickle.memoized():
        for _ in range(2):  # a miss, then a hit
            assert [cloudpickle.dumps(v) for v in values] == outside
            back = [cloudpickle.loads(b) for b in outside]
            assert back[:6] == values[:6] and back[6] is slot_oracles.poly_add
            assert back[7].fn is slot_oracles.single_offset  # type: ignore[attr-defined]
        # a mutable object is unpickled afresh at every call
        first = cloudpickle.loads(data)
        first["a"] = 2
        assert cloudpickle.loads(data) == {"a": 1}
    assert cloudpickle.dumps is not pyobject_pickle._DUMPS.__getitem__
    assert cloudpickle.loads(outside[1]) == 7
