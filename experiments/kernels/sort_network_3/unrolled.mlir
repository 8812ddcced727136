func.func @sort_network_3(%x: tensor<3xi16>, %cmp: tensor<3xi16>) -> tensor<3xi16> {
  %c1 = arith.constant 2 : index
  %x2 = tensor.extract %x[%c1] : tensor<3xi16>
  %c3 = arith.constant 1 : index
  %cmp4 = tensor.extract %cmp[%c3] : tensor<3xi16>
  %x5 = tensor.extract %x[%c3] : tensor<3xi16>
  %c6 = arith.constant 0 : index
  %cmp7 = tensor.extract %cmp[%c6] : tensor<3xi16>
  %x8 = tensor.extract %x[%c6] : tensor<3xi16>
  %t9 = arith.subi %x8, %x5 : i16
  %t10 = arith.muli %cmp7, %t9 : i16
  %t11 = arith.addi %x5, %t10 : i16
  %t12 = arith.subi %t11, %x2 : i16
  %t13 = arith.muli %cmp4, %t12 : i16
  %t14 = arith.addi %x2, %t13 : i16
  %t15 = arith.subi %x2, %t11 : i16
  %t16 = arith.muli %cmp4, %t15 : i16
  %t17 = arith.addi %t11, %t16 : i16
  %cmp18 = tensor.extract %cmp[%c1] : tensor<3xi16>
  %t19 = arith.subi %x5, %x8 : i16
  %t20 = arith.muli %cmp7, %t19 : i16
  %t21 = arith.addi %x8, %t20 : i16
  %t22 = arith.subi %t21, %t17 : i16
  %t23 = arith.muli %cmp18, %t22 : i16
  %t24 = arith.addi %t17, %t23 : i16
  %t25 = arith.subi %t17, %t21 : i16
  %t26 = arith.muli %cmp18, %t25 : i16
  %t27 = arith.addi %t21, %t26 : i16
  %empty28 = tensor.empty() : tensor<3xi16>
  %acc29 = tensor.insert %t14 into %empty28[%c6] : tensor<3xi16>
  %acc30 = tensor.insert %t24 into %acc29[%c3] : tensor<3xi16>
  %acc31 = tensor.insert %t27 into %acc30[%c1] : tensor<3xi16>
  return %acc31 : tensor<3xi16>
}
