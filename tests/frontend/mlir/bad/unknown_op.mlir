func.func @f(%x: tensor<8xi16>) -> tensor<8xi16> {
  %0 = arith.addi %x, %x : tensor<8xi16>
  %1 = foo.frobnicate %0 : tensor<8xi16>
  return %1 : tensor<8xi16>
}
