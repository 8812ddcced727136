func.func @coyote_sort_3(%cs: tensor<3xi16>, %os: tensor<6xi16>) -> i16 {
  %c1 = arith.constant 0 : index
  %cs2 = tensor.extract %cs[%c1] : tensor<3xi16>
  %c3 = arith.constant 2 : index
  %cs4 = tensor.extract %cs[%c3] : tensor<3xi16>
  %os5 = tensor.extract %os[%c1] : tensor<6xi16>
  %t6 = arith.muli %cs4, %os5 : i16
  %c7 = arith.constant 1 : i16
  %t8 = arith.subi %c7, %cs4 : i16
  %c9 = arith.constant 1 : index
  %cs10 = tensor.extract %cs[%c9] : tensor<3xi16>
  %os11 = tensor.extract %os[%c9] : tensor<6xi16>
  %t12 = arith.muli %cs10, %os11 : i16
  %t13 = arith.subi %c7, %cs10 : i16
  %c14 = arith.constant 4 : index
  %os15 = tensor.extract %os[%c14] : tensor<6xi16>
  %t16 = arith.muli %t13, %os15 : i16
  %t17 = arith.addi %t12, %t16 : i16
  %t18 = arith.muli %t8, %t17 : i16
  %t19 = arith.addi %t6, %t18 : i16
  %t20 = arith.muli %cs2, %t19 : i16
  %t21 = arith.subi %c7, %cs2 : i16
  %os22 = tensor.extract %os[%c3] : tensor<6xi16>
  %t23 = arith.muli %cs10, %os22 : i16
  %c24 = arith.constant 3 : index
  %os25 = tensor.extract %os[%c24] : tensor<6xi16>
  %t26 = arith.muli %cs4, %os25 : i16
  %c27 = arith.constant 5 : index
  %os28 = tensor.extract %os[%c27] : tensor<6xi16>
  %t29 = arith.muli %t8, %os28 : i16
  %t30 = arith.addi %t26, %t29 : i16
  %t31 = arith.muli %t13, %t30 : i16
  %t32 = arith.addi %t23, %t31 : i16
  %t33 = arith.muli %t21, %t32 : i16
  %t34 = arith.addi %t20, %t33 : i16
  return %t34 : i16
}
