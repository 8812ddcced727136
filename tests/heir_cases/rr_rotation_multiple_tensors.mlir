// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @rotate_not_applied_because_multiple_tensors
// heir-rotations: 3
// The full 4-slot reduction of %q plus %p, read at slot 1: p1 + q0 + q1 + q2 + q3.
func.func @rotation_two_tensors(%p: tensor<4xi16>, %q: tensor<4xi16>) -> i16 {
  %c1 = arith.constant 1 : index
  %a = tensor_ext.rotate %q, %c1 : tensor<4xi16>, index
  %b = arith.addi %a, %q : tensor<4xi16>
  %c = tensor_ext.rotate %a, %c1 : tensor<4xi16>, index
  %d = arith.addi %b, %c : tensor<4xi16>
  %d2 = arith.addi %d, %p : tensor<4xi16>
  %e = tensor_ext.rotate %c, %c1 : tensor<4xi16>, index
  %f = arith.addi %d2, %e : tensor<4xi16>
  %s = tensor.extract %f[%c1] : tensor<4xi16>
  return %s : i16
}
