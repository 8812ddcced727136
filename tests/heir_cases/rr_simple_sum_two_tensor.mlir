// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @simple_sum_two_tensor
// heir-rotations: 4
// One scalar: the sum of all slots of two 4-slot tensors. HEIR reduces each tensor
// separately (2 rotations each, CHECK-COUNT-2 twice); adding the tensors first needs 2.
func.func @sum_two(%p: tensor<4xi32>, %q: tensor<4xi32>) -> i32 {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %i3 = arith.constant 3 : index
  %p0 = tensor.extract %p[%i0] : tensor<4xi32>
  %p1 = tensor.extract %p[%i1] : tensor<4xi32>
  %p2 = tensor.extract %p[%i2] : tensor<4xi32>
  %p3 = tensor.extract %p[%i3] : tensor<4xi32>
  %q0 = tensor.extract %q[%i0] : tensor<4xi32>
  %q1 = tensor.extract %q[%i1] : tensor<4xi32>
  %q2 = tensor.extract %q[%i2] : tensor<4xi32>
  %q3 = tensor.extract %q[%i3] : tensor<4xi32>
  %s1 = arith.addi %p0, %p1 : i32
  %s2 = arith.addi %s1, %p2 : i32
  %s3 = arith.addi %s2, %p3 : i32
  %s4 = arith.addi %s3, %q0 : i32
  %s5 = arith.addi %s4, %q1 : i32
  %s6 = arith.addi %s5, %q2 : i32
  %s7 = arith.addi %s6, %q3 : i32
  return %s7 : i32
}
