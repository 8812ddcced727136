func.func @test_op_syntax() -> i5 {
  %c3_i5 = arith.constant 3 : i5
  %c4_i5 = arith.constant 4 : i5
  %0 = noisy.encode %c3_i5 : i5 -> !noisy.i32
  %1 = noisy.encode %c4_i5 : i5 -> !noisy.i32
  %2 = noisy.mul %0, %1 : !noisy.i32
  %3 = noisy.mul %2, %2 : !noisy.i32
  %4 = noisy.mul %3, %3 : !noisy.i32
  %5 = noisy.mul %4, %4 : !noisy.i32
  %6 = noisy.decode %5 : !noisy.i32 -> i5
  return %6 : i5
}
