// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @not_supported_multiple_tensors
// heir-rotations: 0
// a0 + a1 + b2 + a3 + ... + a7: slot 2 comes from the other tensor.
func.func @two_sources(%a: tensor<8xi32>, %b: tensor<8xi32>) -> i32 {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %i3 = arith.constant 3 : index
  %i4 = arith.constant 4 : index
  %i5 = arith.constant 5 : index
  %i6 = arith.constant 6 : index
  %i7 = arith.constant 7 : index
  %x0 = tensor.extract %a[%i0] : tensor<8xi32>
  %x1 = tensor.extract %a[%i1] : tensor<8xi32>
  %x3 = tensor.extract %a[%i3] : tensor<8xi32>
  %x4 = tensor.extract %a[%i4] : tensor<8xi32>
  %x5 = tensor.extract %a[%i5] : tensor<8xi32>
  %x6 = tensor.extract %a[%i6] : tensor<8xi32>
  %x7 = tensor.extract %a[%i7] : tensor<8xi32>
  %x2 = tensor.extract %b[%i2] : tensor<8xi32>
  %s1 = arith.addi %x0, %x1 : i32
  %s2 = arith.addi %s1, %x2 : i32
  %s3 = arith.addi %s2, %x3 : i32
  %s4 = arith.addi %s3, %x4 : i32
  %s5 = arith.addi %s4, %x5 : i32
  %s6 = arith.addi %s5, %x6 : i32
  %s7 = arith.addi %s6, %x7 : i32
  return %s7 : i32
}
