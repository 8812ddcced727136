// A small two-layer network: matvec -> square activation -> matvec, plaintext weights.
// The activation is an element-wise linalg.generic; the depth, relinearization and
// modulus-switch placement come from the management ILPs.
#id = affine_map<(d0) -> (d0)>
func.func @net(%x: !secret.secret<tensor<8xi16>>) -> !secret.secret<tensor<8xi16>> {
  %w1 = arith.constant dense<[[1, -1, 2, 2, 1, -2, 0, -2], [-1, -2, 0, 0, 2, -1, 1, 0], [-2, 2, -1, -1, 0, 1, -1, 0], [-1, 1, 2, -2, 0, -2, 2, -2], [-2, 0, 1, -1, 0, -1, -2, 2], [-1, 0, -2, -1, 2, 1, 2, 2], [0, -2, 1, -1, 0, -1, -2, 0], [-2, -2, -2, -1, 2, 2, 0, 2]]> : tensor<8x8xi16>
  %w2 = arith.constant dense<[[1, -2, -1, -1, -2, 2, -1, 2], [2, -1, -2, 1, -2, 1, 1, 0], [0, -2, 2, 1, -2, 1, -2, 0], [-2, 1, 2, 2, -2, -1, -2, -2], [2, 1, -2, -2, 0, 2, 1, 1], [2, 0, -2, 1, 0, 2, 0, 1], [-2, -1, 1, 0, 0, -2, -2, 1], [-1, -1, 2, -2, 0, -1, -1, -1]]> : tensor<8x8xi16>
  %c0 = arith.constant 0 : i16
  %0 = secret.generic(%x: !secret.secret<tensor<8xi16>>) {
  ^body(%v: tensor<8xi16>):
    %empty = tensor.empty() : tensor<8xi16>
    %zero = linalg.fill ins(%c0 : i16) outs(%empty : tensor<8xi16>) -> tensor<8xi16>
    %h = linalg.matvec ins(%w1, %v : tensor<8x8xi16>, tensor<8xi16>) outs(%zero : tensor<8xi16>) -> tensor<8xi16>
    %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%h : tensor<8xi16>) outs(%empty : tensor<8xi16>) {
    ^bb0(%in: i16, %out: i16):
      %sq = arith.muli %in, %in : i16
      linalg.yield %sq : i16
    } -> tensor<8xi16>
    %y = linalg.matvec ins(%w2, %a : tensor<8x8xi16>, tensor<8xi16>) outs(%zero : tensor<8xi16>) -> tensor<8xi16>
    secret.yield %y : tensor<8xi16>
  } -> !secret.secret<tensor<8xi16>>
  return %0 : !secret.secret<tensor<8xi16>>
}
