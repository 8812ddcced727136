// fuzz seed 10200: report_diff: ops: report {'extract': 1, 'add_plain': 1, 'insert': 1} != re-read {'extract': 1, 'neg': 1, 'insert': 1}; cost: report 33.5 != re-read 34.5
// scheme: bgv
// rules: ring
func.func @fuzz_10200(%x0: tensor<8xi32>) -> tensor<8xi32> {
  %0 = arith.subi %x0, %x0 : tensor<8xi32>
  %1 = arith.subi %0, %x0 : tensor<8xi32>
  return %1 : tensor<8xi32>
}
