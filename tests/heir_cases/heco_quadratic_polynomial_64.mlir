// heir: tests/Transforms/heco_simd_vectorizer/quadratic_polynomial.mlir (HEIR's port of HECO's
// quadraticpolynomial_64), @quadratic_polynomial
// heir-rotations: 0
// out[i] = y[i] - (x[i] * (a[i] * x[i] + b[i]) + c[i]): element-wise, no rotation, two
// multiplications.
func.func @quadratic_polynomial(%a: tensor<64xi16>, %b: tensor<64xi16>, %c: tensor<64xi16>, %x: tensor<64xi16>, %y: tensor<64xi16>) -> tensor<64xi16> {
  %r = affine.for %i = 0 to 64 iter_args(%acc = %y) -> (tensor<64xi16>) {
    %ai = tensor.extract %a[%i] : tensor<64xi16>
    %bi = tensor.extract %b[%i] : tensor<64xi16>
    %ci = tensor.extract %c[%i] : tensor<64xi16>
    %xi = tensor.extract %x[%i] : tensor<64xi16>
    %yi = tensor.extract %y[%i] : tensor<64xi16>
    %ax = arith.muli %ai, %xi : i16
    %t1 = arith.addi %ax, %bi : i16
    %t2 = arith.muli %xi, %t1 : i16
    %t3 = arith.addi %t2, %ci : i16
    %o = arith.subi %yi, %t3 : i16
    %n = tensor.insert %o into %acc[%i] : tensor<64xi16>
    affine.yield %n : tensor<64xi16>
  }
  return %r : tensor<64xi16>
}
