// heir: issue google/heir#512 (collapse-insertion-chains on a partial chain); the chain
// shape follows collapse_insertion_chains.mlir.
// heir-rotations: -
// Slots 0..4 of a zero tensor receive src[3..7] (offset 3); slots 5..7 stay zero. A partial
// chain is one rotation and one plaintext mask multiplication.
// Adapted: the destination is an arith.constant dense zero tensor (plaintext).
func.func @chain_partial(%src: tensor<8xi32>) -> tensor<8xi32> {
  %zero = arith.constant dense<0> : tensor<8xi32>
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %i3 = arith.constant 3 : index
  %i4 = arith.constant 4 : index
  %i5 = arith.constant 5 : index
  %i6 = arith.constant 6 : index
  %i7 = arith.constant 7 : index
  %a = tensor.extract %src[%i5] : tensor<8xi32>
  %t0 = tensor.insert %a into %zero[%i2] : tensor<8xi32>
  %b = tensor.extract %src[%i3] : tensor<8xi32>
  %t1 = tensor.insert %b into %t0[%i0] : tensor<8xi32>
  %c = tensor.extract %src[%i7] : tensor<8xi32>
  %t2 = tensor.insert %c into %t1[%i4] : tensor<8xi32>
  %d = tensor.extract %src[%i4] : tensor<8xi32>
  %t3 = tensor.insert %d into %t2[%i1] : tensor<8xi32>
  %e = tensor.extract %src[%i6] : tensor<8xi32>
  %t4 = tensor.insert %e into %t3[%i3] : tensor<8xi32>
  return %t4 : tensor<8xi32>
}
