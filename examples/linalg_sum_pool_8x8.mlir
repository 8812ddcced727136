// 2x2 sum pooling with stride 2 of a secret 8x8 image (linalg.pooling_nchw_sum, batch 1,
// one channel).  The window is shift-invariant: (1 + rho)(1 + rho^8), 2 rotations, with the
// 4x4 result left strided in the input grid (element (i, j) at slot 16i + 2j).
func.func @sum_pool(%img: !secret.secret<tensor<1x1x8x8xi16>>) -> !secret.secret<tensor<1x1x4x4xi16>> {
  %window = tensor.empty() : tensor<2x2xi16>
  %zero = arith.constant dense<0> : tensor<1x1x4x4xi16>
  %0 = secret.generic(%img: !secret.secret<tensor<1x1x8x8xi16>>) {
  ^body(%in: tensor<1x1x8x8xi16>):
    %1 = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %window : tensor<1x1x8x8xi16>, tensor<2x2xi16>) outs(%zero : tensor<1x1x4x4xi16>) -> tensor<1x1x4x4xi16>
    secret.yield %1 : tensor<1x1x4x4xi16>
  } -> !secret.secret<tensor<1x1x4x4xi16>>
  return %0 : !secret.secret<tensor<1x1x4x4xi16>>
}
