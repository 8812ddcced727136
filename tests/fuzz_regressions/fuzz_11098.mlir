// fuzz seed 11098: report_diff: ops: report {'mul_plain': 2, 'add_plain': 1, 'add': 2, 'modswitch': 2, 'mul': 1, 'relinearize': 1, 'rotate': 1} != re-read {'mul_plain': 2, 'neg': 1, 'add': 2, 'modswitch': 2, 'mul': 1, 'relinearize':
// scheme: bgv
// rules: ring,slots
func.func @fuzz_11098(%x0: tensor<8xi16>, %x1: tensor<8xi16>, %x2: tensor<8xi16>) -> tensor<8xi16> {
  %0 = arith.subi %x1, %x1 : tensor<8xi16>
  %1 = arith.subi %0, %x0 : tensor<8xi16>
  return %1 : tensor<8xi16>
}
