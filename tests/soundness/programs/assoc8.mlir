func.func @assoc8(%x: i8) -> i8 {
  %a = arith.constant 20 : i8
  %r = arith.muli %x, %a : i8
  %s = arith.muli %r, %a : i8
  return %s : i8
}
