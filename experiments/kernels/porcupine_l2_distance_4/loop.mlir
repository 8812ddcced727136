func.func @porcupine_l2_distance_4(%x: tensor<4xi16>, %y: tensor<4xi16>) -> i16 {
  %c1 = arith.constant 0 : i16
  %sum2 = affine.for %k = 0 to 4 iter_args(%part3 = %c1) -> (i16) {
    %x4 = tensor.extract %x[%k] : tensor<4xi16>
    %y5 = tensor.extract %y[%k] : tensor<4xi16>
    %t6 = arith.subi %x4, %y5 : i16
    %t7 = arith.muli %t6, %t6 : i16
    %t8 = arith.addi %part3, %t7 : i16
    affine.yield %t8 : i16
  }
  return %sum2 : i16
}
