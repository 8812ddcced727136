// CHEHAB's lin_reg written with a loop: out[i] = v2[i] + (5 * v1[i] + 2) over 8 slots,
// each slot read with tensor.extract and written with tensor.insert into a fresh tensor.
func.func @lin_reg(%v1: tensor<8xi16>, %v2: tensor<8xi16>) -> tensor<8xi16> {
  %c5 = arith.constant 5 : i16
  %c2 = arith.constant 2 : i16
  %init = tensor.empty() : tensor<8xi16>
  %out = affine.for %i = 0 to 8 iter_args(%acc = %init) -> (tensor<8xi16>) {
    %a = tensor.extract %v1[%i] : tensor<8xi16>
    %b = tensor.extract %v2[%i] : tensor<8xi16>
    %m = arith.muli %c5, %a : i16
    %s = arith.addi %m, %c2 : i16
    %t = arith.addi %b, %s : i16
    %r = tensor.insert %t into %acc[%i] : tensor<8xi16>
    affine.yield %r : tensor<8xi16>
  }
  return %out : tensor<8xi16>
}
