// A 16x16 plaintext matrix times a secret vector, as one linalg.matvec (issue 14).
// The matrix is an arith.constant: its 16 diagonals stay plaintext, and the optimizer
// realizes the map by baby-step/giant-step (HEIR's Halevi-Shoup kernel needs 7 rotations).
func.func @matvec(%x: !secret.secret<tensor<16xi16>>) -> !secret.secret<tensor<16xi16>> {
  %w = arith.constant dense<[[-2, 2, 1, -1, -3, 1, -1, 3, -1, 1, -2, 0, -3, 2, -3, 2], [2, 0, 2, 1, 3, 2, 3, -3, -3, 1, 2, 2, 2, -1, 2, 0], [-2, -2, 2, 1, 3, 3, 2, -1, 0, 0, -2, 3, 3, 0, -2, -1], [0, 1, 3, -3, -3, -2, -3, 3, -1, -2, -3, -3, 3, 3, -3, 2], [2, 3, 3, 2, 3, 3, -2, -1, 1, 2, 0, -2, -3, 2, 0, 2], [-1, -2, 2, -2, 3, -2, -3, 2, -3, 1, 2, -2, -3, 1, 2, 1], [2, 1, -1, 3, 1, 2, -3, 0, 2, -3, 1, -2, -1, -3, 3, 2], [3, 2, -3, -2, -1, 3, 3, -1, 2, 0, 2, 1, 3, 3, 0, 3], [-3, -2, -3, 3, 2, -2, 0, 2, 1, 1, -2, -2, -1, -3, 2, 3], [-1, -3, 3, -2, 3, 3, -3, 1, 3, 0, 3, 0, -1, 1, -2, 0], [0, -3, 0, -2, 2, -1, -2, 0, -2, -1, -2, 2, -2, 2, 3, 2], [3, 0, -2, -1, -2, -3, -1, -1, -2, 2, -1, -1, -1, -1, -2, -2], [-2, 1, -3, 0, -2, -3, 0, -2, 0, -3, 0, -2, 3, -2, -1, -3], [-1, 3, -2, 1, -3, -3, -1, 0, -1, -1, 1, -2, 2, -1, -1, 0], [-3, -3, 3, 3, -3, 0, 2, -3, 0, 1, 0, 3, 1, -3, -2, 1], [-2, 2, 0, 0, 1, -3, -3, 2, 1, -1, 0, -1, -1, 2, 3, -3]]> : tensor<16x16xi16>
  %zero = arith.constant dense<0> : tensor<16xi16>
  %0 = secret.generic(%x: !secret.secret<tensor<16xi16>>) {
  ^body(%v: tensor<16xi16>):
    %1 = linalg.matvec ins(%w, %v : tensor<16x16xi16>, tensor<16xi16>) outs(%zero : tensor<16xi16>) -> tensor<16xi16>
    secret.yield %1 : tensor<16xi16>
  } -> !secret.secret<tensor<16xi16>>
  return %0 : !secret.secret<tensor<16xi16>>
}
