func.func @f() -> i16 {
  %0 = arith.constant 1 : i16 ÿþ
}
