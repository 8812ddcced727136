// heir: issue 3 item 1 (partial reductions over a contiguous subset of slots); a variant of
// rotate_and_reduce.mlir @simple_sum.
// heir-rotations: -
// The sum of slots 0..7 of a 16-slot vector, at slot 0: (1 + r)(1 + r^2)(1 + r^4) applied
// to v, three rotations (slot 0 never sees slots 8..15, so no mask is needed).
func.func @first_half(%v: tensor<16xi16>) -> i16 {
  %init = arith.constant 0 : i16
  %r = affine.for %k = 0 to 8 iter_args(%acc = %init) -> (i16) {
    %e = tensor.extract %v[%k] : tensor<16xi16>
    %n = arith.addi %acc, %e : i16
    affine.yield %n : i16
  }
  return %r : i16
}
