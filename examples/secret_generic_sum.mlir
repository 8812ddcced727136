// A HEIR-style secret program: the secret argument enters a secret.generic whose body
// sums the tensor's entries with an affine.for loop and yields the scalar.
func.func @secret_sum(%arg0: !secret.secret<tensor<8xi16>>) -> !secret.secret<i16> {
  %c0_i16 = arith.constant 0 : i16
  %0 = secret.generic ins(%arg0 : !secret.secret<tensor<8xi16>>) {
  ^bb0(%input0: tensor<8xi16>):
    %1 = affine.for %i = 0 to 8 iter_args(%acc = %c0_i16) -> (i16) {
      %e = tensor.extract %input0[%i] : tensor<8xi16>
      %s = arith.addi %acc, %e : i16
      affine.yield %s : i16
    }
    secret.yield %1 : i16
  } -> !secret.secret<i16>
  return %0 : !secret.secret<i16>
}
