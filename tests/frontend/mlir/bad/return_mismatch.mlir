func.func @f(%x: i16) -> i32 {
  return %x : i16
}
