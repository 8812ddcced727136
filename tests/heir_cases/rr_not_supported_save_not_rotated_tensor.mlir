// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @not_supported_save_not_rotated_tensor
// heir-rotations: 7
// %b + sum of the 8 rotations of %a: HEIR keeps all 7 rotations (its TODO #522: %b could
// be added after the reduction); the reduction of %a alone needs 3.
func.func @sum_rot_plus(%a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<8xi32> {
  %first = affine.for %k = 1 to 8 iter_args(%acc = %b) -> (tensor<8xi32>) {
    %r = tensor_ext.rotate %a, %k : tensor<8xi32>, index
    %n = arith.addi %acc, %r : tensor<8xi32>
    affine.yield %n : tensor<8xi32>
  }
  %all = arith.addi %first, %a : tensor<8xi32>
  return %all : tensor<8xi32>
}
