func.func @coyote_sort_3(%cs: tensor<3xi16>, %os: tensor<6xi16>) -> i16 {
  %c1 = arith.constant 5 : index
  %os2 = tensor.extract %os[%c1] : tensor<6xi16>
  %c3 = arith.constant 1 : i16
  %c4 = arith.constant 2 : index
  %cs5 = tensor.extract %cs[%c4] : tensor<3xi16>
  %t6 = arith.subi %c3, %cs5 : i16
  %t7 = arith.muli %os2, %t6 : i16
  %c8 = arith.constant 3 : index
  %os9 = tensor.extract %os[%c8] : tensor<6xi16>
  %t10 = arith.muli %os9, %cs5 : i16
  %t11 = arith.addi %t7, %t10 : i16
  %c12 = arith.constant 1 : index
  %cs13 = tensor.extract %cs[%c12] : tensor<3xi16>
  %t14 = arith.subi %c3, %cs13 : i16
  %t15 = arith.muli %t11, %t14 : i16
  %os16 = tensor.extract %os[%c4] : tensor<6xi16>
  %t17 = arith.muli %os16, %cs13 : i16
  %t18 = arith.addi %t15, %t17 : i16
  %c19 = arith.constant 0 : index
  %cs20 = tensor.extract %cs[%c19] : tensor<3xi16>
  %t21 = arith.subi %c3, %cs20 : i16
  %t22 = arith.muli %t18, %t21 : i16
  %c23 = arith.constant 4 : index
  %os24 = tensor.extract %os[%c23] : tensor<6xi16>
  %t25 = arith.muli %os24, %t14 : i16
  %os26 = tensor.extract %os[%c12] : tensor<6xi16>
  %t27 = arith.muli %os26, %cs13 : i16
  %t28 = arith.addi %t25, %t27 : i16
  %t29 = arith.muli %t28, %t6 : i16
  %os30 = tensor.extract %os[%c19] : tensor<6xi16>
  %t31 = arith.muli %os30, %cs5 : i16
  %t32 = arith.addi %t29, %t31 : i16
  %t33 = arith.muli %t32, %cs20 : i16
  %t34 = arith.addi %t22, %t33 : i16
  return %t34 : i16
}
