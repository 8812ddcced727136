func.func @conv1d_5_by_3(%sig: tensor<5xi16>, %ker: tensor<3xi16>) -> tensor<3xi16> {
  %c1 = arith.constant 2 : index
  %ker2 = tensor.extract %ker[%c1] : tensor<3xi16>
  %sig3 = tensor.extract %sig[%c1] : tensor<5xi16>
  %t4 = arith.muli %ker2, %sig3 : i16
  %c5 = arith.constant 1 : index
  %ker6 = tensor.extract %ker[%c5] : tensor<3xi16>
  %sig7 = tensor.extract %sig[%c5] : tensor<5xi16>
  %t8 = arith.muli %ker6, %sig7 : i16
  %c9 = arith.constant 0 : index
  %ker10 = tensor.extract %ker[%c9] : tensor<3xi16>
  %sig11 = tensor.extract %sig[%c9] : tensor<5xi16>
  %t12 = arith.muli %ker10, %sig11 : i16
  %t13 = arith.addi %t8, %t12 : i16
  %t14 = arith.addi %t4, %t13 : i16
  %c15 = arith.constant 3 : index
  %sig16 = tensor.extract %sig[%c15] : tensor<5xi16>
  %t17 = arith.muli %ker2, %sig16 : i16
  %t18 = arith.muli %ker6, %sig3 : i16
  %t19 = arith.muli %ker10, %sig7 : i16
  %t20 = arith.addi %t18, %t19 : i16
  %t21 = arith.addi %t17, %t20 : i16
  %c22 = arith.constant 4 : index
  %sig23 = tensor.extract %sig[%c22] : tensor<5xi16>
  %t24 = arith.muli %ker2, %sig23 : i16
  %t25 = arith.muli %ker6, %sig16 : i16
  %t26 = arith.muli %ker10, %sig3 : i16
  %t27 = arith.addi %t25, %t26 : i16
  %t28 = arith.addi %t24, %t27 : i16
  %empty29 = tensor.empty() : tensor<3xi16>
  %acc30 = tensor.insert %t28 into %empty29[%c1] : tensor<3xi16>
  %acc31 = tensor.insert %t21 into %acc30[%c5] : tensor<3xi16>
  %acc32 = tensor.insert %t14 into %acc31[%c9] : tensor<3xi16>
  return %acc32 : tensor<3xi16>
}
