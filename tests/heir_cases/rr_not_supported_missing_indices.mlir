// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @not_supported_missing_indices
// heir-rotations: 0
// The sum of slots 0..14 of a 16-slot tensor (slot 15 is missing): a partial reduction.
// HEIR gives up (14 extracts); issue 3: a mask multiplication plus the log steps (or the full
// sum minus slot 15).
func.func @missing_index(%v: tensor<16xi32>) -> i32 {
  %zero = arith.constant 0 : i32
  %s = affine.for %k = 0 to 15 iter_args(%acc = %zero) -> (i32) {
    %e = tensor.extract %v[%k] : tensor<16xi32>
    %n = arith.addi %acc, %e : i32
    affine.yield %n : i32
  }
  return %s : i32
}
