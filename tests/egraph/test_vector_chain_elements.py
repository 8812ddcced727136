"""A chain's element arithmetic is no summary's when the chain loads as its vector form.

``Summaries._plan_summaries`` plans the chains first and asks, of every chain it does not
summarize, which nodes its vector form would cover (``VectorChains._vector_chain_elems``);
it plans no one-vector sum or product summary inside them. Before, a sub-sum of an element
with three slot reads of one vector (``(x1[i-3] + d[i]) - (x1[i] - x1[i])``: a self-cancelling
term; ``(x1[i-1] + x1[i+1]) - x1[i-1]``; ``x1[i-2] + 0 * x1[i] + x1[i+2]``; three distinct
reads) or a sub-product of three reads was summarized, its interior covered, and the chain's
vector form stopped at the covered node: the chain stayed slot by slot (slot-uniform seed
104793, 135 live slots: 269 extracts, 135 inserts). Checked on several shapes, sizes (odd
ones, below and above ``SUMMARY_CHAIN_SLOTS``), zero padding and wrap-around and the
writing styles; a property test on random templates of the class: adding a term that
cancels (``a - a``, ``(a + b) - a``, ``0 * a``, ``a * (b - b)``) to a template does not
change whether its chain loads without a live slot access (as its vector form, or as a
realized summary), and a chain that does optimizes to a program without slot accesses that
computes what the source computes.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eqsat
from eqsat.egraph.loader import Loader
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Program
from eqsat.testing.slot_uniform import SlotUniformCase, render


def R(x: str, off: int) -> tuple:
    return ("read", x, off)


#: templates whose element holds a summarizable sub-sum or sub-product (see the docstring)
SHAPES = {
    "a - a": ("mul", R("x0", 3), ("sub", ("add", R("x1", -3), ("dense", 0)), ("sub", R("x1", 0), R("x1", 0)))),
    "a - a, no data": ("mul", R("x0", 1), ("add", R("x1", -2), ("sub", R("x1", 0), R("x1", 0)))),
    "(a + b) - a": ("mul", R("x0", 2), ("sub", ("add", R("x1", -1), R("x1", 1)), R("x1", -1))),
    "0 * a": ("mul", R("x0", -1), ("add", ("add", R("x1", -2), ("mul", ("scalar", 0), R("x1", 0))), R("x1", 2))),
    "three reads": ("mul", R("x0", 0), ("add", ("add", R("x1", -1), R("x1", 0)), R("x1", 1))),
    "three factors": ("add", ("mul", ("mul", R("x1", -1), R("x1", 0)), R("x1", 1)), R("x0", 2)),
}


def _case(template: tuple, size: int, padding: str, style: str) -> tuple[SlotUniformCase, Program]:
    case = render(template, size, padding, style, dense=[[(7 * j) % 10 for j in range(size)]])
    return case, eqsat.parse_mlir(case.mlir, "<template>")[0]


def _loads_as_its_vector_form(prog: Program) -> bool:
    loader = Loader(prog)
    loader.load()
    planned = list(loader.vector_chains) == list(prog.results)
    assert not planned or (not loader.rows["Ext"] and not loader.rows["Ins"]), "no live slot access of the chain"
    return planned


def _loads_without_slot_access(prog: Program) -> bool:
    loader = Loader(prog)
    loader.load()
    return not loader.rows["Ext"] and not loader.rows["Ins"]


@pytest.mark.parametrize("style", ["insert", "from_elements", "swapped"])
@pytest.mark.parametrize(("size", "padding"), [(9, "wrap"), (33, "wrap"), (67, "zero"), (67, "wrap"),
                                               (135, "zero"), (135, "wrap")])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_chain_with_a_summarizable_part_in_its_element_loads_as_its_vector_form(
        shape: str, size: int, padding: str, style: str) -> None:
    _, prog = _case(SHAPES[shape], size, padding, style)
    assert _loads_as_its_vector_form(prog)


def test_a_short_zero_padded_chain_with_per_slot_data_loads_as_its_vector_form() -> None:
    """Per-slot data (``d[i]``) plans a short zero-padded chain too (``_per_slot_data``)."""
    for size in (9, 33):
        assert _loads_as_its_vector_form(_case(SHAPES["a - a"], size, "zero", "insert")[1])


def test_a_short_zero_padded_chain_without_per_slot_data_stays_live() -> None:
    """Unchanged: such a chain is left to the slot rules, and its sub-sum is summarized."""
    _, prog = _case(SHAPES["(a + b) - a"], 33, "zero", "insert")
    loader = Loader(prog)
    loader.load()
    assert not loader.vector_chains and loader.summarized_sums


@pytest.mark.parametrize(("shape", "size", "padding"), [("a - a", 135, "zero"), ("a - a", 67, "wrap"),
                                                         ("(a + b) - a", 101, "zero"), ("0 * a", 9, "wrap"),
                                                         ("three factors", 75, "zero")])
def test_a_chain_with_a_summarizable_part_in_its_element_is_vectorized(shape: str, size: int, padding: str) -> None:
    case, prog = _case(SHAPES[shape], size, padding, "swapped")
    res = eqsat.optimize(prog)
    ops = res.report["after"]["ops"]  # type: ignore[index]
    assert not ops.get("extract") and not ops.get("insert"), ops
    assert ops.get("rotate", 0) <= case.distinct_reads, ops
    for s in range(2):
        inputs = random_inputs(prog, s)
        assert results_equal(evaluate(prog, inputs), evaluate(res.program, inputs))


# -- the property: a cancelling term changes nothing --------------------------------------
OFFSETS = st.integers(-3, 3)


@st.composite
def templates(draw: st.DrawFn) -> tuple[tuple, tuple]:
    """(a template with a cancelling term, the same template without it)."""
    terms = [R("x1", o) for o in draw(st.lists(OFFSETS, min_size=1, max_size=3))]
    if draw(st.booleans()):
        terms.append(("dense", 0))
    signs = [draw(st.sampled_from(["add", "sub"])) for _ in terms[1:]]

    def total(ts: list[tuple]) -> tuple:
        acc = ts[0]
        for op, t in zip(signs, ts[1:], strict=True):
            acc = (op, acc, t)
        return acc

    plain = total(terms)
    c, d = draw(OFFSETS), draw(OFFSETS)
    kind = draw(st.sampled_from(["a - a", "(a + b) - a", "0 * a", "a * (b - b)"]))
    if kind == "a - a":
        cancelled = (draw(st.sampled_from(["add", "sub"])), plain, ("sub", R("x1", c), R("x1", c)))
    elif kind == "(a + b) - a":  # the first term b as (a + b) - a
        cancelled = total([("sub", ("add", R("x1", c), terms[0]), R("x1", c)), *terms[1:]])
    elif kind == "0 * a":
        cancelled = ("add", plain, ("mul", ("scalar", 0), R("x1", c)))
    else:
        cancelled = ("add", plain, ("mul", R("x1", c), ("sub", R("x0", d), R("x0", d))))
    factor = R("x0", draw(OFFSETS))
    # (``a * (b - b)`` beside a linear template is no linear form to the summaries: its chain
    # of 65 slots is summarized where it is linear, slot rules keep the rest, as any chain
    # with at most ``SUMMARY_CHAIN_SLOTS`` other elements; the program optimizes the same)
    if kind == "a * (b - b)" or draw(st.booleans()):
        return ("mul", factor, cancelled), ("mul", factor, plain)
    return ("add", cancelled, factor), ("add", plain, factor)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(templates(), st.integers(5, 140), st.sampled_from(["zero", "wrap"]),
       st.sampled_from(["insert", "from_elements", "swapped"]))
def test_a_cancelling_term_does_not_change_how_a_chain_loads(pair: tuple[tuple, tuple], size: int, padding: str,
                                                             style: str) -> None:
    cancelled, plain = pair
    case, prog = _case(cancelled, size, padding, style)
    _plain_case, plain_prog = _case(plain, size, padding, style)
    # its vector form, or a summary realized at load (linear elements above
    # ``SUMMARY_CHAIN_SLOTS`` slots): no live slot access
    planned = _loads_without_slot_access(prog)
    assert planned == _loads_without_slot_access(plain_prog), case.mlir.splitlines()[0]
    if planned and size <= 40:  # the whole pipeline on the smaller ones (each well under a second)
        res = eqsat.optimize(prog)
        ops = res.report["after"]["ops"]  # type: ignore[index]
        assert not ops.get("extract") and not ops.get("insert"), (case.template, ops)
        inputs = random_inputs(prog, 0)
        assert results_equal(evaluate(prog, inputs), evaluate(res.program, inputs)), case.template
