func.func @conv1d_4_by_2(%sig: tensor<4xi16>, %ker: tensor<2xi16>) -> tensor<3xi16> {
  %c1 = arith.constant 1 : index
  %ker2 = tensor.extract %ker[%c1] : tensor<2xi16>
  %sig3 = tensor.extract %sig[%c1] : tensor<4xi16>
  %t4 = arith.muli %ker2, %sig3 : i16
  %c5 = arith.constant 0 : index
  %ker6 = tensor.extract %ker[%c5] : tensor<2xi16>
  %sig7 = tensor.extract %sig[%c5] : tensor<4xi16>
  %t8 = arith.muli %ker6, %sig7 : i16
  %t9 = arith.addi %t4, %t8 : i16
  %c10 = arith.constant 2 : index
  %sig11 = tensor.extract %sig[%c10] : tensor<4xi16>
  %t12 = arith.muli %ker2, %sig11 : i16
  %t13 = arith.muli %ker6, %sig3 : i16
  %t14 = arith.addi %t12, %t13 : i16
  %c15 = arith.constant 3 : index
  %sig16 = tensor.extract %sig[%c15] : tensor<4xi16>
  %t17 = arith.muli %ker2, %sig16 : i16
  %t18 = arith.muli %ker6, %sig11 : i16
  %t19 = arith.addi %t17, %t18 : i16
  %empty20 = tensor.empty() : tensor<3xi16>
  %acc21 = tensor.insert %t19 into %empty20[%c10] : tensor<3xi16>
  %acc22 = tensor.insert %t14 into %acc21[%c1] : tensor<3xi16>
  %acc23 = tensor.insert %t9 into %acc22[%c5] : tensor<3xi16>
  return %acc23 : tensor<3xi16>
}
