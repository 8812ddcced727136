func.func @elementwise_square_add_16(%x: tensor<16xi16>, %y: tensor<16xi16>) -> tensor<16xi16> {
  %empty1 = tensor.empty() : tensor<16xi16>
  %r2 = affine.for %i = 0 to 16 iter_args(%acc3 = %empty1) -> (tensor<16xi16>) {
    %x4 = tensor.extract %x[%i] : tensor<16xi16>
    %t5 = arith.muli %x4, %x4 : i16
    %y6 = tensor.extract %y[%i] : tensor<16xi16>
    %t7 = arith.addi %t5, %y6 : i16
    %upd8 = tensor.insert %t7 into %acc3[%i] : tensor<16xi16>
    affine.yield %upd8 : tensor<16xi16>
  }
  return %r2 : tensor<16xi16>
}
