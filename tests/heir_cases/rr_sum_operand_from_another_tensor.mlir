// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @simple_sum_operand_from_another_tensor
// heir-rotations: 3
// The 8-slot sum of %a plus b[0] (slot 0 of another tensor, free to read).
func.func @sum_plus_other(%a: tensor<8xi32>, %b: tensor<8xi32>) -> i32 {
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
  %x2 = tensor.extract %a[%i2] : tensor<8xi32>
  %x3 = tensor.extract %a[%i3] : tensor<8xi32>
  %x4 = tensor.extract %a[%i4] : tensor<8xi32>
  %x5 = tensor.extract %a[%i5] : tensor<8xi32>
  %x6 = tensor.extract %a[%i6] : tensor<8xi32>
  %x7 = tensor.extract %a[%i7] : tensor<8xi32>
  %y0 = tensor.extract %b[%i0] : tensor<8xi32>
  %s1 = arith.addi %x0, %y0 : i32
  %s2 = arith.addi %s1, %x1 : i32
  %s3 = arith.addi %s2, %x2 : i32
  %s4 = arith.addi %s3, %x3 : i32
  %s5 = arith.addi %s4, %x4 : i32
  %s6 = arith.addi %s5, %x5 : i32
  %s7 = arith.addi %s6, %x6 : i32
  %s8 = arith.addi %s7, %x7 : i32
  return %s8 : i32
}
