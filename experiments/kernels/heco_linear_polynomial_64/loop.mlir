func.func @heco_linear_polynomial_64(%a: tensor<64xi16>, %b: tensor<64xi16>, %x: tensor<64xi16>, %y: tensor<64xi16>) -> tensor<64xi16> {
  %empty1 = tensor.empty() : tensor<64xi16>
  %r2 = affine.for %i = 0 to 64 iter_args(%acc3 = %empty1) -> (tensor<64xi16>) {
    %y4 = tensor.extract %y[%i] : tensor<64xi16>
    %a5 = tensor.extract %a[%i] : tensor<64xi16>
    %x6 = tensor.extract %x[%i] : tensor<64xi16>
    %t7 = arith.muli %a5, %x6 : i16
    %t8 = arith.subi %y4, %t7 : i16
    %b9 = tensor.extract %b[%i] : tensor<64xi16>
    %t10 = arith.subi %t8, %b9 : i16
    %upd11 = tensor.insert %t10 into %acc3[%i] : tensor<64xi16>
    affine.yield %upd11 : tensor<64xi16>
  }
  return %r2 : tensor<64xi16>
}
