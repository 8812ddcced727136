func.func @simple_sum(%arg0: tensor<8xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %0 = tensor.extract %arg0[%c0] : tensor<8xi32>
  %1 = tensor.extract %arg0[%c1] : tensor<8xi32>
  %2 = tensor.extract %arg0[%c2] : tensor<8xi32>
  %3 = tensor.extract %arg0[%c3] : tensor<8xi32>
  %4 = tensor.extract %arg0[%c4] : tensor<8xi32>
  %5 = tensor.extract %arg0[%c5] : tensor<8xi32>
  %6 = tensor.extract %arg0[%c6] : tensor<8xi32>
  %7 = tensor.extract %arg0[%c7] : tensor<8xi32>
  %8 = arith.addi %0, %1 : i32
  %9 = arith.addi %8, %2 : i32
  %10 = arith.addi %9, %3 : i32
  %11 = arith.addi %10, %4 : i32
  %12 = arith.addi %11, %5 : i32
  %13 = arith.addi %12, %6 : i32
  %14 = arith.addi %13, %7 : i32
  return %14 : i32
}
