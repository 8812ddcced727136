func.func @matmul_2x2(%a: tensor<4xi16>, %b: tensor<4xi16>) -> tensor<4xi16> {
  %c1 = arith.constant 2 : index
  %b2 = tensor.extract %b[%c1] : tensor<4xi16>
  %c3 = arith.constant 1 : index
  %a4 = tensor.extract %a[%c3] : tensor<4xi16>
  %t5 = arith.muli %b2, %a4 : i16
  %c6 = arith.constant 0 : index
  %b7 = tensor.extract %b[%c6] : tensor<4xi16>
  %a8 = tensor.extract %a[%c6] : tensor<4xi16>
  %t9 = arith.muli %b7, %a8 : i16
  %t10 = arith.addi %t5, %t9 : i16
  %c11 = arith.constant 3 : index
  %b12 = tensor.extract %b[%c11] : tensor<4xi16>
  %t13 = arith.muli %b12, %a4 : i16
  %b14 = tensor.extract %b[%c3] : tensor<4xi16>
  %t15 = arith.muli %b14, %a8 : i16
  %t16 = arith.addi %t13, %t15 : i16
  %a17 = tensor.extract %a[%c11] : tensor<4xi16>
  %t18 = arith.muli %b2, %a17 : i16
  %a19 = tensor.extract %a[%c1] : tensor<4xi16>
  %t20 = arith.muli %b7, %a19 : i16
  %t21 = arith.addi %t18, %t20 : i16
  %t22 = arith.muli %b12, %a17 : i16
  %t23 = arith.muli %b14, %a19 : i16
  %t24 = arith.addi %t22, %t23 : i16
  %empty25 = tensor.empty() : tensor<4xi16>
  %acc26 = tensor.insert %t24 into %empty25[%c11] : tensor<4xi16>
  %acc27 = tensor.insert %t21 into %acc26[%c1] : tensor<4xi16>
  %acc28 = tensor.insert %t16 into %acc27[%c3] : tensor<4xi16>
  %acc29 = tensor.insert %t10 into %acc28[%c6] : tensor<4xi16>
  return %acc29 : tensor<4xi16>
}
