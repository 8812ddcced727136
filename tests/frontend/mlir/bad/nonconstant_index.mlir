func.func @f(%x: tensor<8xi16>, %k: index) -> i16 {
  %c1 = arith.constant 1 : index
  %j = arith.addi %k, %c1 : index
  %0 = tensor.extract %x[%j] : tensor<8xi16>
  return %0 : i16
}
