// fuzz seed 10097: analysis_unsound: depth_floor of result 0: 1 > the depth 0 of fuzz_10097; ckks_depth_floor of result 0: 1 > the depth 0 of fuzz_10097
// scheme: bgv
// rules: ring,slots
// costs: {"add": 2.0, "add_plain": 2.0, "bootstrap": 500.0, "extract": 16.0, "insert": 33.0, "modswitch": 4.0, "mul": 12.0, "mul_plain": 1.0, "neg": 2.0, "reduce_noise": 1000.0, "relinearize": 56.0, "rescale": 4.0, "rotate": 30.0, "sub": 1.0}
func.func @fuzz_10097(%x0: i32, %x1: i32) -> i32 {
  %0 = arith.muli %x0, %x1 : i32
  %1 = arith.subi %0, %0 : i32
  return %1 : i32
}
