func.func @heco_dot_product_8(%x: tensor<8xi16>, %y: tensor<8xi16>) -> i16 {
  %c1 = arith.constant 0 : i16
  %sum2 = affine.for %k = 0 to 8 iter_args(%part3 = %c1) -> (i16) {
    %x4 = tensor.extract %x[%k] : tensor<8xi16>
    %y5 = tensor.extract %y[%k] : tensor<8xi16>
    %t6 = arith.muli %x4, %y5 : i16
    %t7 = arith.addi %part3, %t6 : i16
    affine.yield %t7 : i16
  }
  return %sum2 : i16
}
