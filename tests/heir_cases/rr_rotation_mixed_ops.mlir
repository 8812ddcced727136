// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @rotate_not_applied_because_mixed_ops
// heir-rotations: 3
// ((v + rot1 v) * rot2 v + rot3 v) read at slot 1: a muli breaks the reduction.
func.func @rotation_mixed_ops(%v: tensor<4xi16>) -> i16 {
  %c1 = arith.constant 1 : index
  %a = tensor_ext.rotate %v, %c1 : tensor<4xi16>, index
  %b = arith.addi %a, %v : tensor<4xi16>
  %c = tensor_ext.rotate %a, %c1 : tensor<4xi16>, index
  %d = arith.muli %b, %c : tensor<4xi16>
  %e = tensor_ext.rotate %c, %c1 : tensor<4xi16>, index
  %f = arith.addi %d, %e : tensor<4xi16>
  %s = tensor.extract %f[%c1] : tensor<4xi16>
  return %s : i16
}
