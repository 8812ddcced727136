// heir: tests/Dialect/TensorExt/Transforms/collapse_insertion_chains.mlir, @test_collapse_insertion_chains
// heir-rotations: 1
// Every slot of %out is overwritten with a slot of %src shifted by the same offset
// (dst[i] = src[(i + 2) mod 4]), in scrambled order: the chain is one rotation by 2.
func.func @chain_full(%src: tensor<4xi32>, %out: tensor<4xi32>) -> tensor<4xi32> {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %i3 = arith.constant 3 : index
  %a = tensor.extract %src[%i3] : tensor<4xi32>
  %t0 = tensor.insert %a into %out[%i1] : tensor<4xi32>
  %b = tensor.extract %src[%i0] : tensor<4xi32>
  %t1 = tensor.insert %b into %t0[%i2] : tensor<4xi32>
  %c = tensor.extract %src[%i1] : tensor<4xi32>
  %t2 = tensor.insert %c into %t1[%i3] : tensor<4xi32>
  %d = tensor.extract %src[%i2] : tensor<4xi32>
  %t3 = tensor.insert %d into %t2[%i0] : tensor<4xi32>
  return %t3 : tensor<4xi32>
}
