func.func @max_tree_4(%x: tensor<4xi16>, %cmp: tensor<3xi16>) -> i16 {
  %c1 = arith.constant 0 : index
  %x2 = tensor.extract %x[%c1] : tensor<4xi16>
  %c3 = arith.constant 1 : index
  %x4 = tensor.extract %x[%c3] : tensor<4xi16>
  %t5 = arith.subi %x2, %x4 : i16
  %cmp6 = tensor.extract %cmp[%c1] : tensor<3xi16>
  %t7 = arith.muli %t5, %cmp6 : i16
  %t8 = arith.addi %t7, %x4 : i16
  %c9 = arith.constant 2 : index
  %x10 = tensor.extract %x[%c9] : tensor<4xi16>
  %c11 = arith.constant 3 : index
  %x12 = tensor.extract %x[%c11] : tensor<4xi16>
  %t13 = arith.subi %x10, %x12 : i16
  %cmp14 = tensor.extract %cmp[%c3] : tensor<3xi16>
  %t15 = arith.muli %t13, %cmp14 : i16
  %t16 = arith.addi %t15, %x12 : i16
  %t17 = arith.subi %t8, %t16 : i16
  %cmp18 = tensor.extract %cmp[%c9] : tensor<3xi16>
  %t19 = arith.muli %t17, %cmp18 : i16
  %t20 = arith.addi %t19, %t16 : i16
  return %t20 : i16
}
