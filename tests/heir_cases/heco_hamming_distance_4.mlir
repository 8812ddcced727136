// heir: tests/Transforms/heco_simd_vectorizer/hamming_distance.mlir, @hamming
// heir-rotations: 2
// sum_i (a[i] - b[i]) * (a[i] - b[i]) over 4 slots (the difference computed twice, as in
// HEIR's input): one subtraction, one multiplication, two rotate-and-add steps, slot 0.
func.func @hamming(%a: tensor<4xi16>, %b: tensor<4xi16>) -> i16 {
  %zero = arith.constant 0 : i16
  %d = affine.for %i = 0 to 4 iter_args(%acc = %zero) -> i16 {
    %x = tensor.extract %a[%i] : tensor<4xi16>
    %y = tensor.extract %b[%i] : tensor<4xi16>
    %u = arith.subi %x, %y : i16
    %x2 = tensor.extract %a[%i] : tensor<4xi16>
    %y2 = tensor.extract %b[%i] : tensor<4xi16>
    %v = arith.subi %x2, %y2 : i16
    %sq = arith.muli %u, %v : i16
    %n = arith.addi %acc, %sq : i16
    affine.yield %n : i16
  }
  return %d : i16
}
