// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @not_supported_unsupported_op
// heir-rotations: 0
// v0 - v1 - v2 - ... - v7: subtraction is not a commutative reduction (it equals
// 2*v0 - sum(v)).
func.func @sub_chain(%v: tensor<8xi32>) -> i32 {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %i3 = arith.constant 3 : index
  %i4 = arith.constant 4 : index
  %i5 = arith.constant 5 : index
  %i6 = arith.constant 6 : index
  %i7 = arith.constant 7 : index
  %x0 = tensor.extract %v[%i0] : tensor<8xi32>
  %x1 = tensor.extract %v[%i1] : tensor<8xi32>
  %x2 = tensor.extract %v[%i2] : tensor<8xi32>
  %x3 = tensor.extract %v[%i3] : tensor<8xi32>
  %x4 = tensor.extract %v[%i4] : tensor<8xi32>
  %x5 = tensor.extract %v[%i5] : tensor<8xi32>
  %x6 = tensor.extract %v[%i6] : tensor<8xi32>
  %x7 = tensor.extract %v[%i7] : tensor<8xi32>
  %s1 = arith.subi %x0, %x1 : i32
  %s2 = arith.subi %s1, %x2 : i32
  %s3 = arith.subi %s2, %x3 : i32
  %s4 = arith.subi %s3, %x4 : i32
  %s5 = arith.subi %s4, %x5 : i32
  %s6 = arith.subi %s5, %x6 : i32
  %s7 = arith.subi %s6, %x7 : i32
  return %s7 : i32
}
