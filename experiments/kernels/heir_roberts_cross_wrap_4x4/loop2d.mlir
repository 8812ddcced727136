func.func @heir_roberts_cross_wrap_4x4(%img: tensor<4x4xi16>) -> tensor<4x4xi16> {
  %empty1 = tensor.empty() : tensor<4x4xi16>
  %r2 = affine.for %r = 0 to 4 iter_args(%acc3 = %empty1) -> (tensor<4x4xi16>) {
    %r4 = affine.for %c = 0 to 4 iter_args(%acc5 = %acc3) -> (tensor<4x4xi16>) {
      %c7 = arith.constant 4 : index
      %m6 = arith.muli %r, %c7 : index
      %s8 = arith.addi %c, %m6 : index
      %c11 = arith.constant 4 : index
      %row9 = arith.divui %s8, %c11 : index
      %c12 = arith.constant 4 : index
      %col10 = arith.remui %s8, %c12 : index
      %img13 = tensor.extract %img[%row9, %col10] : tensor<4x4xi16>
      %c15 = arith.constant 4 : index
      %m14 = arith.muli %r, %c15 : index
      %s16 = arith.addi %c, %m14 : index
      %c18 = arith.constant 5 : index
      %s17 = arith.addi %s16, %c18 : index
      %c20 = arith.constant 16 : index
      %w19 = arith.remui %s17, %c20 : index
      %c23 = arith.constant 4 : index
      %row21 = arith.divui %w19, %c23 : index
      %c24 = arith.constant 4 : index
      %col22 = arith.remui %w19, %c24 : index
      %img25 = tensor.extract %img[%row21, %col22] : tensor<4x4xi16>
      %t26 = arith.subi %img13, %img25 : i16
      %t27 = arith.muli %t26, %t26 : i16
      %c29 = arith.constant 4 : index
      %m28 = arith.muli %r, %c29 : index
      %s30 = arith.addi %c, %m28 : index
      %c32 = arith.constant 4 : index
      %s31 = arith.addi %s30, %c32 : index
      %c34 = arith.constant 16 : index
      %w33 = arith.remui %s31, %c34 : index
      %c37 = arith.constant 4 : index
      %row35 = arith.divui %w33, %c37 : index
      %c38 = arith.constant 4 : index
      %col36 = arith.remui %w33, %c38 : index
      %img39 = tensor.extract %img[%row35, %col36] : tensor<4x4xi16>
      %c41 = arith.constant 4 : index
      %m40 = arith.muli %r, %c41 : index
      %s42 = arith.addi %c, %m40 : index
      %c44 = arith.constant 1 : index
      %s43 = arith.addi %s42, %c44 : index
      %c46 = arith.constant 16 : index
      %w45 = arith.remui %s43, %c46 : index
      %c49 = arith.constant 4 : index
      %row47 = arith.divui %w45, %c49 : index
      %c50 = arith.constant 4 : index
      %col48 = arith.remui %w45, %c50 : index
      %img51 = tensor.extract %img[%row47, %col48] : tensor<4x4xi16>
      %t52 = arith.subi %img39, %img51 : i16
      %t53 = arith.muli %t52, %t52 : i16
      %t54 = arith.addi %t27, %t53 : i16
      %upd55 = tensor.insert %t54 into %acc5[%r, %c] : tensor<4x4xi16>
      affine.yield %upd55 : tensor<4x4xi16>
    }
    affine.yield %r4 : tensor<4x4xi16>
  }
  return %r2 : tensor<4x4xi16>
}
