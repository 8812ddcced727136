// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @rotate_not_applied_because_rotation_missing
// heir-rotations: 3
// v + rot1(v) + rot2(v) + rot4(v) at slot 0 of a 4-slot vector (rot4 = identity), i.e.
// 2*v0 + v1 + v2: not a full reduction. HEIR keeps its 3 rotations.
func.func @rotation_missing(%arg0: !secret.secret<tensor<4xi16>>) -> !secret.secret<i16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = secret.generic ins(%arg0 : !secret.secret<tensor<4xi16>>) {
  ^bb0(%v: tensor<4xi16>):
    %a = tensor_ext.rotate %v, %c1 : tensor<4xi16>, index
    %b = arith.addi %a, %v : tensor<4xi16>
    %c = tensor_ext.rotate %a, %c1 : tensor<4xi16>, index
    %d = arith.addi %b, %c : tensor<4xi16>
    %e = tensor_ext.rotate %c, %c2 : tensor<4xi16>, index
    %f = arith.addi %d, %e : tensor<4xi16>
    %s = tensor.extract %f[%c0] : tensor<4xi16>
    secret.yield %s : i16
  } -> !secret.secret<i16>
  return %0 : !secret.secret<i16>
}
