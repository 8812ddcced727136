func.func @f(%x: tensor<8xi16>) -> i16 {
  %c0_i16 = arith.constant 0 : i16
  %0 = affine.for %i = 0 to 9 iter_args(%acc = %c0_i16) -> (i16) {
    %e = tensor.extract %x[%i] : tensor<8xi16>
    %s = arith.addi %acc, %e : i16
    affine.yield %s : i16
  }
  return %0 : i16
}
