func.func @heco_hamming_distance_4(%x: tensor<4xi16>, %y: tensor<4xi16>) -> i16 {
  %c1 = arith.constant 0 : index
  %x2 = tensor.extract %x[%c1] : tensor<4xi16>
  %y3 = tensor.extract %y[%c1] : tensor<4xi16>
  %t4 = arith.subi %x2, %y3 : i16
  %t5 = arith.muli %t4, %t4 : i16
  %c6 = arith.constant 1 : index
  %x7 = tensor.extract %x[%c6] : tensor<4xi16>
  %y8 = tensor.extract %y[%c6] : tensor<4xi16>
  %t9 = arith.subi %x7, %y8 : i16
  %t10 = arith.muli %t9, %t9 : i16
  %t11 = arith.addi %t5, %t10 : i16
  %c12 = arith.constant 2 : index
  %x13 = tensor.extract %x[%c12] : tensor<4xi16>
  %y14 = tensor.extract %y[%c12] : tensor<4xi16>
  %t15 = arith.subi %x13, %y14 : i16
  %t16 = arith.muli %t15, %t15 : i16
  %t17 = arith.addi %t11, %t16 : i16
  %c18 = arith.constant 3 : index
  %x19 = tensor.extract %x[%c18] : tensor<4xi16>
  %y20 = tensor.extract %y[%c18] : tensor<4xi16>
  %t21 = arith.subi %x19, %y20 : i16
  %t22 = arith.muli %t21, %t21 : i16
  %t23 = arith.addi %t17, %t22 : i16
  return %t23 : i16
}
