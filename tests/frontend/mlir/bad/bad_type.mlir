func.func @f(%x: tensor<8xi16>) -> tensor<8xi16> {
  %0 = arith.addi %x, %x : tensor<8xq16>
  return %0 : tensor<8xi16>
}
