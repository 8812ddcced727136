"""Goal tests for issue 3 from HEIR's own lit cases (``tests/heir_cases/*.mlir``).

Each case is our MLIR, written from one of HEIR's public test functions
(collapse_insertion_chains, rotate_and_reduce, insert_rotate, heco_simd_vectorizer); the
header of each file names its source and what was adapted.  One test per case:

1. optimize with the default schedule and limits (BGV cost table);
2. **correctness, never expected to fail**: the optimized program equals the source on
   random inputs (cleartext, mod t), and runs encrypted under BGV (small N, insecure)
   with ``match`` true;
3. **the counts**: HEIR's bound (what its CHECK lines establish) and the target (HEIR's
   count where it is the best known, issue 3's or the evident optimum where that is
   better).  A miss raises ``TargetNotMet``; cases known to miss are marked
   ``xfail(strict=True, raises=TargetNotMet)``, so they flip to XPASS (a failure) once the
   rewrite rules reach the target, and any other failure (a wrong result, a failed
   encrypted run, a crash) still fails.

Counting: ``moves`` is ``rotate + extract`` (an extract of a slot other than 0 costs a
rotation in any lowering, and the reports count only those).  Where HEIR's output ends
with an extract of a slot other than 0, its bound counts that extract as a move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from eqsat.backend import run_program
from eqsat.egraph.session import Limits
from eqsat.frontend.mlir import MLIRError, parse_mlir
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Program
from eqsat.pipeline import OptimizeResult, optimize

CASES_DIR = Path(__file__).resolve().parents[1] / "heir_cases"
T = 65537


class TargetNotMet(Exception):
    """The optimized program is correct but does not reach the target op counts."""


Counts = dict[str, int]


@dataclass(frozen=True)
class Case:
    """``heir``/``target``: op name (or ``moves``) -> bound; ``exact`` names the ops whose
    target is an equality (the rest are upper bounds)."""

    name: str
    heir: Counts = field(default_factory=dict)
    target: Counts = field(default_factory=dict)
    exact: tuple[str, ...] = ()
    measured: str = ""  # set: the target is not met yet (strict xfail), with what we get
    slow: bool = False
    limits: Limits | None = None  # None: the default Limits


def _c(name: str, heir: Counts | None = None, target: Counts | None = None, exact: tuple[str, ...] = (),
       measured: str = "", slow: bool = False, limits: Limits | None = None) -> Case:
    return Case(name, heir or {}, target if target is not None else dict(heir or {}), exact, measured, slow,
                limits)


NO_SLOTS = {"rotate": 0, "extract": 0, "insert": 0}

CASES: list[Case] = [
    # --- collapse_insertion_chains ---------------------------------------------------------------
    _c("cic_full_chain_4", {"rotate": 1, "extract": 0, "insert": 0, "mul_plain": 0},
       exact=("rotate",)),
    _c("cic_partial_chain_zero_8", target={"rotate": 1, "mul_plain": 1, "extract": 0, "insert": 0},
       exact=("rotate", "mul_plain")),
    # the loader orders a chain's places by (source, offset): gathers that merge are neighbours
    _c("cic_partial_chain_into_arg_8", target={"rotate": 1, "mul_plain": 2, "extract": 0, "insert": 0},
       exact=("rotate", "mul_plain")),
    _c("cic_two_sources_8", target={"rotate": 2, "mul_plain": 2, "extract": 0, "insert": 0},
       exact=("rotate", "mul_plain")),
    _c("cic_not_supported_reversal_8"),
    _c("cic_not_supported_repeated_slot_4"),
    # --- rotate_and_reduce ---------------------------------------------------------------------
    _c("rr_simple_sum_8", {"rotate": 3, "extract": 0}, exact=("rotate",)),
    # lin-pull-add: the tensors are added first, then reduced once (HEIR reduces each)
    _c("rr_simple_sum_two_tensor", {"rotate": 4, "extract": 0}, {"rotate": 2, "extract": 0}, exact=("rotate",)),
    _c("rr_two_sums_two_results", {"rotate": 4, "extract": 0}, exact=("rotate",)),
    _c("rr_mixed_rotation_tensor", {"rotate": 3}, exact=("rotate",)),
    _c("rr_mixed_rotation_extraction", {"rotate": 3, "extract": 0}, exact=("rotate",)),
    _c("rr_not_supported_mixed_ops", {"moves": 7}),
    _c("rr_not_supported_mixed_ops_mixed_rotation_extraction", {"moves": 7}),
    # lin-complement: the full sum minus slot 15 (4 + 1 rotations)
    _c("rr_not_supported_missing_indices", {"moves": 14}, {"moves": 5}),
    # six hoisted rotations of v (cost 122) beat lin-complement-shifted's four sequential ones
    # (125) under the default table; priced without hoisting it is 4 (test_goals_slots.py)
    _c("rr_not_supported_repeated_indices", {"moves": 7}),
    # lin-complement: v0 - v1 - ... - v7 = 2 v0 - sum(v), a full reduction (HEIR: 5 + an extract)
    _c("rr_not_supported_unsupported_op", {"moves": 7}, {"moves": 3}),
    _c("rr_not_supported_bad_tensor_shape", {"moves": 7}, {"rotate": 3, "extract": 0}, exact=("rotate",)),
    _c("rr_not_supported_multiple_tensors", {"moves": 7}),
    _c("rr_sum_non_tensor_operands", {"rotate": 3, "extract": 0}, exact=("rotate",)),
    _c("rr_sum_multiple_non_tensor_operands", {"rotate": 3, "extract": 0}, exact=("rotate",)),
    _c("rr_sum_operand_from_another_tensor", {"rotate": 3, "extract": 0}, exact=("rotate",)),
    _c("rr_not_supported_save_not_rotated_tensor", {"rotate": 7}, {"rotate": 3}),
    _c("rr_not_supported_mixed_op_non_tensor_operands", {"moves": 7}),
    # lin-rot (eager) with lin-add: a chain of source rotations grows one step per iteration (26 of the default 40)
    _c("rr_sum_of_linear_rotates_32", {"rotate": 5, "moves": 6}, {"rotate": 5, "moves": 5}),
    _c("rr_rotation_missing", {"moves": 3}),
    _c("rr_rotation_duplicated", {"moves": 4}),
    _c("rr_rotation_multiple_tensors", {"moves": 4}),
    _c("rr_rotation_mixed_ops", {"moves": 4}),
    # prod-pair-base-r: the chain's first product rot(v, 1) * v starts the ProdRot that prod-rot
    # (eager) with prod-merge carries up the chain (lin-rot with lin-add the sum's), one step an
    # iteration; the first rotation is shared with the sum; default limits (both chains are
    # realized at load beside the source, eqsat.egraph.summaries: saturates in 10 iterations)
    _c("rr_reduce_add_and_mul_32", {"rotate": 9, "moves": 11}, {"rotate": 9, "moves": 9, "mul": 5},
       exact=("rotate", "mul")),
    _c("rr_dot_product_regression", target={"rotate": 2, "mul": 1, "extract": 0}, exact=("mul",)),
    _c("rr_sum_loop_8", {"rotate": 3, "extract": 0}, exact=("rotate",)),
    _c("rr_sum_loop_16", {"rotate": 4, "extract": 0}, exact=("rotate",)),
    _c("rr_sum_loop_32", {"rotate": 5, "extract": 0}, exact=("rotate",), slow=True),
    _c("rr_product_loop_8", target={"rotate": 3, "mul": 3, "extract": 0}, exact=("rotate", "mul")),
    _c("rr_product_loop_16", target={"rotate": 4, "mul": 4, "extract": 0}, exact=("rotate", "mul"),
       slow=True),
    _c("rr_product_loop_32", target={"rotate": 5, "mul": 5, "extract": 0}, exact=("rotate", "mul"),
       slow=True),
    _c("rr_partial_sum_strided_16", target={"rotate": 3, "extract": 0, "mul_plain": 0}),
    _c("rr_partial_sum_half_16", target={"rotate": 3, "extract": 0, "mul_plain": 0}),
    # --- insert_rotate -------------------------------------------------------------------------
    _c("ir_insert_rotation_for_add", {"moves": 3}),
    _c("ir_splat"),
    # --- heco_simd_vectorizer ------------------------------------------------------------------
    _c("heco_box_blur_4x4", {**NO_SLOTS, "rotate": 7}, {**NO_SLOTS, "rotate": 4}),
    _c("heco_box_blur_8x8", {**NO_SLOTS, "rotate": 7}, {**NO_SLOTS, "rotate": 4}, slow=True),
    _c("heco_gx_kernel_4x4", {**NO_SLOTS, "rotate": 6}, {**NO_SLOTS, "rotate": 4}),
    _c("heco_gx_kernel_8x8", {**NO_SLOTS, "rotate": 6}, {**NO_SLOTS, "rotate": 4}, slow=True),
    # rot-align-*-r and place-ext-joins: the slots that read a pixel unrotated align like the rest
    _c("heco_roberts_cross_4x4_as_written", target={"rotate": 2, "mul": 2, "extract": 0, "insert": 0},
       exact=("rotate", "mul")),
    _c("heco_roberts_cross_4x4", target={"rotate": 3, "mul": 2, "extract": 0, "insert": 0}, exact=("rotate", "mul")),
    _c("heco_roberts_cross_8x8", target={"rotate": 3, "mul": 2, "extract": 0, "insert": 0}, exact=("rotate", "mul"),
       slow=True),
    _c("heco_hamming_distance_4", {"rotate": 2, "mul": 1, "extract": 0}, exact=("rotate", "mul")),
    _c("heco_dot_product_8", {"rotate": 3, "mul": 1, "extract": 0}, exact=("rotate", "mul")),
    _c("heco_linear_polynomial_64", {**NO_SLOTS, "mul": 1}, exact=("mul",)),
    _c("heco_quadratic_polynomial_64", {**NO_SLOTS, "mul": 2}, exact=("mul",)),
    # lin-pull-add: the four tensors are added, then reduced once (HEIR: 5 per tensor)
    _c("heco_simple_sum_nested_4x32", {"rotate": 20, "extract": 0}, {"rotate": 5, "extract": 0},
       exact=("rotate",), slow=True),
]


BY_NAME = {c.name: c for c in CASES}


def load_case(name: str) -> Program:
    path = CASES_DIR / f"{name}.mlir"
    return parse_mlir(path.read_text(), str(path))[0]


def optimized(name: str) -> OptimizeResult:
    return optimize(load_case(name), scheme="bgv", limits=BY_NAME[name].limits)


def count(ops: Counts, key: str) -> int:
    if key == "moves":
        return ops.get("rotate", 0) + ops.get("extract", 0)
    return ops.get(key, 0)


def misses(ops: Counts, bounds: Counts, exact: tuple[str, ...] = ()) -> list[str]:
    out = []
    for key, k in bounds.items():
        got = count(ops, key)
        if got != k if key in exact else got > k:
            out.append(f"{key}: {'expected' if key in exact else 'at most'} {k}, got {got}")
    return out


def check_correct(prog: Program, res: OptimizeResult) -> None:
    for seed in range(3):
        inputs = random_inputs(prog, seed, bound=50)
        assert results_equal(evaluate(prog, inputs, T), evaluate(res.program, inputs, T), T), (
            f"optimized program differs from the source on seed {seed}"
        )
    enc = run_program(res.program, random_inputs(prog, 7), "bgv", insecure=True, seed=7)
    assert enc["match"], f"encrypted run does not match: {enc['outputs']} != {enc['reference']}"


def _param(case: Case) -> object:
    marks: list[pytest.MarkDecorator] = []
    if case.slow:
        marks.append(pytest.mark.slow)
    if case.measured:
        marks.append(pytest.mark.xfail(strict=True, raises=TargetNotMet, reason=case.measured))
    return pytest.param(case, id=case.name, marks=marks)


def test_every_case_file_has_a_goal() -> None:
    files = {p.stem for p in CASES_DIR.glob("*.mlir")}
    assert files - {c.name for c in CASES} == {"rr_not_supported_non_constant_index"}
    assert {c.name for c in CASES} <= files


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_heir_case(case: Case) -> None:
    prog = load_case(case.name)
    res = optimized(case.name)
    check_correct(prog, res)
    ops: Counts = res.report["after"]["ops"]  # type: ignore[assignment]
    missed = [f"HEIR's bound: {m}" for m in misses(ops, case.heir)] + misses(ops, case.target, case.exact)
    if missed:
        raise TargetNotMet(f"{missed}; after = {ops}")


def test_runtime_index_is_rejected_with_a_location() -> None:
    # rotate_and_reduce.mlir @not_supported_non_constant_index_access: outside our subset
    path = CASES_DIR / "rr_not_supported_non_constant_index.mlir"
    with pytest.raises(MLIRError) as err:
        parse_mlir(path.read_text(), str(path))
    msg = str(err.value)
    assert f"{path}:22:" in msg and "not a compile-time constant" in msg
