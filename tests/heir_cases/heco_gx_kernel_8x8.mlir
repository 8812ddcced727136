// heir: tests/Transforms/heco_simd_vectorizer/gx_kernel_8x8.mlir (and gx_kernel_16x16.mlir), at 8x8
// heir-rotations: 6
// A 3x3 weighted stencil over a 8x8 image (tensor<64xi16>, wrap-around indexing) with
// HEIR's weight matrix [[1, -1, 2], [-2, 1, -1], [0, 0, 0]] (row i+1, column j+1 weighs
// pixel (x+i, y+j)). Issue 3: <= 4 rotations (HEIR: 6); two weighted row sums of the same
// rotations r^-1 v, v, r v plus one rotation by -8 give 3.
func.func @gx_kernel(%img: tensor<64xi16>) -> tensor<64xi16> {
  %cN = arith.constant 64 : index
  %cW = arith.constant 8 : index
  %one = arith.constant 1 : index
  %zero = arith.constant 0 : i16
  %w1 = arith.constant 1 : i16
  %w2 = arith.constant 2 : i16
  %wm1 = arith.constant -1 : i16
  %wm2 = arith.constant -2 : i16
  %weights = tensor.from_elements %w1, %wm1, %w2, %wm2, %w1, %wm1, %zero, %zero, %zero : tensor<3x3xi16>
  %out = affine.for %x = 0 to 8 iter_args(%rows = %img) -> (tensor<64xi16>) {
    %row = affine.for %y = 0 to 8 iter_args(%cur = %rows) -> (tensor<64xi16>) {
      %acc = affine.for %dy = -1 to 2 iter_args(%sy = %zero) -> (i16) {
        %inner = affine.for %dx = -1 to 2 iter_args(%sx = %sy) -> (i16) {
          %r = arith.addi %x, %dx : index
          %rw = arith.muli %r, %cW : index
          %c = arith.addi %y, %dy : index
          %flat = arith.addi %rw, %c : index
          %wrapped = arith.remui %flat, %cN : index
          %p = tensor.extract %img[%wrapped] : tensor<64xi16>
          %wi = arith.addi %dx, %one : index
          %wj = arith.addi %dy, %one : index
          %w = tensor.extract %weights[%wi, %wj] : tensor<3x3xi16>
          %pw = arith.muli %p, %w : i16
          %s = arith.addi %sx, %pw : i16
          affine.yield %s : i16
        }
        affine.yield %inner : i16
      }
      %xw = arith.muli %cW, %x : index
      %at = arith.addi %xw, %y : index
      %dst = arith.remui %at, %cN : index
      %upd = tensor.insert %acc into %cur[%dst] : tensor<64xi16>
      affine.yield %upd : tensor<64xi16>
    }
    affine.yield %row : tensor<64xi16>
  }
  return %out : tensor<64xi16>
}
