func.func @heir_simple_sum_32(%x: tensor<32xi16>) -> i16 {
  %c1 = arith.constant 0 : i16
  %sum2 = affine.for %k = 0 to 32 iter_args(%part3 = %c1) -> (i16) {
    %x4 = tensor.extract %x[%k] : tensor<32xi16>
    %t5 = arith.addi %part3, %x4 : i16
    affine.yield %t5 : i16
  }
  return %sum2 : i16
}
