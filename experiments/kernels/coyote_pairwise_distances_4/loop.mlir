func.func @coyote_pairwise_distances_4(%xs: tensor<4xi16>, %ys: tensor<4xi16>) -> tensor<16xi16> {
  %empty1 = tensor.empty() : tensor<16xi16>
  %r2 = affine.for %r = 0 to 4 iter_args(%acc3 = %empty1) -> (tensor<16xi16>) {
    %r4 = affine.for %c = 0 to 4 iter_args(%acc5 = %acc3) -> (tensor<16xi16>) {
      %xs6 = tensor.extract %xs[%r] : tensor<4xi16>
      %ys7 = tensor.extract %ys[%c] : tensor<4xi16>
      %t8 = arith.subi %xs6, %ys7 : i16
      %t9 = arith.muli %t8, %t8 : i16
      %c11 = arith.constant 4 : index
      %m10 = arith.muli %r, %c11 : index
      %s12 = arith.addi %c, %m10 : index
      %upd13 = tensor.insert %t9 into %acc5[%s12] : tensor<16xi16>
      affine.yield %upd13 : tensor<16xi16>
    }
    affine.yield %r4 : tensor<16xi16>
  }
  return %r2 : tensor<16xi16>
}
