// heir: the not-supported side of collapse_insertion_chains (one source slot inserted
// twice, one destination slot written twice).
// heir-rotations: -
// dst = [src[1], src[1], out[2], src[2]] after slot 0 is written twice (first src[3], then
// src[1]). Only the last write to a slot counts.
func.func @chain_repeated(%src: tensor<4xi32>, %out: tensor<4xi32>) -> tensor<4xi32> {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %i3 = arith.constant 3 : index
  %a = tensor.extract %src[%i3] : tensor<4xi32>
  %t0 = tensor.insert %a into %out[%i0] : tensor<4xi32>
  %b = tensor.extract %src[%i1] : tensor<4xi32>
  %t1 = tensor.insert %b into %t0[%i1] : tensor<4xi32>
  %t2 = tensor.insert %b into %t1[%i0] : tensor<4xi32>
  %c = tensor.extract %src[%i2] : tensor<4xi32>
  %t3 = tensor.insert %c into %t2[%i3] : tensor<4xi32>
  return %t3 : tensor<4xi32>
}
