func.func @porcupine_l2_distance_4(%x: tensor<4xi16>, %y: tensor<4xi16>) -> i16 {
  %c1 = arith.constant 3 : index
  %x2 = tensor.extract %x[%c1] : tensor<4xi16>
  %y3 = tensor.extract %y[%c1] : tensor<4xi16>
  %t4 = arith.subi %x2, %y3 : i16
  %t5 = arith.muli %t4, %t4 : i16
  %c6 = arith.constant 2 : index
  %x7 = tensor.extract %x[%c6] : tensor<4xi16>
  %y8 = tensor.extract %y[%c6] : tensor<4xi16>
  %t9 = arith.subi %x7, %y8 : i16
  %t10 = arith.muli %t9, %t9 : i16
  %c11 = arith.constant 1 : index
  %x12 = tensor.extract %x[%c11] : tensor<4xi16>
  %y13 = tensor.extract %y[%c11] : tensor<4xi16>
  %t14 = arith.subi %x12, %y13 : i16
  %t15 = arith.muli %t14, %t14 : i16
  %c16 = arith.constant 0 : index
  %x17 = tensor.extract %x[%c16] : tensor<4xi16>
  %y18 = tensor.extract %y[%c16] : tensor<4xi16>
  %t19 = arith.subi %x17, %y18 : i16
  %t20 = arith.muli %t19, %t19 : i16
  %t21 = arith.addi %t15, %t20 : i16
  %t22 = arith.addi %t10, %t21 : i16
  %t23 = arith.addi %t5, %t22 : i16
  return %t23 : i16
}
