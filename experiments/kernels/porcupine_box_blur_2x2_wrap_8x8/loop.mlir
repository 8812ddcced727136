func.func @porcupine_box_blur_2x2_wrap_8x8(%img: tensor<64xi16>) -> tensor<64xi16> {
  %empty1 = tensor.empty() : tensor<64xi16>
  %r2 = affine.for %r = 0 to 8 iter_args(%acc3 = %empty1) -> (tensor<64xi16>) {
    %r4 = affine.for %c = 0 to 8 iter_args(%acc5 = %acc3) -> (tensor<64xi16>) {
      %c7 = arith.constant 8 : index
      %m6 = arith.muli %r, %c7 : index
      %s8 = arith.addi %c, %m6 : index
      %img9 = tensor.extract %img[%s8] : tensor<64xi16>
      %c11 = arith.constant 8 : index
      %m10 = arith.muli %r, %c11 : index
      %s12 = arith.addi %c, %m10 : index
      %c14 = arith.constant 1 : index
      %s13 = arith.addi %s12, %c14 : index
      %c16 = arith.constant 64 : index
      %w15 = arith.remui %s13, %c16 : index
      %img17 = tensor.extract %img[%w15] : tensor<64xi16>
      %t18 = arith.addi %img9, %img17 : i16
      %c20 = arith.constant 8 : index
      %m19 = arith.muli %r, %c20 : index
      %s21 = arith.addi %c, %m19 : index
      %c23 = arith.constant 8 : index
      %s22 = arith.addi %s21, %c23 : index
      %c25 = arith.constant 64 : index
      %w24 = arith.remui %s22, %c25 : index
      %img26 = tensor.extract %img[%w24] : tensor<64xi16>
      %t27 = arith.addi %t18, %img26 : i16
      %c29 = arith.constant 8 : index
      %m28 = arith.muli %r, %c29 : index
      %s30 = arith.addi %c, %m28 : index
      %c32 = arith.constant 9 : index
      %s31 = arith.addi %s30, %c32 : index
      %c34 = arith.constant 64 : index
      %w33 = arith.remui %s31, %c34 : index
      %img35 = tensor.extract %img[%w33] : tensor<64xi16>
      %t36 = arith.addi %t27, %img35 : i16
      %c38 = arith.constant 8 : index
      %m37 = arith.muli %r, %c38 : index
      %s39 = arith.addi %c, %m37 : index
      %upd40 = tensor.insert %t36 into %acc5[%s39] : tensor<64xi16>
      affine.yield %upd40 : tensor<64xi16>
    }
    affine.yield %r4 : tensor<64xi16>
  }
  return %r2 : tensor<64xi16>
}
