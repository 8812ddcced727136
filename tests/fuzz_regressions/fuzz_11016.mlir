// fuzz seed 11016: report_diff: ops: report {'add_plain': 1, 'rotate': 1, 'sub': 1} != re-read {'neg': 1, 'rotate': 1, 'sub': 1}; cost: report 62.5 != re-read 63.0
// scheme: bgv
// rules: arith
func.func @fuzz_11016(%x0: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arith.subi %x0, %x0 : tensor<4xi32>
  %1 = arith.subi %0, %x0 : tensor<4xi32>
  return %1 : tensor<4xi32>
}
