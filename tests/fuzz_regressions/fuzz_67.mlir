// fuzz seed 67: infeasible: rescale ILP failed (empty)
// scheme: ckks
// rules: ring,slots
func.func @fuzz_67(%x0: tensor<8xi32>, %x1: tensor<8xi32>) -> tensor<8xi32> {
  %0 = arith.subi %x1, %x1 : tensor<8xi32>
  return %0 : tensor<8xi32>
}
