func.func @test_single_insertion_branching() -> i5 {
  %c3_i5 = arith.constant 3 : i5
  %c4_i5 = arith.constant 4 : i5
  %0 = noisy.encode %c3_i5 : i5 -> !noisy.i32
  %1 = noisy.encode %c4_i5 : i5 -> !noisy.i32
  %2 = noisy.mul %0, %1 : !noisy.i32
  %3 = noisy.add %2, %1 : !noisy.i32
  %4 = noisy.add %3, %1 : !noisy.i32
  %5 = noisy.add %4, %1 : !noisy.i32
  %6 = noisy.add %5, %1 : !noisy.i32
  %7 = noisy.sub %2, %0 : !noisy.i32
  %8 = noisy.sub %7, %1 : !noisy.i32
  %9 = noisy.sub %8, %1 : !noisy.i32
  %10 = noisy.sub %9, %1 : !noisy.i32
  %11 = noisy.decode %6 : !noisy.i32 -> i5
  %12 = noisy.decode %10 : !noisy.i32 -> i5
  %13 = arith.addi %11, %12 : i5
  return %13 : i5
}
