func.func @conv1d_5_by_3(%sig: tensor<5xi16>, %ker: tensor<3xi16>) -> tensor<3xi16> {
  %c1 = arith.constant 0 : index
  %sig2 = tensor.extract %sig[%c1] : tensor<5xi16>
  %ker3 = tensor.extract %ker[%c1] : tensor<3xi16>
  %t4 = arith.muli %sig2, %ker3 : i16
  %c5 = arith.constant 1 : index
  %sig6 = tensor.extract %sig[%c5] : tensor<5xi16>
  %ker7 = tensor.extract %ker[%c5] : tensor<3xi16>
  %t8 = arith.muli %sig6, %ker7 : i16
  %t9 = arith.addi %t4, %t8 : i16
  %c10 = arith.constant 2 : index
  %sig11 = tensor.extract %sig[%c10] : tensor<5xi16>
  %ker12 = tensor.extract %ker[%c10] : tensor<3xi16>
  %t13 = arith.muli %sig11, %ker12 : i16
  %t14 = arith.addi %t9, %t13 : i16
  %t15 = arith.muli %sig6, %ker3 : i16
  %t16 = arith.muli %sig11, %ker7 : i16
  %t17 = arith.addi %t15, %t16 : i16
  %c18 = arith.constant 3 : index
  %sig19 = tensor.extract %sig[%c18] : tensor<5xi16>
  %t20 = arith.muli %sig19, %ker12 : i16
  %t21 = arith.addi %t17, %t20 : i16
  %t22 = arith.muli %sig11, %ker3 : i16
  %t23 = arith.muli %sig19, %ker7 : i16
  %t24 = arith.addi %t22, %t23 : i16
  %c25 = arith.constant 4 : index
  %sig26 = tensor.extract %sig[%c25] : tensor<5xi16>
  %t27 = arith.muli %sig26, %ker12 : i16
  %t28 = arith.addi %t24, %t27 : i16
  %out29 = tensor.from_elements %t14, %t21, %t28 : tensor<3xi16>
  return %out29 : tensor<3xi16>
}
