// fuzz seed 10450: costlier: cost -49 -> -49 from a source within the noise budget
// scheme: bgv
// rules: arith
// costs: {"add": 2.0, "add_plain": 2.0, "bootstrap": 500.0, "extract": 16.0, "insert": 16.5, "modswitch": 4.0, "mul": 6.0, "mul_plain": 2.0, "neg": 0.5, "reduce_noise": 500.0, "relinearize": 56.0, "rescale": 2.0, "rotate": 60.0, "rotate_hoisted": 8.5, "sub": 1.0}
func.func @text_3564963240(%s_x: !secret.secret<tensor<8xi16>>, %s_y: !secret.secret<tensor<8xi16>>) -> !secret.secret<tensor<8xi16>> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %0 = secret.generic(%s_x: !secret.secret<tensor<8xi16>>, %s_y: !secret.secret<tensor<8xi16>>) {
  ^body(%input0: tensor<8xi16>, %input1: tensor<8xi16>):
    %1 = tensor.extract %input0[%c7] : tensor<8xi16>
    %2 = tensor.extract %input0[%c1] : tensor<8xi16>
    %3 = arith.addi %1, %2 : i16
    %4 = tensor.insert %3 into %input1[%c0] : tensor<8xi16>
    %5 = tensor.extract %input0[%c2] : tensor<8xi16>
    %6 = tensor.insert %5 into %4[%c1] : tensor<8xi16>
    secret.yield %6 : tensor<8xi16>
  } -> !secret.secret<tensor<8xi16>>
  return %0 : !secret.secret<tensor<8xi16>>
}
