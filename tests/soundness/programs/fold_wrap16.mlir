func.func @fold_wrap16(%x: i16) -> i16 {
  %a = arith.constant -32768 : i16
  %b = arith.constant 2 : i16
  %k = arith.muli %a, %b : i16
  %r = arith.muli %x, %k : i16
  return %r : i16
}
