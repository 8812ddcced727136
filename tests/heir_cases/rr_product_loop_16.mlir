// heir: tests/Transforms/heco_simd_vectorizer/simple_sum.mlir (@simple_sum, 32 slots), at 16
// slots and with muli (issue 3: reductions by add and by mul).
// heir-rotations: 4
// The product of all 16 slots as an affine.for over tensor.extract: log2(16) rotate-and-mul steps.
func.func @product_16(%v: tensor<16xi16>) -> i16 {
  %init = arith.constant 1 : i16
  %r = affine.for %k = 0 to 16 iter_args(%acc = %init) -> (i16) {
    %e = tensor.extract %v[%k] : tensor<16xi16>
    %n = arith.muli %e, %acc : i16
    affine.yield %n : i16
  }
  return %r : i16
}
