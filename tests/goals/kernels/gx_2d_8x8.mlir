// Sobel gx on a 2-D tensor<8x8xi16>, each index wrapping in its own dimension (remui on the
// row and on the column): at the first and last column the read comes from the same row's
// other end, so those slots read at another flat offset.
func.func @gx_2d(%img: tensor<8x8xi16>) -> tensor<8x8xi16> {
  %c8 = arith.constant 8 : index
  %w = arith.constant dense<[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]> : tensor<3x3xi16>
  %init = tensor.empty() : tensor<8x8xi16>
  %0 = affine.for %x = 0 to 8 iter_args(%ax = %init) -> (tensor<8x8xi16>) {
    %1 = affine.for %y = 0 to 8 iter_args(%ay = %ax) -> (tensor<8x8xi16>) {
      %zero = arith.constant 0 : i16
      %2 = affine.for %i = 0 to 3 iter_args(%si = %zero) -> (i16) {
        %3 = affine.for %j = 0 to 3 iter_args(%sj = %si) -> (i16) {
          %r0 = arith.addi %x, %i : index
          %r1 = arith.addi %r0, %c8 : index
          %c1 = arith.constant 1 : index
          %r2 = arith.subi %r1, %c1 : index
          %r = arith.remui %r2, %c8 : index
          %q0 = arith.addi %y, %j : index
          %q1 = arith.addi %q0, %c8 : index
          %q2 = arith.subi %q1, %c1 : index
          %q = arith.remui %q2, %c8 : index
          %v = tensor.extract %img[%r, %q] : tensor<8x8xi16>
          %k = tensor.extract %w[%i, %j] : tensor<3x3xi16>
          %p = arith.muli %v, %k : i16
          %s = arith.addi %sj, %p : i16
          affine.yield %s : i16
        }
        affine.yield %3 : i16
      }
      %4 = tensor.insert %2 into %ay[%x, %y] : tensor<8x8xi16>
      affine.yield %4 : tensor<8x8xi16>
    }
    affine.yield %1 : tensor<8x8xi16>
  }
  return %0 : tensor<8x8xi16>
}
