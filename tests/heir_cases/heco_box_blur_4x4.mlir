// heir: tests/Transforms/heco_simd_vectorizer/box_blur_4x4.mlir (and box_blur_16x16.mlir), at 4x4
// heir-rotations: 7
// 3x3 box blur of a 4x4 image flattened row-major into tensor<16xi16>, with wrap-around
// (remui) indexing. The stencil is a row sum of a column sum:
// (r^-1 + 1 + r)(r^-4 + 1 + r^4), 4 rotations; HEIR's vectorizer needs 7.
func.func @box_blur(%img: tensor<16xi16>) -> tensor<16xi16> {
  %cN = arith.constant 16 : index
  %cW = arith.constant 4 : index
  %out = affine.for %x = 0 to 4 iter_args(%rows = %img) -> (tensor<16xi16>) {
    %row = affine.for %y = 0 to 4 iter_args(%cur = %rows) -> (tensor<16xi16>) {
      %zero = arith.constant 0 : i16
      %acc = affine.for %dy = -1 to 2 iter_args(%sy = %zero) -> (i16) {
        %inner = affine.for %dx = -1 to 2 iter_args(%sx = %sy) -> (i16) {
          %r = arith.addi %x, %dx : index
          %rw = arith.muli %r, %cW : index
          %c = arith.addi %y, %dy : index
          %flat = arith.addi %rw, %c : index
          %wrapped = arith.remui %flat, %cN : index
          %p = tensor.extract %img[%wrapped] : tensor<16xi16>
          %s = arith.addi %sx, %p : i16
          affine.yield %s : i16
        }
        affine.yield %inner : i16
      }
      %xw = arith.muli %cW, %x : index
      %at = arith.addi %xw, %y : index
      %dst = arith.remui %at, %cN : index
      %upd = tensor.insert %acc into %cur[%dst] : tensor<16xi16>
      affine.yield %upd : tensor<16xi16>
    }
    affine.yield %row : tensor<16xi16>
  }
  return %out : tensor<16xi16>
}
