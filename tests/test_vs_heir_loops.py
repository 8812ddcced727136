"""experiments/vs_heir.py counts the ops HEIR's output *runs*: loops with constant bounds once
per trip, rotations by an offset that is 0 at run time not at all, plaintext rotations not at
all; and it lowers linalg kernels with HEIR's secret-arithmetic pipeline."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load() -> Any:
    spec = importlib.util.spec_from_file_location("vs_heir", ROOT / "experiments" / "vs_heir.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


vs_heir = _load()


_S = "!secret.secret<tensor<1x8xi16>>"


def _kernel(body: str) -> str:
    """A HEIR-style output (``--mlir-to-secret-arithmetic``): one evaluating function whose
    ``secret.generic`` body is ``body`` over the secret ``%input0 : tensor<1x8xi16>``."""
    return f"""module attributes {{backend.openfhe, scheme.bgv}} {{
  func.func @k(%arg0: {_S}) -> {_S} attributes {{heir.interface = {{roles = ["entry", "server.evaluate"]}}}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant dense<0> : tensor<1x8xi16>
    %cst = arith.constant dense<1> : tensor<4x8xi16>
    %1 = secret.generic(%arg0: !secret.secret<tensor<1x8xi16>>) {{
    ^body(%input0: tensor<1x8xi16>):
{body}
    }} -> !secret.secret<tensor<1x8xi16>>
    return %1 : !secret.secret<tensor<1x8xi16>>
  }}
  func.func @k__decrypt(%arg0: {_S}) -> tensor<8xi16> attributes {{heir.interface = {{roles = ["client.decrypt"]}}}} {{
    %0 = secret.reveal %arg0 : !secret.secret<tensor<1x8xi16>> -> tensor<1x8xi16>
    %1 = tensor_ext.rotate %0, %c1 : tensor<1x8xi16>, index
    return %1 : tensor<8xi16>
  }}
}}
"""


def test_nested_loops_count_their_body_once_per_trip() -> None:
    body = """      %2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %input0) -> (tensor<1x8xi16>) {
        %3 = scf.for %j = %c0 to %c4 step %c1 iter_args(%b = %a) -> (tensor<1x8xi16>) {
          %4 = tensor_ext.rotate %b, %c1 : tensor<1x8xi16>, index
          %5 = arith.muli %4, %input0 : tensor<1x8xi16>
          scf.yield %5 : tensor<1x8xi16>
        }
        scf.yield %3 : tensor<1x8xi16>
      }
      secret.yield %2 : tensor<1x8xi16>"""
    c = vs_heir.count_heir(_kernel(body))
    assert (c.rotations, c.muls) == (12, 12)  # 3 x 4 trips; the decrypt helper's rotation is not the kernel's
    assert c.ops["tensor_ext.rotate"] == 12 and c.unknown_loops == 0
    # a step other than 1, and bounds given as literals (affine.for)
    stepped = body.replace("to %c4 step %c1", "to %c4 step %c2")
    assert vs_heir.count_heir(_kernel(stepped)).rotations == 6
    affine = """      affine.for %i = 0 to 5 {
        %4 = tensor_ext.rotate %input0, %c1 : tensor<1x8xi16>, index
      }
      secret.yield %input0 : tensor<1x8xi16>"""
    assert vs_heir.count_heir(_kernel(affine)).rotations == 5


def test_a_rotation_by_an_offset_that_is_zero_at_run_time_is_not_counted() -> None:
    # offsets 0, 1, 2, 3: the first trip rotates by 0 (HEIR's first baby step)
    body = """      %2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<1x8xi16>) {
        %3 = tensor_ext.rotate %input0, %i : tensor<1x8xi16>, index
        %4 = arith.addi %acc, %3 : tensor<1x8xi16>
        scf.yield %4 : tensor<1x8xi16>
      }
      secret.yield %2 : tensor<1x8xi16>"""
    assert vs_heir.count_heir(_kernel(body)).rotations == 3
    # offsets 4 * i = 0, 4, 8, 12 on 8 slots: 0 and 8 are identities
    giant = body.replace("%3 = tensor_ext.rotate %input0, %i", "%o = arith.muli %i, %c4 : index\n"
                         "        %3 = tensor_ext.rotate %input0, %o")
    assert vs_heir.count_heir(_kernel(giant)).rotations == 2
    # straight-line code too: a rotation by the full length is the identity
    line = """      %2 = tensor_ext.rotate %input0, %c8 : tensor<1x8xi16>, index
      %3 = tensor_ext.rotate %2, %c1 : tensor<1x8xi16>, index
      secret.yield %3 : tensor<1x8xi16>"""
    assert vs_heir.count_heir(_kernel(line)).rotations == 1


def test_a_rotated_plaintext_is_not_counted_nor_its_product_with_a_ciphertext() -> None:
    """HEIR's diagonal kernels rotate the constant matrix's rows (plaintext: no key switch)
    and multiply them into a rotated ciphertext: ct x pt, not ct x ct."""
    body = """      %2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<1x8xi16>) {
        %row = tensor.extract_slice %cst[%i, 0] [1, 8] [1, 1] : tensor<4x8xi16> to tensor<1x8xi16>
        %m = arith.muli %i, %c2 : index
        %3 = tensor_ext.rotate %row, %m : tensor<1x8xi16>, index
        %4 = arith.muli %3, %input0 : tensor<1x8xi16>
        %5 = arith.addi %acc, %4 : tensor<1x8xi16>
        scf.yield %5 : tensor<1x8xi16>
      }
      secret.yield %2 : tensor<1x8xi16>"""
    c = vs_heir.count_heir(_kernel(body))
    assert (c.rotations, c.muls) == (0, 0)
    assert c.ops["tensor_ext.rotate"] == 4  # they ran; they are just not ciphertext rotations


def test_a_loop_carried_value_turns_secret_through_its_yield() -> None:
    """``%acc`` starts as the plaintext zero; the yield makes it a ciphertext (propagated to a
    fixpoint).  Secrecy is per value, not per trip, so its rotation counts on every trip, the
    first (a rotation of the zero) included: an upper bound on HEIR's count, never below it."""
    body = """      %2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (tensor<1x8xi16>) {
        %3 = tensor_ext.rotate %acc, %c1 : tensor<1x8xi16>, index
        %4 = arith.addi %3, %input0 : tensor<1x8xi16>
        scf.yield %4 : tensor<1x8xi16>
      }
      %5 = tensor_ext.rotate %2, %c2 : tensor<1x8xi16>, index
      secret.yield %5 : tensor<1x8xi16>"""
    assert vs_heir.count_heir(_kernel(body)).rotations == 4


def test_scf_if_counts_the_branch_taken_and_the_larger_when_unknown() -> None:
    body = """      %2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %input0) -> (tensor<1x8xi16>) {
        %p = arith.cmpi slt, %i, %c3 : index
        %3 = scf.if %p -> (tensor<1x8xi16>) {
          %4 = tensor_ext.rotate %acc, %c1 : tensor<1x8xi16>, index
          scf.yield %4 : tensor<1x8xi16>
        } else {
          scf.yield %acc : tensor<1x8xi16>
        }
        scf.yield %3 : tensor<1x8xi16>
      }
      secret.yield %2 : tensor<1x8xi16>"""
    assert vs_heir.count_heir(_kernel(body)).rotations == 3  # i = 0, 1, 2 take the rotating branch
    unknown = body.replace("%p = arith.cmpi slt, %i, %c3 : index", "%p = func.call @flag() : () -> i1")
    assert vs_heir.count_heir(_kernel(unknown)).rotations == 4  # at most one rotation per trip


def test_a_loop_without_constant_bounds_counts_once_and_says_so() -> None:
    body = """      %n = tensor.dim %input0, %c1 : tensor<1x8xi16>
      %2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %input0) -> (tensor<1x8xi16>) {
        %3 = tensor_ext.rotate %acc, %c1 : tensor<1x8xi16>, index
        scf.yield %3 : tensor<1x8xi16>
      }
      secret.yield %2 : tensor<1x8xi16>"""
    c = vs_heir.count_heir(_kernel(body))
    assert (c.rotations, c.unknown_loops) == (1, 1)


def test_linalg_kernels_take_the_secret_arithmetic_pipeline() -> None:
    names = {p.stem: vs_heir.pipeline_name(p.read_text()) for p in (ROOT / "examples").glob("*.mlir")}
    assert {k for k, v in names.items() if v == "mlir-to-secret-arithmetic"} == {
        "linalg_matvec_16x16", "linalg_conv2d_5x5", "linalg_sum_pool_8x8", "linalg_two_layer_net"}
    assert names["sum_8"] == "vectorizer" and names["pow8"] == "mlir-to-bgv"


def test_heir_lowers_linalg_matvec_to_rotations_of_the_ciphertext() -> None:
    """The real kernel through the real pipeline: HEIR's diagonal (baby-step giant-step)
    matvec runs in loops; counted are the ciphertext rotations by non-zero offsets, fewer than
    the rotate ops it runs (the plaintext diagonals' rotations and the 0-offset steps)."""
    heir_opt = vs_heir.find_heir_opt()
    if heir_opt is None:
        pytest.skip("heir-opt not installed (pip install -e '.[heir]')")
    path = ROOT / "examples" / "linalg_matvec_16x16.mlir"
    pipeline = vs_heir.PIPELINES[vs_heir.pipeline_name(path.read_text())]
    run = vs_heir.run_heir(heir_opt, path, pipeline, 120.0)
    assert run.status == "ok" and run.counts is not None
    c = run.counts
    assert 0 < c.rotations <= 2 * 4  # at most two rotations per sqrt(16) step
    assert c.ops["tensor_ext.rotate"] > c.rotations and c.muls == 0 and c.unknown_loops == 0
    # the pooling kernel HEIR's layout pass rejects: HEIR fails, with its error as the status
    pool = ROOT / "examples" / "linalg_sum_pool_8x8.mlir"
    failed = vs_heir.run_heir(heir_opt, pool, pipeline, 120.0)
    assert failed.status.startswith("failed: linalg_sum_pool_8x8.mlir:") and "error" in failed.status


def test_an_output_that_runs_too_many_ops_is_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    body = """      %2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %input0) -> (tensor<1x8xi16>) {
        %3 = tensor_ext.rotate %acc, %c1 : tensor<1x8xi16>, index
        scf.yield %3 : tensor<1x8xi16>
      }
      secret.yield %2 : tensor<1x8xi16>"""
    assert vs_heir.count_heir(_kernel(body)).rotations == 8
    monkeypatch.setattr(vs_heir, "_MAX_STEPS", 12)
    with pytest.raises(ValueError, match="ops run"):
        vs_heir.count_heir(_kernel(body))
