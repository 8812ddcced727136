func.func @elementwise_mux_8(%c: tensor<8xi16>, %a: tensor<8xi16>, %b: tensor<8xi16>) -> tensor<8xi16> {
  %empty1 = tensor.empty() : tensor<8xi16>
  %r2 = affine.for %i = 0 to 8 iter_args(%acc3 = %empty1) -> (tensor<8xi16>) {
    %b4 = tensor.extract %b[%i] : tensor<8xi16>
    %c5 = tensor.extract %c[%i] : tensor<8xi16>
    %a6 = tensor.extract %a[%i] : tensor<8xi16>
    %t7 = arith.subi %a6, %b4 : i16
    %t8 = arith.muli %c5, %t7 : i16
    %t9 = arith.addi %b4, %t8 : i16
    %upd10 = tensor.insert %t9 into %acc3[%i] : tensor<8xi16>
    affine.yield %upd10 : tensor<8xi16>
  }
  return %r2 : tensor<8xi16>
}
