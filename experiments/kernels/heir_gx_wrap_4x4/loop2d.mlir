func.func @heir_gx_wrap_4x4(%img: tensor<4x4xi16>) -> tensor<4x4xi16> {
  %empty1 = tensor.empty() : tensor<4x4xi16>
  %r2 = affine.for %r = 0 to 4 iter_args(%acc3 = %empty1) -> (tensor<4x4xi16>) {
    %r4 = affine.for %c = 0 to 4 iter_args(%acc5 = %acc3) -> (tensor<4x4xi16>) {
      %c7 = arith.constant 4 : index
      %m6 = arith.muli %r, %c7 : index
      %s8 = arith.addi %c, %m6 : index
      %c10 = arith.constant 13 : index
      %s9 = arith.addi %s8, %c10 : index
      %c12 = arith.constant 16 : index
      %w11 = arith.remui %s9, %c12 : index
      %c15 = arith.constant 4 : index
      %row13 = arith.divui %w11, %c15 : index
      %c16 = arith.constant 4 : index
      %col14 = arith.remui %w11, %c16 : index
      %img17 = tensor.extract %img[%row13, %col14] : tensor<4x4xi16>
      %c18 = arith.constant 2 : i16
      %c20 = arith.constant 4 : index
      %m19 = arith.muli %r, %c20 : index
      %s21 = arith.addi %c, %m19 : index
      %c23 = arith.constant 1 : index
      %s22 = arith.addi %s21, %c23 : index
      %c25 = arith.constant 16 : index
      %w24 = arith.remui %s22, %c25 : index
      %c28 = arith.constant 4 : index
      %row26 = arith.divui %w24, %c28 : index
      %c29 = arith.constant 4 : index
      %col27 = arith.remui %w24, %c29 : index
      %img30 = tensor.extract %img[%row26, %col27] : tensor<4x4xi16>
      %t31 = arith.muli %c18, %img30 : i16
      %t32 = arith.addi %img17, %t31 : i16
      %c34 = arith.constant 4 : index
      %m33 = arith.muli %r, %c34 : index
      %s35 = arith.addi %c, %m33 : index
      %c37 = arith.constant 5 : index
      %s36 = arith.addi %s35, %c37 : index
      %c39 = arith.constant 16 : index
      %w38 = arith.remui %s36, %c39 : index
      %c42 = arith.constant 4 : index
      %row40 = arith.divui %w38, %c42 : index
      %c43 = arith.constant 4 : index
      %col41 = arith.remui %w38, %c43 : index
      %img44 = tensor.extract %img[%row40, %col41] : tensor<4x4xi16>
      %t45 = arith.addi %t32, %img44 : i16
      %c47 = arith.constant 4 : index
      %m46 = arith.muli %r, %c47 : index
      %s48 = arith.addi %c, %m46 : index
      %c50 = arith.constant 11 : index
      %s49 = arith.addi %s48, %c50 : index
      %c52 = arith.constant 16 : index
      %w51 = arith.remui %s49, %c52 : index
      %c55 = arith.constant 4 : index
      %row53 = arith.divui %w51, %c55 : index
      %c56 = arith.constant 4 : index
      %col54 = arith.remui %w51, %c56 : index
      %img57 = tensor.extract %img[%row53, %col54] : tensor<4x4xi16>
      %t58 = arith.subi %t45, %img57 : i16
      %c60 = arith.constant 4 : index
      %m59 = arith.muli %r, %c60 : index
      %s61 = arith.addi %c, %m59 : index
      %c63 = arith.constant 15 : index
      %s62 = arith.addi %s61, %c63 : index
      %c65 = arith.constant 16 : index
      %w64 = arith.remui %s62, %c65 : index
      %c68 = arith.constant 4 : index
      %row66 = arith.divui %w64, %c68 : index
      %c69 = arith.constant 4 : index
      %col67 = arith.remui %w64, %c69 : index
      %img70 = tensor.extract %img[%row66, %col67] : tensor<4x4xi16>
      %t71 = arith.muli %c18, %img70 : i16
      %t72 = arith.subi %t58, %t71 : i16
      %c74 = arith.constant 4 : index
      %m73 = arith.muli %r, %c74 : index
      %s75 = arith.addi %c, %m73 : index
      %c77 = arith.constant 3 : index
      %s76 = arith.addi %s75, %c77 : index
      %c79 = arith.constant 16 : index
      %w78 = arith.remui %s76, %c79 : index
      %c82 = arith.constant 4 : index
      %row80 = arith.divui %w78, %c82 : index
      %c83 = arith.constant 4 : index
      %col81 = arith.remui %w78, %c83 : index
      %img84 = tensor.extract %img[%row80, %col81] : tensor<4x4xi16>
      %t85 = arith.subi %t72, %img84 : i16
      %upd86 = tensor.insert %t85 into %acc5[%r, %c] : tensor<4x4xi16>
      affine.yield %upd86 : tensor<4x4xi16>
    }
    affine.yield %r4 : tensor<4x4xi16>
  }
  return %r2 : tensor<4x4xi16>
}
