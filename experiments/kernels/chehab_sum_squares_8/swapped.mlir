func.func @chehab_sum_squares_8(%x: tensor<8xi16>) -> i16 {
  %c1 = arith.constant 7 : index
  %x2 = tensor.extract %x[%c1] : tensor<8xi16>
  %t3 = arith.muli %x2, %x2 : i16
  %c4 = arith.constant 6 : index
  %x5 = tensor.extract %x[%c4] : tensor<8xi16>
  %t6 = arith.muli %x5, %x5 : i16
  %c7 = arith.constant 5 : index
  %x8 = tensor.extract %x[%c7] : tensor<8xi16>
  %t9 = arith.muli %x8, %x8 : i16
  %c10 = arith.constant 4 : index
  %x11 = tensor.extract %x[%c10] : tensor<8xi16>
  %t12 = arith.muli %x11, %x11 : i16
  %c13 = arith.constant 3 : index
  %x14 = tensor.extract %x[%c13] : tensor<8xi16>
  %t15 = arith.muli %x14, %x14 : i16
  %c16 = arith.constant 2 : index
  %x17 = tensor.extract %x[%c16] : tensor<8xi16>
  %t18 = arith.muli %x17, %x17 : i16
  %c19 = arith.constant 1 : index
  %x20 = tensor.extract %x[%c19] : tensor<8xi16>
  %t21 = arith.muli %x20, %x20 : i16
  %c22 = arith.constant 0 : index
  %x23 = tensor.extract %x[%c22] : tensor<8xi16>
  %t24 = arith.muli %x23, %x23 : i16
  %t25 = arith.addi %t21, %t24 : i16
  %t26 = arith.addi %t18, %t25 : i16
  %t27 = arith.addi %t15, %t26 : i16
  %t28 = arith.addi %t12, %t27 : i16
  %t29 = arith.addi %t9, %t28 : i16
  %t30 = arith.addi %t6, %t29 : i16
  %t31 = arith.addi %t3, %t30 : i16
  return %t31 : i16
}
