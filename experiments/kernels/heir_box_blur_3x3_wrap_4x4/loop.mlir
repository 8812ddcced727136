func.func @heir_box_blur_3x3_wrap_4x4(%img: tensor<16xi16>) -> tensor<16xi16> {
  %empty1 = tensor.empty() : tensor<16xi16>
  %r2 = affine.for %r = 0 to 4 iter_args(%acc3 = %empty1) -> (tensor<16xi16>) {
    %r4 = affine.for %c = 0 to 4 iter_args(%acc5 = %acc3) -> (tensor<16xi16>) {
      %c7 = arith.constant 4 : index
      %m6 = arith.muli %r, %c7 : index
      %s8 = arith.addi %c, %m6 : index
      %c10 = arith.constant 11 : index
      %s9 = arith.addi %s8, %c10 : index
      %c12 = arith.constant 16 : index
      %w11 = arith.remui %s9, %c12 : index
      %img13 = tensor.extract %img[%w11] : tensor<16xi16>
      %c15 = arith.constant 4 : index
      %m14 = arith.muli %r, %c15 : index
      %s16 = arith.addi %c, %m14 : index
      %c18 = arith.constant 12 : index
      %s17 = arith.addi %s16, %c18 : index
      %c20 = arith.constant 16 : index
      %w19 = arith.remui %s17, %c20 : index
      %img21 = tensor.extract %img[%w19] : tensor<16xi16>
      %t22 = arith.addi %img13, %img21 : i16
      %c24 = arith.constant 4 : index
      %m23 = arith.muli %r, %c24 : index
      %s25 = arith.addi %c, %m23 : index
      %c27 = arith.constant 13 : index
      %s26 = arith.addi %s25, %c27 : index
      %c29 = arith.constant 16 : index
      %w28 = arith.remui %s26, %c29 : index
      %img30 = tensor.extract %img[%w28] : tensor<16xi16>
      %t31 = arith.addi %t22, %img30 : i16
      %c33 = arith.constant 4 : index
      %m32 = arith.muli %r, %c33 : index
      %s34 = arith.addi %c, %m32 : index
      %c36 = arith.constant 15 : index
      %s35 = arith.addi %s34, %c36 : index
      %c38 = arith.constant 16 : index
      %w37 = arith.remui %s35, %c38 : index
      %img39 = tensor.extract %img[%w37] : tensor<16xi16>
      %t40 = arith.addi %t31, %img39 : i16
      %c42 = arith.constant 4 : index
      %m41 = arith.muli %r, %c42 : index
      %s43 = arith.addi %c, %m41 : index
      %img44 = tensor.extract %img[%s43] : tensor<16xi16>
      %t45 = arith.addi %t40, %img44 : i16
      %c47 = arith.constant 4 : index
      %m46 = arith.muli %r, %c47 : index
      %s48 = arith.addi %c, %m46 : index
      %c50 = arith.constant 1 : index
      %s49 = arith.addi %s48, %c50 : index
      %c52 = arith.constant 16 : index
      %w51 = arith.remui %s49, %c52 : index
      %img53 = tensor.extract %img[%w51] : tensor<16xi16>
      %t54 = arith.addi %t45, %img53 : i16
      %c56 = arith.constant 4 : index
      %m55 = arith.muli %r, %c56 : index
      %s57 = arith.addi %c, %m55 : index
      %c59 = arith.constant 3 : index
      %s58 = arith.addi %s57, %c59 : index
      %c61 = arith.constant 16 : index
      %w60 = arith.remui %s58, %c61 : index
      %img62 = tensor.extract %img[%w60] : tensor<16xi16>
      %t63 = arith.addi %t54, %img62 : i16
      %c65 = arith.constant 4 : index
      %m64 = arith.muli %r, %c65 : index
      %s66 = arith.addi %c, %m64 : index
      %c68 = arith.constant 4 : index
      %s67 = arith.addi %s66, %c68 : index
      %c70 = arith.constant 16 : index
      %w69 = arith.remui %s67, %c70 : index
      %img71 = tensor.extract %img[%w69] : tensor<16xi16>
      %t72 = arith.addi %t63, %img71 : i16
      %c74 = arith.constant 4 : index
      %m73 = arith.muli %r, %c74 : index
      %s75 = arith.addi %c, %m73 : index
      %c77 = arith.constant 5 : index
      %s76 = arith.addi %s75, %c77 : index
      %c79 = arith.constant 16 : index
      %w78 = arith.remui %s76, %c79 : index
      %img80 = tensor.extract %img[%w78] : tensor<16xi16>
      %t81 = arith.addi %t72, %img80 : i16
      %c83 = arith.constant 4 : index
      %m82 = arith.muli %r, %c83 : index
      %s84 = arith.addi %c, %m82 : index
      %upd85 = tensor.insert %t81 into %acc5[%s84] : tensor<16xi16>
      affine.yield %upd85 : tensor<16xi16>
    }
    affine.yield %r4 : tensor<16xi16>
  }
  return %r2 : tensor<16xi16>
}
