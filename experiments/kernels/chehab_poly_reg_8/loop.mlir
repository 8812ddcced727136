func.func @chehab_poly_reg_8(%x: tensor<8xi16>, %a: tensor<8xi16>, %b: tensor<8xi16>, %c: tensor<8xi16>) -> tensor<8xi16> {
  %empty1 = tensor.empty() : tensor<8xi16>
  %r2 = affine.for %i = 0 to 8 iter_args(%acc3 = %empty1) -> (tensor<8xi16>) {
    %c4 = tensor.extract %c[%i] : tensor<8xi16>
    %x5 = tensor.extract %x[%i] : tensor<8xi16>
    %t6 = arith.muli %x5, %x5 : i16
    %a7 = tensor.extract %a[%i] : tensor<8xi16>
    %t8 = arith.muli %t6, %a7 : i16
    %b9 = tensor.extract %b[%i] : tensor<8xi16>
    %t10 = arith.muli %x5, %b9 : i16
    %t11 = arith.addi %t8, %t10 : i16
    %t12 = arith.subi %c4, %t11 : i16
    %upd13 = tensor.insert %t12 into %acc3[%i] : tensor<8xi16>
    affine.yield %upd13 : tensor<8xi16>
  }
  return %r2 : tensor<8xi16>
}
