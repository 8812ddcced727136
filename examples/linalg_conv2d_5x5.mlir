// A 5x5 secret image correlated with a 3x3 plaintext filter (linalg.conv_2d, no padding).
// The 3x3 result keeps the input grid (element (i, j) at slot 5i + j, a strided layout the
// report and the printed attributes give): a row pass and a column pass, 4 rotations
// (HEIR's conv2d.mlir: 13).
func.func @conv2d(%img: !secret.secret<tensor<5x5xi16>>) -> !secret.secret<tensor<3x3xi16>> {
  %filter = arith.constant dense<[[1, 2, 1], [2, 4, 3], [1, 2, 5]]> : tensor<3x3xi16>
  %zero = arith.constant dense<0> : tensor<3x3xi16>
  %0 = secret.generic(%img: !secret.secret<tensor<5x5xi16>>) {
  ^body(%in: tensor<5x5xi16>):
    %1 = linalg.conv_2d ins(%in, %filter : tensor<5x5xi16>, tensor<3x3xi16>) outs(%zero : tensor<3x3xi16>) -> tensor<3x3xi16>
    secret.yield %1 : tensor<3x3xi16>
  } -> !secret.secret<tensor<3x3xi16>>
  return %0 : !secret.secret<tensor<3x3xi16>>
}
