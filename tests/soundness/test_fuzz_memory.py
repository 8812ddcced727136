"""A fuzz case keeps nothing for the next one (issue 13: serial fuzzing grew per case): the
linear maps, vectors and plans a case registers are forgotten when it ends."""

from __future__ import annotations

import numpy as np

from eqsat.algebra import linmap
from eqsat.testing.fuzz import check, draw_case, run_case


def test_scoped_registry_forgets_what_was_registered_inside() -> None:
    before = linmap.register(linmap.from_matrix(np.eye(4, dtype=np.int64)))
    with linmap.scoped_registry():
        inside = linmap.register(linmap.from_matrix(np.arange(16, dtype=np.int64).reshape(4, 4)))
        vec = linmap.register_vector(np.arange(4, dtype=np.int64) + 123456)
        linmap.plan_for(inside)
        assert linmap.lookup(inside) is not None
    maps, vectors = linmap.registry()
    assert before in maps and inside not in maps and vec not in vectors
    assert linmap.plan_for.cache_info().currsize == 0


def test_fuzz_cases_leave_the_registry_as_they_found_it() -> None:
    # seed 30 (a stencil in secret.generic) registers maps and vectors while it runs
    case = draw_case(30)
    assert case.kind == "text_stencil_generic"
    maps, vectors = (set(d) for d in linmap.registry())
    with linmap.scoped_registry():
        check(case)
        assert len(linmap.registry()[0]) > len(maps) and len(linmap.registry()[1]) > len(vectors)
    run_case(30)
    after_maps, after_vectors = (set(d) for d in linmap.registry())
    assert after_maps == maps and after_vectors == vectors
