// fuzz seed 10067: crash: IndexError: list index out of range
// scheme: ckks
// rules: ring
func.func @text_1554866419(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %0 = tensor.extract %x[%c0] : tensor<8xf32>
  %1 = arith.subf %0, %0 : f32
  %2 = tensor.insert %1 into %y[%c0] : tensor<8xf32>
  return %2 : tensor<8xf32>
}
