func.func @f(%x: i16) -> i16 {
  %c1 = arith.constant 1 : index
  %0 = tensor_ext.rotate %x, %c1 : i16, index
  return %0 : i16
}
