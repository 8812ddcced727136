func.func @matmul_2x2(%a: tensor<4xi16>, %b: tensor<4xi16>) -> tensor<4xi16> {
  %c1 = arith.constant 0 : index
  %a2 = tensor.extract %a[%c1] : tensor<4xi16>
  %b3 = tensor.extract %b[%c1] : tensor<4xi16>
  %t4 = arith.muli %a2, %b3 : i16
  %c5 = arith.constant 1 : index
  %a6 = tensor.extract %a[%c5] : tensor<4xi16>
  %c7 = arith.constant 2 : index
  %b8 = tensor.extract %b[%c7] : tensor<4xi16>
  %t9 = arith.muli %a6, %b8 : i16
  %t10 = arith.addi %t4, %t9 : i16
  %b11 = tensor.extract %b[%c5] : tensor<4xi16>
  %t12 = arith.muli %a2, %b11 : i16
  %c13 = arith.constant 3 : index
  %b14 = tensor.extract %b[%c13] : tensor<4xi16>
  %t15 = arith.muli %a6, %b14 : i16
  %t16 = arith.addi %t12, %t15 : i16
  %a17 = tensor.extract %a[%c7] : tensor<4xi16>
  %t18 = arith.muli %a17, %b3 : i16
  %a19 = tensor.extract %a[%c13] : tensor<4xi16>
  %t20 = arith.muli %a19, %b8 : i16
  %t21 = arith.addi %t18, %t20 : i16
  %t22 = arith.muli %a17, %b11 : i16
  %t23 = arith.muli %a19, %b14 : i16
  %t24 = arith.addi %t22, %t23 : i16
  %empty25 = tensor.empty() : tensor<4xi16>
  %acc26 = tensor.insert %t10 into %empty25[%c1] : tensor<4xi16>
  %acc27 = tensor.insert %t16 into %acc26[%c5] : tensor<4xi16>
  %acc28 = tensor.insert %t21 into %acc27[%c7] : tensor<4xi16>
  %acc29 = tensor.insert %t24 into %acc28[%c13] : tensor<4xi16>
  return %acc29 : tensor<4xi16>
}
