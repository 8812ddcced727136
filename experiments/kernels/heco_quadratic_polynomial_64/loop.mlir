func.func @heco_quadratic_polynomial_64(%a: tensor<64xi16>, %b: tensor<64xi16>, %c: tensor<64xi16>, %x: tensor<64xi16>, %y: tensor<64xi16>) -> tensor<64xi16> {
  %empty1 = tensor.empty() : tensor<64xi16>
  %r2 = affine.for %i = 0 to 64 iter_args(%acc3 = %empty1) -> (tensor<64xi16>) {
    %y4 = tensor.extract %y[%i] : tensor<64xi16>
    %a5 = tensor.extract %a[%i] : tensor<64xi16>
    %x6 = tensor.extract %x[%i] : tensor<64xi16>
    %t7 = arith.muli %x6, %x6 : i16
    %t8 = arith.muli %a5, %t7 : i16
    %b9 = tensor.extract %b[%i] : tensor<64xi16>
    %t10 = arith.muli %b9, %x6 : i16
    %t11 = arith.addi %t8, %t10 : i16
    %c12 = tensor.extract %c[%i] : tensor<64xi16>
    %t13 = arith.addi %t11, %c12 : i16
    %t14 = arith.subi %y4, %t13 : i16
    %upd15 = tensor.insert %t14 into %acc3[%i] : tensor<64xi16>
    affine.yield %upd15 : tensor<64xi16>
  }
  return %r2 : tensor<64xi16>
}
