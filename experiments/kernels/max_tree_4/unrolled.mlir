func.func @max_tree_4(%x: tensor<4xi16>, %cmp: tensor<3xi16>) -> i16 {
  %c1 = arith.constant 3 : index
  %x2 = tensor.extract %x[%c1] : tensor<4xi16>
  %c3 = arith.constant 1 : index
  %cmp4 = tensor.extract %cmp[%c3] : tensor<3xi16>
  %c5 = arith.constant 2 : index
  %x6 = tensor.extract %x[%c5] : tensor<4xi16>
  %t7 = arith.subi %x6, %x2 : i16
  %t8 = arith.muli %cmp4, %t7 : i16
  %t9 = arith.addi %x2, %t8 : i16
  %cmp10 = tensor.extract %cmp[%c5] : tensor<3xi16>
  %x11 = tensor.extract %x[%c3] : tensor<4xi16>
  %c12 = arith.constant 0 : index
  %cmp13 = tensor.extract %cmp[%c12] : tensor<3xi16>
  %x14 = tensor.extract %x[%c12] : tensor<4xi16>
  %t15 = arith.subi %x14, %x11 : i16
  %t16 = arith.muli %cmp13, %t15 : i16
  %t17 = arith.addi %x11, %t16 : i16
  %t18 = arith.subi %t17, %t9 : i16
  %t19 = arith.muli %cmp10, %t18 : i16
  %t20 = arith.addi %t9, %t19 : i16
  return %t20 : i16
}
