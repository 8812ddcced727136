// heir: issue 3 ("two 4-slot tensors summed -> 2 rotations each"), after
// rotate_and_reduce.mlir @simple_sum_two_tensor, with the two sums returned separately.
// heir-rotations: 4
func.func @two_sums(%p: tensor<4xi32>, %q: tensor<4xi32>) -> (i32, i32) {
  %zero = arith.constant 0 : i32
  %sp = affine.for %k = 0 to 4 iter_args(%acc = %zero) -> (i32) {
    %e = tensor.extract %p[%k] : tensor<4xi32>
    %n = arith.addi %acc, %e : i32
    affine.yield %n : i32
  }
  %sq = affine.for %k = 0 to 4 iter_args(%acc = %zero) -> (i32) {
    %e = tensor.extract %q[%k] : tensor<4xi32>
    %n = arith.addi %acc, %e : i32
    affine.yield %n : i32
  }
  return %sp, %sq : i32, i32
}
