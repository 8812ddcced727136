// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @simple_sum_multiple_non_tensor_operands
// heir-rotations: 3
// The 8-slot sum mixed with the constants 2, 2, 5, 6, 7 (= 2 + 5, folded) and a secret
// scalar argument %w. HEIR: three rotations, then the constant 22 and %w are added.
func.func @sum_plus_many(%v: tensor<8xi32>, %w: i32) -> i32 {
  %two = arith.constant 2 : i32
  %five = arith.constant 5 : i32
  %six = arith.constant 6 : i32
  %seven = arith.addi %two, %five : i32
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
  %s1 = arith.addi %x0, %x1 : i32
  %s2 = arith.addi %s1, %two : i32
  %s3 = arith.addi %s2, %two : i32
  %s4 = arith.addi %s3, %five : i32
  %s5 = arith.addi %six, %s4 : i32
  %s6 = arith.addi %seven, %s5 : i32
  %s7 = arith.addi %w, %s6 : i32
  %s8 = arith.addi %s7, %x3 : i32
  %s9 = arith.addi %s8, %x4 : i32
  %s10 = arith.addi %s9, %x5 : i32
  %s11 = arith.addi %s10, %x6 : i32
  %s12 = arith.addi %s11, %x7 : i32
  %s13 = arith.addi %s12, %x2 : i32
  return %s13 : i32
}
