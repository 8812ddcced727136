func.func @f(%x: tensor<8xi16>, %y: i16) -> tensor<8xi16> {
  %0 = arith.addi %x, %y : tensor<8xi16>
  return %0 : tensor<8xi16>
}
