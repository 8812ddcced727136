// heir: tests/Transforms/heco_simd_vectorizer/simple_sum.mlir (@simple_sum, 32 slots), at 8
// slots.
// heir-rotations: 3
// The sum of all 8 slots as an affine.for over tensor.extract: log2(8) rotate-and-add steps.
func.func @sum_8(%v: tensor<8xi16>) -> i16 {
  %init = arith.constant 0 : i16
  %r = affine.for %k = 0 to 8 iter_args(%acc = %init) -> (i16) {
    %e = tensor.extract %v[%k] : tensor<8xi16>
    %n = arith.addi %e, %acc : i16
    affine.yield %n : i16
  }
  return %r : i16
}
