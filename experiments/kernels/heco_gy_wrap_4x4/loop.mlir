func.func @heco_gy_wrap_4x4(%img: tensor<16xi16>) -> tensor<16xi16> {
  %empty1 = tensor.empty() : tensor<16xi16>
  %r2 = affine.for %r = 0 to 4 iter_args(%acc3 = %empty1) -> (tensor<16xi16>) {
    %r4 = affine.for %c = 0 to 4 iter_args(%acc5 = %acc3) -> (tensor<16xi16>) {
      %c7 = arith.constant 4 : index
      %m6 = arith.muli %r, %c7 : index
      %s8 = arith.addi %c, %m6 : index
      %c10 = arith.constant 3 : index
      %s9 = arith.addi %s8, %c10 : index
      %c12 = arith.constant 16 : index
      %w11 = arith.remui %s9, %c12 : index
      %img13 = tensor.extract %img[%w11] : tensor<16xi16>
      %c14 = arith.constant 2 : i16
      %c16 = arith.constant 4 : index
      %m15 = arith.muli %r, %c16 : index
      %s17 = arith.addi %c, %m15 : index
      %c19 = arith.constant 4 : index
      %s18 = arith.addi %s17, %c19 : index
      %c21 = arith.constant 16 : index
      %w20 = arith.remui %s18, %c21 : index
      %img22 = tensor.extract %img[%w20] : tensor<16xi16>
      %t23 = arith.muli %c14, %img22 : i16
      %t24 = arith.addi %img13, %t23 : i16
      %c26 = arith.constant 4 : index
      %m25 = arith.muli %r, %c26 : index
      %s27 = arith.addi %c, %m25 : index
      %c29 = arith.constant 5 : index
      %s28 = arith.addi %s27, %c29 : index
      %c31 = arith.constant 16 : index
      %w30 = arith.remui %s28, %c31 : index
      %img32 = tensor.extract %img[%w30] : tensor<16xi16>
      %t33 = arith.addi %t24, %img32 : i16
      %c35 = arith.constant 4 : index
      %m34 = arith.muli %r, %c35 : index
      %s36 = arith.addi %c, %m34 : index
      %c38 = arith.constant 11 : index
      %s37 = arith.addi %s36, %c38 : index
      %c40 = arith.constant 16 : index
      %w39 = arith.remui %s37, %c40 : index
      %img41 = tensor.extract %img[%w39] : tensor<16xi16>
      %t42 = arith.subi %t33, %img41 : i16
      %c44 = arith.constant 4 : index
      %m43 = arith.muli %r, %c44 : index
      %s45 = arith.addi %c, %m43 : index
      %c47 = arith.constant 12 : index
      %s46 = arith.addi %s45, %c47 : index
      %c49 = arith.constant 16 : index
      %w48 = arith.remui %s46, %c49 : index
      %img50 = tensor.extract %img[%w48] : tensor<16xi16>
      %t51 = arith.muli %c14, %img50 : i16
      %t52 = arith.subi %t42, %t51 : i16
      %c54 = arith.constant 4 : index
      %m53 = arith.muli %r, %c54 : index
      %s55 = arith.addi %c, %m53 : index
      %c57 = arith.constant 13 : index
      %s56 = arith.addi %s55, %c57 : index
      %c59 = arith.constant 16 : index
      %w58 = arith.remui %s56, %c59 : index
      %img60 = tensor.extract %img[%w58] : tensor<16xi16>
      %t61 = arith.subi %t52, %img60 : i16
      %c63 = arith.constant 4 : index
      %m62 = arith.muli %r, %c63 : index
      %s64 = arith.addi %c, %m62 : index
      %upd65 = tensor.insert %t61 into %acc5[%s64] : tensor<16xi16>
      affine.yield %upd65 : tensor<16xi16>
    }
    affine.yield %r4 : tensor<16xi16>
  }
  return %r2 : tensor<16xi16>
}
