func.func @chehab_sum_squares_8(%x: tensor<8xi16>) -> i16 {
  %c1 = arith.constant 0 : i16
  %sum2 = affine.for %k = 0 to 8 iter_args(%part3 = %c1) -> (i16) {
    %x4 = tensor.extract %x[%k] : tensor<8xi16>
    %t5 = arith.muli %x4, %x4 : i16
    %t6 = arith.addi %part3, %t5 : i16
    affine.yield %t6 : i16
  }
  return %sum2 : i16
}
