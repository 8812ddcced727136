// fuzz seed 10325: report_diff: ops: report {'sub': 1, 'add': 1, 'add_plain': 1} != re-read {'sub': 1, 'add': 1, 'neg': 1}
// scheme: ckks
// rules: ring,slots
func.func @fuzz_10325(%x0: i32, %x1: i32) -> i32 {
  %0 = arith.subi %x0, %x0 : i32
  %1 = arith.subi %0, %x0 : i32
  return %1 : i32
}
