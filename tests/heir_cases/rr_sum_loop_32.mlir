// heir: tests/Transforms/heco_simd_vectorizer/simple_sum.mlir (@simple_sum, 32 slots), at 32
// slots.
// heir-rotations: 5
// The sum of all 32 slots as an affine.for over tensor.extract: log2(32) rotate-and-add steps.
func.func @sum_32(%v: tensor<32xi16>) -> i16 {
  %init = arith.constant 0 : i16
  %r = affine.for %k = 0 to 32 iter_args(%acc = %init) -> (i16) {
    %e = tensor.extract %v[%k] : tensor<32xi16>
    %n = arith.addi %e, %acc : i16
    affine.yield %n : i16
  }
  return %r : i16
}
