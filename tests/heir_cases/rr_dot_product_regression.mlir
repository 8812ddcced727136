// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @test_dot_product_regression
// heir-rotations: -
// m = a*b; the sum of m's slots 0..3 (of 8) at slot 0, written with rotations by 1, 2, 3:
// a partial reduction. HEIR only checks that it does not crash. Two log steps suffice:
// s = m + rot1(m), then s + rot2(s).
func.func @dot_partial(%arg0: !secret.secret<tensor<8xi16>>, %arg1: !secret.secret<tensor<8xi16>>) -> !secret.secret<i16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %0 = secret.generic ins(%arg0, %arg1 : !secret.secret<tensor<8xi16>>, !secret.secret<tensor<8xi16>>) {
  ^bb0(%a: tensor<8xi16>, %b: tensor<8xi16>):
    %m = arith.muli %a, %b : tensor<8xi16>
    %r1 = tensor_ext.rotate %m, %c1 : tensor<8xi16>, index
    %s1 = arith.addi %r1, %m : tensor<8xi16>
    %r2 = tensor_ext.rotate %m, %c2 : tensor<8xi16>, index
    %s2 = arith.addi %r2, %s1 : tensor<8xi16>
    %r3 = tensor_ext.rotate %m, %c3 : tensor<8xi16>, index
    %s3 = arith.addi %r3, %s2 : tensor<8xi16>
    %x = tensor.extract %s3[%c0] : tensor<8xi16>
    secret.yield %x : i16
  } -> !secret.secret<i16>
  return %0 : !secret.secret<i16>
}
