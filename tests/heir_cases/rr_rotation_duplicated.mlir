// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @rotate_not_applied_because_rotation_duplicated
// heir-rotations: 3
// v + rot1(v) + 2*rot2(v) + rot3(v), read at slot 1: rot2 is added twice.
func.func @rotation_duplicated(%arg0: !secret.secret<tensor<4xi16>>) -> !secret.secret<i16> {
  %c1 = arith.constant 1 : index
  %0 = secret.generic ins(%arg0 : !secret.secret<tensor<4xi16>>) {
  ^bb0(%v: tensor<4xi16>):
    %a = tensor_ext.rotate %v, %c1 : tensor<4xi16>, index
    %b = arith.addi %a, %v : tensor<4xi16>
    %c = tensor_ext.rotate %a, %c1 : tensor<4xi16>, index
    %d = arith.addi %b, %c : tensor<4xi16>
    %d2 = arith.addi %d, %c : tensor<4xi16>
    %e = tensor_ext.rotate %c, %c1 : tensor<4xi16>, index
    %f = arith.addi %d2, %e : tensor<4xi16>
    %s = tensor.extract %f[%c1] : tensor<4xi16>
    secret.yield %s : i16
  } -> !secret.secret<i16>
  return %0 : !secret.secret<i16>
}
