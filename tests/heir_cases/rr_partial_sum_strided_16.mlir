// heir: issue 3 item 1 (partial reductions over a strided subset of slots); a variant of
// rotate_and_reduce.mlir @simple_sum.
// heir-rotations: -
// The sum of the even slots 0, 2, ..., 14 of a 16-slot vector, at slot 0:
// (1 + r^2)(1 + r^4)(1 + r^8) applied to v, i.e. three rotations and no mask.
func.func @even_slots(%v: tensor<16xi16>) -> i16 {
  %init = arith.constant 0 : i16
  %c2 = arith.constant 2 : index
  %r = affine.for %k = 0 to 8 iter_args(%acc = %init) -> (i16) {
    %j = arith.muli %k, %c2 : index
    %e = tensor.extract %v[%j] : tensor<16xi16>
    %n = arith.addi %acc, %e : i16
    affine.yield %n : i16
  }
  return %r : i16
}
