func.func @f(%x: tensor<8xi16>) -> tensor<8xi16> {
  %0 = affine.for %i = 0 to 2 iter_args(%t = %x) -> (tensor<8xi16>) {
    %1 = arith.divui %t, %t : tensor<8xi16>
    affine.yield %1 : tensor<8xi16>
  }
  return %0 : tensor<8xi16>
}
