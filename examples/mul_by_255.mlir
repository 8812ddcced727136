// y = 255 * x and z = -3 * x (a scalar ciphertext): 255x = 256x - x (8 doublings, one
// subtraction), -3x = x - 4x (two doublings, one subtraction).
func.func @mul_by_255(%x: i16) -> (i16, i16) {
  %c255 = arith.constant 255 : i16
  %cm3 = arith.constant -3 : i16
  %0 = arith.muli %x, %c255 : i16
  %1 = arith.muli %cm3, %x : i16
  return %0, %1 : i16, i16
}
