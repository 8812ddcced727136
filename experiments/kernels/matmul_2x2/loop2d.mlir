func.func @matmul_2x2(%a: tensor<2x2xi16>, %b: tensor<2x2xi16>) -> tensor<2x2xi16> {
  %empty1 = tensor.empty() : tensor<2x2xi16>
  %r2 = affine.for %r = 0 to 2 iter_args(%acc3 = %empty1) -> (tensor<2x2xi16>) {
    %r4 = affine.for %c = 0 to 2 iter_args(%acc5 = %acc3) -> (tensor<2x2xi16>) {
      %c6 = arith.constant 0 : i16
      %sum7 = affine.for %k = 0 to 2 iter_args(%part8 = %c6) -> (i16) {
        %c10 = arith.constant 2 : index
        %m9 = arith.muli %r, %c10 : index
        %s11 = arith.addi %k, %m9 : index
        %c14 = arith.constant 2 : index
        %row12 = arith.divui %s11, %c14 : index
        %c15 = arith.constant 2 : index
        %col13 = arith.remui %s11, %c15 : index
        %a16 = tensor.extract %a[%row12, %col13] : tensor<2x2xi16>
        %c18 = arith.constant 2 : index
        %m17 = arith.muli %k, %c18 : index
        %s19 = arith.addi %c, %m17 : index
        %c22 = arith.constant 2 : index
        %row20 = arith.divui %s19, %c22 : index
        %c23 = arith.constant 2 : index
        %col21 = arith.remui %s19, %c23 : index
        %b24 = tensor.extract %b[%row20, %col21] : tensor<2x2xi16>
        %t25 = arith.muli %a16, %b24 : i16
        %t26 = arith.addi %part8, %t25 : i16
        affine.yield %t26 : i16
      }
      %upd27 = tensor.insert %sum7 into %acc5[%r, %c] : tensor<2x2xi16>
      affine.yield %upd27 : tensor<2x2xi16>
    }
    affine.yield %r4 : tensor<2x2xi16>
  }
  return %r2 : tensor<2x2xi16>
}
