// fuzz seed 10339: costlier: cost -122 -> -122 from a source within the noise budget
// scheme: ckks
// rules: default
// costs: {"add": 2.0, "add_plain": 2.0, "bootstrap": 1000.0, "extract": 17.5, "insert": 36.0, "modswitch": 3.0, "mul": 20.0, "mul_plain": 1.5, "neg": 1.0, "reduce_noise": 1000.0, "relinearize": 15.0, "rescale": 10.0, "rotate": 64.0, "rotate_hoisted": 7.5, "sub": 2.0}
func.func @text_2575660114(%s_x: !secret.secret<tensor<8xi16>>, %s_y: !secret.secret<tensor<8xi16>>) -> !secret.secret<i16> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %0 = secret.generic(%s_x: !secret.secret<tensor<8xi16>>, %s_y: !secret.secret<tensor<8xi16>>) {
  ^body(%input0: tensor<8xi16>, %input1: tensor<8xi16>):
    %c0_i16 = arith.constant 0 : i16
    %1 = tensor.extract %input0[%c1] : tensor<8xi16>
    %c-7_i16 = arith.constant -7 : i16
    %2 = arith.addi %1, %c-7_i16 : i16
    %3 = arith.addi %c0_i16, %2 : i16
    %4 = tensor.extract %input0[%c2] : tensor<8xi16>
    %5 = arith.addi %4, %c-7_i16 : i16
    %6 = arith.addi %3, %5 : i16
    %7 = tensor.extract %input0[%c3] : tensor<8xi16>
    %8 = tensor.extract %input1[%c5] : tensor<8xi16>
    %9 = arith.muli %6, %6 : i16
    %10 = arith.addi %9, %8 : i16
    %11 = arith.addi %7, %c-7_i16 : i16
    %12 = arith.addi %6, %11 : i16
    %13 = tensor.extract %input0[%c4] : tensor<8xi16>
    %14 = tensor.extract %input1[%c6] : tensor<8xi16>
    %15 = arith.muli %12, %12 : i16
    %16 = arith.addi %15, %14 : i16
    %17 = arith.addi %10, %16 : i16
    %18 = arith.addi %13, %c-7_i16 : i16
    %19 = arith.addi %12, %18 : i16
    %20 = tensor.extract %input1[%c7] : tensor<8xi16>
    %21 = arith.muli %19, %19 : i16
    %22 = arith.addi %21, %20 : i16
    %23 = arith.addi %17, %22 : i16
    secret.yield %23 : i16
  } -> !secret.secret<i16>
  return %0 : !secret.secret<i16>
}
