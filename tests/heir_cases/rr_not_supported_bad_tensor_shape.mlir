// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @not_supported_bad_tensor_shape
// heir-rotations: 0
// The sum of row 0 of a 1x8 tensor.
// Adapted: HEIR reads row %c1 of a tensor<1x8xi32>, which is out of bounds (our frontend
// rejects it); we read row 0, the only row.
func.func @sum_2d(%m: tensor<1x8xi32>) -> i32 {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %i3 = arith.constant 3 : index
  %i4 = arith.constant 4 : index
  %i5 = arith.constant 5 : index
  %i6 = arith.constant 6 : index
  %i7 = arith.constant 7 : index
  %x0 = tensor.extract %m[%i0, %i0] : tensor<1x8xi32>
  %x1 = tensor.extract %m[%i0, %i1] : tensor<1x8xi32>
  %x2 = tensor.extract %m[%i0, %i2] : tensor<1x8xi32>
  %x3 = tensor.extract %m[%i0, %i3] : tensor<1x8xi32>
  %x4 = tensor.extract %m[%i0, %i4] : tensor<1x8xi32>
  %x5 = tensor.extract %m[%i0, %i5] : tensor<1x8xi32>
  %x6 = tensor.extract %m[%i0, %i6] : tensor<1x8xi32>
  %x7 = tensor.extract %m[%i0, %i7] : tensor<1x8xi32>
  %s1 = arith.addi %x0, %x1 : i32
  %s2 = arith.addi %s1, %x2 : i32
  %s3 = arith.addi %s2, %x3 : i32
  %s4 = arith.addi %s3, %x4 : i32
  %s5 = arith.addi %s4, %x5 : i32
  %s6 = arith.addi %s5, %x6 : i32
  %s7 = arith.addi %s6, %x7 : i32
  return %s7 : i32
}
