// The six pairwise products of four values, summed: ab + ac + ad + bc + bd + cd.
// (a + d)(b + c) + ad + bc needs 3 multiplications instead of 6.
func.func @pairwise_products(%a: i16, %b: i16, %c: i16, %d: i16) -> i16 {
  %ab = arith.muli %a, %b : i16
  %ac = arith.muli %a, %c : i16
  %ad = arith.muli %a, %d : i16
  %bc = arith.muli %b, %c : i16
  %bd = arith.muli %b, %d : i16
  %cd = arith.muli %c, %d : i16
  %0 = arith.addi %ab, %ac : i16
  %1 = arith.addi %0, %ad : i16
  %2 = arith.addi %1, %bc : i16
  %3 = arith.addi %2, %bd : i16
  %4 = arith.addi %3, %cd : i16
  return %4 : i16
}
