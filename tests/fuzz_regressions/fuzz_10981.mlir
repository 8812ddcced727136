// fuzz seed 10981: report_diff: ops: report {'add_plain': 2} != re-read {'add_plain': 1, 'neg': 1}
// scheme: bgv
// rules: ring,slots
func.func @fuzz_10981(%x0: tensor<4xi16>) -> tensor<4xi16> {
  %0 = arith.subi %x0, %x0 : tensor<4xi16>
  %1 = arith.subi %0, %x0 : tensor<4xi16>
  return %1 : tensor<4xi16>
}
