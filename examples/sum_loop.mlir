// Sum of a tensor<16xi16> as an affine.for loop carrying the partial sum in iter_args.
func.func @sum_loop(%x: tensor<16xi16>) -> i16 {
  %c0_i16 = arith.constant 0 : i16
  %sum = affine.for %i = 0 to 16 iter_args(%acc = %c0_i16) -> (i16) {
    %xi = tensor.extract %x[%i] : tensor<16xi16>
    %next = arith.addi %acc, %xi : i16
    affine.yield %next : i16
  }
  return %sum : i16
}
