func.func @sort_network_3(%x: tensor<3xi16>, %cmp: tensor<3xi16>) -> tensor<3xi16> {
  %c1 = arith.constant 0 : index
  %x2 = tensor.extract %x[%c1] : tensor<3xi16>
  %c3 = arith.constant 1 : index
  %x4 = tensor.extract %x[%c3] : tensor<3xi16>
  %t5 = arith.subi %x2, %x4 : i16
  %cmp6 = tensor.extract %cmp[%c1] : tensor<3xi16>
  %t7 = arith.muli %t5, %cmp6 : i16
  %t8 = arith.addi %t7, %x4 : i16
  %c9 = arith.constant 2 : index
  %x10 = tensor.extract %x[%c9] : tensor<3xi16>
  %t11 = arith.subi %t8, %x10 : i16
  %cmp12 = tensor.extract %cmp[%c3] : tensor<3xi16>
  %t13 = arith.muli %t11, %cmp12 : i16
  %t14 = arith.addi %t13, %x10 : i16
  %t15 = arith.subi %x4, %x2 : i16
  %t16 = arith.muli %t15, %cmp6 : i16
  %t17 = arith.addi %t16, %x2 : i16
  %t18 = arith.subi %x10, %t8 : i16
  %t19 = arith.muli %t18, %cmp12 : i16
  %t20 = arith.addi %t19, %t8 : i16
  %t21 = arith.subi %t17, %t20 : i16
  %cmp22 = tensor.extract %cmp[%c9] : tensor<3xi16>
  %t23 = arith.muli %t21, %cmp22 : i16
  %t24 = arith.addi %t23, %t20 : i16
  %t25 = arith.subi %t20, %t17 : i16
  %t26 = arith.muli %t25, %cmp22 : i16
  %t27 = arith.addi %t26, %t17 : i16
  %empty28 = tensor.empty() : tensor<3xi16>
  %acc29 = tensor.insert %t27 into %empty28[%c9] : tensor<3xi16>
  %acc30 = tensor.insert %t24 into %acc29[%c3] : tensor<3xi16>
  %acc31 = tensor.insert %t14 into %acc30[%c1] : tensor<3xi16>
  return %acc31 : tensor<3xi16>
}
