// p(x) = 3 + 5x + 7x^2 + 2x^3, every monomial written out with x as its first factor:
// 3 + x*5 + x*(x*7) + x*(x*(x*2)) takes 5 ciphertext multiplications (x*7 and x*2 are
// plaintext ones); Horner's form 3 + x*(5 + x*(7 + x*2)) takes 2 and 1 plaintext one.
func.func @horner(%x: i16) -> i16 {
  %c2 = arith.constant 2 : i16
  %c3 = arith.constant 3 : i16
  %c5 = arith.constant 5 : i16
  %c7 = arith.constant 7 : i16
  %m1 = arith.muli %x, %c5 : i16
  %t2 = arith.muli %x, %c7 : i16
  %m2 = arith.muli %x, %t2 : i16
  %t3 = arith.muli %x, %c2 : i16
  %u3 = arith.muli %x, %t3 : i16
  %m3 = arith.muli %x, %u3 : i16
  %0 = arith.addi %c3, %m1 : i16
  %1 = arith.addi %0, %m2 : i16
  %2 = arith.addi %1, %m3 : i16
  return %2 : i16
}
