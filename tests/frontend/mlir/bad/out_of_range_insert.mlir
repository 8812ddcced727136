func.func @f(%x: tensor<4x4xi16>, %s: i16) -> tensor<4x4xi16> {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %0 = tensor.insert %s into %x[%c1, %c4] : tensor<4x4xi16>
  return %0 : tensor<4x4xi16>
}
