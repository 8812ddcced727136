// heir: the not-supported side of collapse_insertion_chains (the offsets differ per slot,
// so the chain is no rotation).
// heir-rotations: -
// dst[i] = src[7 - i]: a reversal. No single rotation computes it; the optimizer must keep
// the result correct.
func.func @chain_reversal(%src: tensor<8xi32>, %out: tensor<8xi32>) -> tensor<8xi32> {
  %c7 = arith.constant 7 : index
  %0 = affine.for %k = 0 to 8 iter_args(%acc = %out) -> (tensor<8xi32>) {
    %s = arith.subi %c7, %k : index
    %v = tensor.extract %src[%s] : tensor<8xi32>
    %r = tensor.insert %v into %acc[%k] : tensor<8xi32>
    affine.yield %r : tensor<8xi32>
  }
  return %0 : tensor<8xi32>
}
