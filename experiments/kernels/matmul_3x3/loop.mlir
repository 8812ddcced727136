func.func @matmul_3x3(%a: tensor<9xi16>, %b: tensor<9xi16>) -> tensor<9xi16> {
  %empty1 = tensor.empty() : tensor<9xi16>
  %r2 = affine.for %r = 0 to 3 iter_args(%acc3 = %empty1) -> (tensor<9xi16>) {
    %r4 = affine.for %c = 0 to 3 iter_args(%acc5 = %acc3) -> (tensor<9xi16>) {
      %c6 = arith.constant 0 : i16
      %sum7 = affine.for %k = 0 to 3 iter_args(%part8 = %c6) -> (i16) {
        %c10 = arith.constant 3 : index
        %m9 = arith.muli %r, %c10 : index
        %s11 = arith.addi %k, %m9 : index
        %a12 = tensor.extract %a[%s11] : tensor<9xi16>
        %c14 = arith.constant 3 : index
        %m13 = arith.muli %k, %c14 : index
        %s15 = arith.addi %c, %m13 : index
        %b16 = tensor.extract %b[%s15] : tensor<9xi16>
        %t17 = arith.muli %a12, %b16 : i16
        %t18 = arith.addi %part8, %t17 : i16
        affine.yield %t18 : i16
      }
      %c20 = arith.constant 3 : index
      %m19 = arith.muli %r, %c20 : index
      %s21 = arith.addi %c, %m19 : index
      %upd22 = tensor.insert %sum7 into %acc5[%s21] : tensor<9xi16>
      affine.yield %upd22 : tensor<9xi16>
    }
    affine.yield %r4 : tensor<9xi16>
  }
  return %r2 : tensor<9xi16>
}
