// fuzz seed 10162: analysis_unsound: depth_floor of result 0: 7 > the depth 6 of text_4006659686; depth_floor of result 1: 6 > the depth 5 of text_4006659686; depth_floor of result 0: 7 > the depth 6 of text_4006659686; depth_floor of re
// scheme: bgv
// rules: ring,slots
func.func @text_4006659686(%s_x: !secret.secret<tensor<8xi32>>, %s_y: !secret.secret<tensor<8xi32>>, %w: tensor<8xi32>) -> !secret.secret<i32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = secret.generic(%s_x: !secret.secret<tensor<8xi32>>, %s_y: !secret.secret<tensor<8xi32>>, %w: tensor<8xi32>) {
  ^body(%input0: tensor<8xi32>, %input1: tensor<8xi32>, %input2: tensor<8xi32>):
    %1 = tensor.extract %input1[%c0] : tensor<8xi32>
    %2 = tensor.extract %input2[%c1] : tensor<8xi32>
    %3 = arith.muli %2, %1 : i32
    secret.yield %3 : i32
  } -> !secret.secret<i32>
  return %0 : !secret.secret<i32>
}
