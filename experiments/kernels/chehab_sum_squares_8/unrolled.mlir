func.func @chehab_sum_squares_8(%x: tensor<8xi16>) -> i16 {
  %c1 = arith.constant 0 : index
  %x2 = tensor.extract %x[%c1] : tensor<8xi16>
  %t3 = arith.muli %x2, %x2 : i16
  %c4 = arith.constant 1 : index
  %x5 = tensor.extract %x[%c4] : tensor<8xi16>
  %t6 = arith.muli %x5, %x5 : i16
  %t7 = arith.addi %t3, %t6 : i16
  %c8 = arith.constant 2 : index
  %x9 = tensor.extract %x[%c8] : tensor<8xi16>
  %t10 = arith.muli %x9, %x9 : i16
  %t11 = arith.addi %t7, %t10 : i16
  %c12 = arith.constant 3 : index
  %x13 = tensor.extract %x[%c12] : tensor<8xi16>
  %t14 = arith.muli %x13, %x13 : i16
  %t15 = arith.addi %t11, %t14 : i16
  %c16 = arith.constant 4 : index
  %x17 = tensor.extract %x[%c16] : tensor<8xi16>
  %t18 = arith.muli %x17, %x17 : i16
  %t19 = arith.addi %t15, %t18 : i16
  %c20 = arith.constant 5 : index
  %x21 = tensor.extract %x[%c20] : tensor<8xi16>
  %t22 = arith.muli %x21, %x21 : i16
  %t23 = arith.addi %t19, %t22 : i16
  %c24 = arith.constant 6 : index
  %x25 = tensor.extract %x[%c24] : tensor<8xi16>
  %t26 = arith.muli %x25, %x25 : i16
  %t27 = arith.addi %t23, %t26 : i16
  %c28 = arith.constant 7 : index
  %x29 = tensor.extract %x[%c28] : tensor<8xi16>
  %t30 = arith.muli %x29, %x29 : i16
  %t31 = arith.addi %t27, %t30 : i16
  return %t31 : i16
}
