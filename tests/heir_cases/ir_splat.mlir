// heir: tests/Dialect/TensorExt/Transforms/insert_rotate.mlir, @test_splat
// heir-rotations: -
// v[11] * w + v[12] * w' inserted into slot 1 of v, where w and w' are read from a plaintext
// 2x2 constant (HEIR's index constant named %c0 holds 1, so both read [1, 1] = 5). HEIR
// checks only that no tensor_ext.splat is left.
func.func @splat_weights(%v: tensor<16xi32>) -> tensor<16xi32> {
  %one = arith.constant 1 : index
  %c11 = arith.constant 11 : index
  %c12 = arith.constant 12 : index
  %w = arith.constant dense<[[2, 3], [4, 5]]> : tensor<2x2xi32>
  %a = tensor.extract %v[%c11] : tensor<16xi32>
  %wa = tensor.extract %w[%one, %one] : tensor<2x2xi32>
  %pa = arith.muli %a, %wa : i32
  %b = tensor.extract %v[%c12] : tensor<16xi32>
  %wb = tensor.extract %w[%one, %one] : tensor<2x2xi32>
  %pb = arith.muli %b, %wb : i32
  %s = arith.addi %pa, %pb : i32
  %r = tensor.insert %s into %v[%one] : tensor<16xi32>
  return %r : tensor<16xi32>
}
