// heir: tests/Transforms/heco_simd_vectorizer/dot_product_8.mlir, @dot_product
// heir-rotations: 3
// sum_i a[i] * b[i] over 8 slots: one multiplication and three rotate-and-add steps.
func.func @dot(%a: tensor<8xi16>, %b: tensor<8xi16>) -> i16 {
  %zero = arith.constant 0 : i16
  %d = affine.for %i = 0 to 8 iter_args(%acc = %zero) -> (i16) {
    %x = tensor.extract %a[%i] : tensor<8xi16>
    %y = tensor.extract %b[%i] : tensor<8xi16>
    %p = arith.muli %x, %y : i16
    %n = arith.addi %acc, %p : i16
    affine.yield %n : i16
  }
  return %d : i16
}
