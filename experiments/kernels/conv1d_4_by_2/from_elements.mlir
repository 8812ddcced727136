func.func @conv1d_4_by_2(%sig: tensor<4xi16>, %ker: tensor<2xi16>) -> tensor<3xi16> {
  %c1 = arith.constant 0 : index
  %sig2 = tensor.extract %sig[%c1] : tensor<4xi16>
  %ker3 = tensor.extract %ker[%c1] : tensor<2xi16>
  %t4 = arith.muli %sig2, %ker3 : i16
  %c5 = arith.constant 1 : index
  %sig6 = tensor.extract %sig[%c5] : tensor<4xi16>
  %ker7 = tensor.extract %ker[%c5] : tensor<2xi16>
  %t8 = arith.muli %sig6, %ker7 : i16
  %t9 = arith.addi %t4, %t8 : i16
  %t10 = arith.muli %sig6, %ker3 : i16
  %c11 = arith.constant 2 : index
  %sig12 = tensor.extract %sig[%c11] : tensor<4xi16>
  %t13 = arith.muli %sig12, %ker7 : i16
  %t14 = arith.addi %t10, %t13 : i16
  %t15 = arith.muli %sig12, %ker3 : i16
  %c16 = arith.constant 3 : index
  %sig17 = tensor.extract %sig[%c16] : tensor<4xi16>
  %t18 = arith.muli %sig17, %ker7 : i16
  %t19 = arith.addi %t15, %t18 : i16
  %out20 = tensor.from_elements %t9, %t14, %t19 : tensor<3xi16>
  return %out20 : tensor<3xi16>
}
