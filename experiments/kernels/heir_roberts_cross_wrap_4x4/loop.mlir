func.func @heir_roberts_cross_wrap_4x4(%img: tensor<16xi16>) -> tensor<16xi16> {
  %empty1 = tensor.empty() : tensor<16xi16>
  %r2 = affine.for %r = 0 to 4 iter_args(%acc3 = %empty1) -> (tensor<16xi16>) {
    %r4 = affine.for %c = 0 to 4 iter_args(%acc5 = %acc3) -> (tensor<16xi16>) {
      %c7 = arith.constant 4 : index
      %m6 = arith.muli %r, %c7 : index
      %s8 = arith.addi %c, %m6 : index
      %img9 = tensor.extract %img[%s8] : tensor<16xi16>
      %c11 = arith.constant 4 : index
      %m10 = arith.muli %r, %c11 : index
      %s12 = arith.addi %c, %m10 : index
      %c14 = arith.constant 5 : index
      %s13 = arith.addi %s12, %c14 : index
      %c16 = arith.constant 16 : index
      %w15 = arith.remui %s13, %c16 : index
      %img17 = tensor.extract %img[%w15] : tensor<16xi16>
      %t18 = arith.subi %img9, %img17 : i16
      %t19 = arith.muli %t18, %t18 : i16
      %c21 = arith.constant 4 : index
      %m20 = arith.muli %r, %c21 : index
      %s22 = arith.addi %c, %m20 : index
      %c24 = arith.constant 4 : index
      %s23 = arith.addi %s22, %c24 : index
      %c26 = arith.constant 16 : index
      %w25 = arith.remui %s23, %c26 : index
      %img27 = tensor.extract %img[%w25] : tensor<16xi16>
      %c29 = arith.constant 4 : index
      %m28 = arith.muli %r, %c29 : index
      %s30 = arith.addi %c, %m28 : index
      %c32 = arith.constant 1 : index
      %s31 = arith.addi %s30, %c32 : index
      %c34 = arith.constant 16 : index
      %w33 = arith.remui %s31, %c34 : index
      %img35 = tensor.extract %img[%w33] : tensor<16xi16>
      %t36 = arith.subi %img27, %img35 : i16
      %t37 = arith.muli %t36, %t36 : i16
      %t38 = arith.addi %t19, %t37 : i16
      %c40 = arith.constant 4 : index
      %m39 = arith.muli %r, %c40 : index
      %s41 = arith.addi %c, %m39 : index
      %upd42 = tensor.insert %t38 into %acc5[%s41] : tensor<16xi16>
      affine.yield %upd42 : tensor<16xi16>
    }
    affine.yield %r4 : tensor<16xi16>
  }
  return %r2 : tensor<16xi16>
}
