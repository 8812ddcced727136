// fuzz seed 11248: report_diff: ops: report {'rotate': 1, 'add_plain': 1} != re-read {'rotate': 1, 'neg': 1}
// scheme: ckks
// rules: ring,slots
func.func @fuzz_11248(%x0: tensor<4xi16>) -> (tensor<4xi16>, tensor<4xi16>) {
  %0 = arith.subi %x0, %x0 : tensor<4xi16>
  %1 = arith.subi %0, %x0 : tensor<4xi16>
  return %x0, %1 : tensor<4xi16>, tensor<4xi16>
}
