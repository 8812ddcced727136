// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @sum_of_linear_rotates
// heir-rotations: 5
// The sum of all 32 slots of %v, as HEIR's earlier passes leave it: 17 rotations in a linear
// chain (acc <- rot(acc, 30) + rot(v, 31) + v, fourteen times), read at slot 31. Issue 3:
// 5 rotations.
// Adapted: the fourteen repeated steps are an affine.for with iter_args (unrolled on import).
func.func @linear_rotates(%arg0: !secret.secret<tensor<32xi16>>) -> !secret.secret<i16> {
  %c1 = arith.constant 1 : index
  %c29 = arith.constant 29 : index
  %c30 = arith.constant 30 : index
  %c31 = arith.constant 31 : index
  %0 = secret.generic ins(%arg0 : !secret.secret<tensor<32xi16>>) {
  ^bb0(%v: tensor<32xi16>):
    %r1 = tensor_ext.rotate %v, %c1 : tensor<32xi16>, index
    %pair = arith.addi %r1, %v : tensor<32xi16>
    %r31 = tensor_ext.rotate %v, %c31 : tensor<32xi16>, index
    %r29 = tensor_ext.rotate %pair, %c29 : tensor<32xi16>, index
    %t = arith.addi %r31, %r29 : tensor<32xi16>
    %start = arith.addi %t, %v : tensor<32xi16>
    %acc = affine.for %k = 0 to 14 iter_args(%a = %start) -> (tensor<32xi16>) {
      %rot = tensor_ext.rotate %a, %c30 : tensor<32xi16>, index
      %u = arith.addi %r31, %rot : tensor<32xi16>
      %w = arith.addi %u, %v : tensor<32xi16>
      affine.yield %w : tensor<32xi16>
    }
    %s = tensor.extract %acc[%c31] : tensor<32xi16>
    secret.yield %s : i16
  } -> !secret.secret<i16>
  return %0 : !secret.secret<i16>
}
