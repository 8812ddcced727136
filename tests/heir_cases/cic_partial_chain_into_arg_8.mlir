// heir: issue google/heir#512 (partial insertion chain into a live tensor); chain shape from
// collapse_insertion_chains.mlir.
// heir-rotations: -
// Slots 2..5 of %out are overwritten with src[0..3] (offset -2 = 6); slots 0, 1, 6, 7 keep
// %out. One rotation of %src, a mask on it and the complementary mask on %out.
func.func @chain_partial_into(%src: tensor<8xi32>, %out: tensor<8xi32>) -> tensor<8xi32> {
  %0 = affine.for %k = 0 to 4 iter_args(%acc = %out) -> (tensor<8xi32>) {
    %c2 = arith.constant 2 : index
    %dst = arith.addi %k, %c2 : index
    %v = tensor.extract %src[%k] : tensor<8xi32>
    %r = tensor.insert %v into %acc[%dst] : tensor<8xi32>
    affine.yield %r : tensor<8xi32>
  }
  return %0 : tensor<8xi32>
}
