// heir: tests/Dialect/TensorExt/Transforms/insert_rotate.mlir, @test_insert_rotation_for_add
// heir-rotations: 2
// v[11] + v[15] + v[4]: HEIR aligns the three slots at slot 4 (rotations by 7 and 11, then
// one extract of slot 4, which a lowering pays as a rotation too).
func.func @three_slots(%v: tensor<16xi32>) -> i32 {
  %c4 = arith.constant 4 : index
  %c11 = arith.constant 11 : index
  %c15 = arith.constant 15 : index
  %a = tensor.extract %v[%c11] : tensor<16xi32>
  %b = tensor.extract %v[%c15] : tensor<16xi32>
  %ab = arith.addi %a, %b : i32
  %c = tensor.extract %v[%c4] : tensor<16xi32>
  %s = arith.addi %ab, %c : i32
  return %s : i32
}
