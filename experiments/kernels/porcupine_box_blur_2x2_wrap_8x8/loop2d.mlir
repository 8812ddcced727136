func.func @porcupine_box_blur_2x2_wrap_8x8(%img: tensor<8x8xi16>) -> tensor<8x8xi16> {
  %empty1 = tensor.empty() : tensor<8x8xi16>
  %r2 = affine.for %r = 0 to 8 iter_args(%acc3 = %empty1) -> (tensor<8x8xi16>) {
    %r4 = affine.for %c = 0 to 8 iter_args(%acc5 = %acc3) -> (tensor<8x8xi16>) {
      %c7 = arith.constant 8 : index
      %m6 = arith.muli %r, %c7 : index
      %s8 = arith.addi %c, %m6 : index
      %c11 = arith.constant 8 : index
      %row9 = arith.divui %s8, %c11 : index
      %c12 = arith.constant 8 : index
      %col10 = arith.remui %s8, %c12 : index
      %img13 = tensor.extract %img[%row9, %col10] : tensor<8x8xi16>
      %c15 = arith.constant 8 : index
      %m14 = arith.muli %r, %c15 : index
      %s16 = arith.addi %c, %m14 : index
      %c18 = arith.constant 1 : index
      %s17 = arith.addi %s16, %c18 : index
      %c20 = arith.constant 64 : index
      %w19 = arith.remui %s17, %c20 : index
      %c23 = arith.constant 8 : index
      %row21 = arith.divui %w19, %c23 : index
      %c24 = arith.constant 8 : index
      %col22 = arith.remui %w19, %c24 : index
      %img25 = tensor.extract %img[%row21, %col22] : tensor<8x8xi16>
      %t26 = arith.addi %img13, %img25 : i16
      %c28 = arith.constant 8 : index
      %m27 = arith.muli %r, %c28 : index
      %s29 = arith.addi %c, %m27 : index
      %c31 = arith.constant 8 : index
      %s30 = arith.addi %s29, %c31 : index
      %c33 = arith.constant 64 : index
      %w32 = arith.remui %s30, %c33 : index
      %c36 = arith.constant 8 : index
      %row34 = arith.divui %w32, %c36 : index
      %c37 = arith.constant 8 : index
      %col35 = arith.remui %w32, %c37 : index
      %img38 = tensor.extract %img[%row34, %col35] : tensor<8x8xi16>
      %t39 = arith.addi %t26, %img38 : i16
      %c41 = arith.constant 8 : index
      %m40 = arith.muli %r, %c41 : index
      %s42 = arith.addi %c, %m40 : index
      %c44 = arith.constant 9 : index
      %s43 = arith.addi %s42, %c44 : index
      %c46 = arith.constant 64 : index
      %w45 = arith.remui %s43, %c46 : index
      %c49 = arith.constant 8 : index
      %row47 = arith.divui %w45, %c49 : index
      %c50 = arith.constant 8 : index
      %col48 = arith.remui %w45, %c50 : index
      %img51 = tensor.extract %img[%row47, %col48] : tensor<8x8xi16>
      %t52 = arith.addi %t39, %img51 : i16
      %upd53 = tensor.insert %t52 into %acc5[%r, %c] : tensor<8x8xi16>
      affine.yield %upd53 : tensor<8x8xi16>
    }
    affine.yield %r4 : tensor<8x8xi16>
  }
  return %r2 : tensor<8x8xi16>
}
