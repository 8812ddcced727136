// heir: tests/Transforms/heco_simd_vectorizer/linear_polynomial_64.mlir (HEIR's port of HECO's
// linearpolynomial_64), @linear_polynomial
// heir-rotations: 0
// out[i] = y[i] - a[i] * x[i] - b[i], slot by slot: element-wise, so no rotation, no
// extract, no insert, one multiplication.
func.func @linear_polynomial(%a: tensor<64xi16>, %b: tensor<64xi16>, %x: tensor<64xi16>, %y: tensor<64xi16>) -> tensor<64xi16> {
  %r = affine.for %i = 0 to 64 iter_args(%acc = %y) -> (tensor<64xi16>) {
    %ai = tensor.extract %a[%i] : tensor<64xi16>
    %bi = tensor.extract %b[%i] : tensor<64xi16>
    %xi = tensor.extract %x[%i] : tensor<64xi16>
    %yi = tensor.extract %y[%i] : tensor<64xi16>
    %ax = arith.muli %ai, %xi : i16
    %t = arith.subi %yi, %ax : i16
    %o = arith.subi %t, %bi : i16
    %n = tensor.insert %o into %acc[%i] : tensor<64xi16>
    affine.yield %n : tensor<64xi16>
  }
  return %r : tensor<64xi16>
}
