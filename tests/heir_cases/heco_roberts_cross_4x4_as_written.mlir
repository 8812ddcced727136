// heir: tests/Transforms/heco_simd_vectorizer/roberts_cross_4x4.mlir (ported by HEIR from HECO's
// robertscross_4x4), at 4x4, with HEIR's indexing as written
// heir-rotations: 2
// HEIR's kernel reads img[x-1][y-1] for its third pixel where the comment says img[x-1][y]
// (it adds -1 to y), so it computes (img[x-1][y-1] - img[x][y])^2 + (img[x-1][y-1] - img[x][y-1])^2:
// 2 rotations (by -4-1 and -1), 2 subtractions, 2 multiplications (HEIR's CHECK lines).
func.func @roberts_cross(%img: tensor<16xi16>) -> tensor<16xi16> {
  %cN = arith.constant 16 : index
  %cW = arith.constant 4 : index
  %m1 = arith.constant -1 : index
  %d3 = arith.constant -1 : index
  %res = affine.for %x = 0 to 4 iter_args(%rows = %img) -> (tensor<16xi16>) {
    %row = affine.for %y = 0 to 4 iter_args(%cur = %rows) -> (tensor<16xi16>) {
      %xm = arith.addi %x, %m1 : index
      %xmw = arith.muli %xm, %cW : index
      %ym = arith.addi %y, %m1 : index
      %xw = arith.muli %x, %cW : index
      // img[x-1][y-1]
      %f0 = arith.addi %xmw, %ym : index
      %i0 = arith.remui %f0, %cN : index
      %p0 = tensor.extract %img[%i0] : tensor<16xi16>
      // img[x][y]
      %f1 = arith.addi %xw, %y : index
      %i1 = arith.remui %f1, %cN : index
      %p1 = tensor.extract %img[%i1] : tensor<16xi16>
      %d0 = arith.subi %p0, %p1 : i16
      // img[x-1][y + d3]
      %y3 = arith.addi %y, %d3 : index
      %f2 = arith.addi %xmw, %y3 : index
      %i2 = arith.remui %f2, %cN : index
      %p2 = tensor.extract %img[%i2] : tensor<16xi16>
      // img[x][y-1]
      %f3 = arith.addi %xw, %ym : index
      %i3 = arith.remui %f3, %cN : index
      %p3 = tensor.extract %img[%i3] : tensor<16xi16>
      %d1 = arith.subi %p2, %p3 : i16
      %s0 = arith.muli %d0, %d0 : i16
      %s1 = arith.muli %d1, %d1 : i16
      %sum = arith.addi %s0, %s1 : i16
      %upd = tensor.insert %sum into %cur[%i1] : tensor<16xi16>
      affine.yield %upd : tensor<16xi16>
    }
    affine.yield %row : tensor<16xi16>
  }
  return %res : tensor<16xi16>
}
