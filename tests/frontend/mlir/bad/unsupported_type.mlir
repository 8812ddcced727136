func.func @f(%x: memref<8xi16>) -> i16 {
  %c0 = arith.constant 0 : index
  %0 = memref.load %x[%c0] : memref<8xi16>
  return %0 : i16
}
