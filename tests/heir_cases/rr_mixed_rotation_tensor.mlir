// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @simple_sum_mixed_rotation_tensor
// heir-rotations: 3
// The sum of the 8 rotations of %v (by 0..7), written as 7 tensor_ext.rotate and a chain of
// addi; the result is a tensor (every slot holds the total). Three log steps.
func.func @sum_rotations(%v: tensor<8xi32>) -> tensor<8xi32> {
  %acc = affine.for %k = 1 to 8 iter_args(%a = %v) -> (tensor<8xi32>) {
    %r = tensor_ext.rotate %v, %k : tensor<8xi32>, index
    %n = arith.addi %a, %r : tensor<8xi32>
    affine.yield %n : tensor<8xi32>
  }
  return %acc : tensor<8xi32>
}
