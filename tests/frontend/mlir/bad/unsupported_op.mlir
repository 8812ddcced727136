func.func @f(%x: i16, %y: i16) -> i16 {
  %0 = arith.muli %x, %y : i16
  %1 = arith.divsi %0, %y : i16
  return %1 : i16
}
