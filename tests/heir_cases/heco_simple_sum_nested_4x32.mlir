// heir: tests/Transforms/heco_simd_vectorizer/simple_sum.mlir, @simple_sum_nested
// heir-rotations: 20
// The sum of all slots of four 32-slot tensors. HEIR reduces each tensor (5 rotations each,
// 20 in all, CHECK-COUNT-20); adding the four tensors first needs 5.
// Adapted: HEIR stacks the tensors with tensor.expand_shape / tensor.concat /
// tensor.extract_slice, which we do not parse; here each tensor has its own loop and the
// four partial sums are added in the same order.
func.func @sum_nested(%p: tensor<32xi16>, %q: tensor<32xi16>, %r: tensor<32xi16>, %s: tensor<32xi16>) -> i16 {
  %zero = arith.constant 0 : i16
  %sp = affine.for %k = 0 to 32 iter_args(%acc = %zero) -> (i16) {
    %e = tensor.extract %p[%k] : tensor<32xi16>
    %n = arith.addi %e, %acc : i16
    affine.yield %n : i16
  }
  %sq = affine.for %k = 0 to 32 iter_args(%acc = %zero) -> (i16) {
    %e = tensor.extract %q[%k] : tensor<32xi16>
    %n = arith.addi %e, %acc : i16
    affine.yield %n : i16
  }
  %sr = affine.for %k = 0 to 32 iter_args(%acc = %zero) -> (i16) {
    %e = tensor.extract %r[%k] : tensor<32xi16>
    %n = arith.addi %e, %acc : i16
    affine.yield %n : i16
  }
  %ss = affine.for %k = 0 to 32 iter_args(%acc = %zero) -> (i16) {
    %e = tensor.extract %s[%k] : tensor<32xi16>
    %n = arith.addi %e, %acc : i16
    affine.yield %n : i16
  }
  %t0 = arith.addi %sp, %zero : i16
  %t1 = arith.addi %sq, %t0 : i16
  %t2 = arith.addi %sr, %t1 : i16
  %t3 = arith.addi %ss, %t2 : i16
  return %t3 : i16
}
