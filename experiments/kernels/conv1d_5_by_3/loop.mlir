func.func @conv1d_5_by_3(%sig: tensor<5xi16>, %ker: tensor<3xi16>) -> tensor<3xi16> {
  %empty1 = tensor.empty() : tensor<3xi16>
  %r2 = affine.for %i = 0 to 3 iter_args(%acc3 = %empty1) -> (tensor<3xi16>) {
    %c4 = arith.constant 0 : i16
    %sum5 = affine.for %k = 0 to 3 iter_args(%part6 = %c4) -> (i16) {
      %s7 = arith.addi %i, %k : index
      %sig8 = tensor.extract %sig[%s7] : tensor<5xi16>
      %ker9 = tensor.extract %ker[%k] : tensor<3xi16>
      %t10 = arith.muli %sig8, %ker9 : i16
      %t11 = arith.addi %part6, %t10 : i16
      affine.yield %t11 : i16
    }
    %upd12 = tensor.insert %sum5 into %acc3[%i] : tensor<3xi16>
    affine.yield %upd12 : tensor<3xi16>
  }
  return %r2 : tensor<3xi16>
}
