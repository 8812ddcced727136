func.func @matmul_2x2(%a: tensor<2x2xi16>, %b: tensor<2x2xi16>) -> tensor<2x2xi16> {
  %c1 = arith.constant 0 : index
  %a2 = tensor.extract %a[%c1, %c1] : tensor<2x2xi16>
  %b3 = tensor.extract %b[%c1, %c1] : tensor<2x2xi16>
  %t4 = arith.muli %a2, %b3 : i16
  %c5 = arith.constant 1 : index
  %a6 = tensor.extract %a[%c1, %c5] : tensor<2x2xi16>
  %b7 = tensor.extract %b[%c5, %c1] : tensor<2x2xi16>
  %t8 = arith.muli %a6, %b7 : i16
  %t9 = arith.addi %t4, %t8 : i16
  %b10 = tensor.extract %b[%c1, %c5] : tensor<2x2xi16>
  %t11 = arith.muli %a2, %b10 : i16
  %b12 = tensor.extract %b[%c5, %c5] : tensor<2x2xi16>
  %t13 = arith.muli %a6, %b12 : i16
  %t14 = arith.addi %t11, %t13 : i16
  %a15 = tensor.extract %a[%c5, %c1] : tensor<2x2xi16>
  %t16 = arith.muli %a15, %b3 : i16
  %a17 = tensor.extract %a[%c5, %c5] : tensor<2x2xi16>
  %t18 = arith.muli %a17, %b7 : i16
  %t19 = arith.addi %t16, %t18 : i16
  %t20 = arith.muli %a15, %b10 : i16
  %t21 = arith.muli %a17, %b12 : i16
  %t22 = arith.addi %t20, %t21 : i16
  %empty23 = tensor.empty() : tensor<2x2xi16>
  %acc24 = tensor.insert %t9 into %empty23[%c1, %c1] : tensor<2x2xi16>
  %acc25 = tensor.insert %t14 into %acc24[%c1, %c5] : tensor<2x2xi16>
  %acc26 = tensor.insert %t19 into %acc25[%c5, %c1] : tensor<2x2xi16>
  %acc27 = tensor.insert %t22 into %acc26[%c5, %c5] : tensor<2x2xi16>
  return %acc27 : tensor<2x2xi16>
}
