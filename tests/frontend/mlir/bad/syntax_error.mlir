func.func @f(%x: i16) -> i16 {
  %0 = arith.addi %x, : i16
  return %0 : i16
}
