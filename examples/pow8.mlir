// x^8 written as 7 chained multiplications (depth 7); repeated squaring needs 3 (depth 3).
func.func @pow8(%x: i16) -> i16 {
  %0 = arith.muli %x, %x : i16
  %1 = arith.muli %0, %x : i16
  %2 = arith.muli %1, %x : i16
  %3 = arith.muli %2, %x : i16
  %4 = arith.muli %3, %x : i16
  %5 = arith.muli %4, %x : i16
  %6 = arith.muli %5, %x : i16
  return %6 : i16
}
