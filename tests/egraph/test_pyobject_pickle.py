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
