func.func @chehab_lin_reg_8(%v1: tensor<8xi16>, %v2: tensor<8xi16>) -> tensor<8xi16> {
  %empty1 = tensor.empty() : tensor<8xi16>
  %r2 = affine.for %i = 0 to 8 iter_args(%acc3 = %empty1) -> (tensor<8xi16>) {
    %v24 = tensor.extract %v2[%i] : tensor<8xi16>
    %c5 = arith.constant 5 : i16
    %v16 = tensor.extract %v1[%i] : tensor<8xi16>
    %t7 = arith.muli %c5, %v16 : i16
    %c8 = arith.constant 2 : i16
    %t9 = arith.addi %t7, %c8 : i16
    %t10 = arith.addi %v24, %t9 : i16
    %upd11 = tensor.insert %t10 into %acc3[%i] : tensor<8xi16>
    affine.yield %upd11 : tensor<8xi16>
  }
  return %r2 : tensor<8xi16>
}
