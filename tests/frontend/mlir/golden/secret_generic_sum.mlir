func.func @secret_sum(%arg0: !secret.secret<tensor<8xi16>>) -> !secret.secret<i16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %0 = secret.generic(%arg0: !secret.secret<tensor<8xi16>>) {
  ^body(%input0: tensor<8xi16>):
    %c0_i16 = arith.constant 0 : i16
    %1 = tensor.extract %input0[%c0] : tensor<8xi16>
    %2 = arith.addi %c0_i16, %1 : i16
    %3 = tensor.extract %input0[%c1] : tensor<8xi16>
    %4 = arith.addi %2, %3 : i16
    %5 = tensor.extract %input0[%c2] : tensor<8xi16>
    %6 = arith.addi %4, %5 : i16
    %7 = tensor.extract %input0[%c3] : tensor<8xi16>
    %8 = arith.addi %6, %7 : i16
    %9 = tensor.extract %input0[%c4] : tensor<8xi16>
    %10 = arith.addi %8, %9 : i16
    %11 = tensor.extract %input0[%c5] : tensor<8xi16>
    %12 = arith.addi %10, %11 : i16
    %13 = tensor.extract %input0[%c6] : tensor<8xi16>
    %14 = arith.addi %12, %13 : i16
    %15 = tensor.extract %input0[%c7] : tensor<8xi16>
    %16 = arith.addi %14, %15 : i16
    secret.yield %16 : i16
  } -> !secret.secret<i16>
  return %0 : !secret.secret<i16>
}
