// heir: issue 3 item 2 (a chain gathering from two sources); the not-supported side of
// collapse_insertion_chains (HEIR collapses only single-source full chains).
// heir-rotations: -
// Even slots come from %a shifted by 1, odd slots from %b shifted by 3: two masked
// rotations and an add. Must at least stay correct.
func.func @chain_two_sources(%a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<8xi32> {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %e = tensor.empty() : tensor<8xi32>
  %0 = affine.for %k = 0 to 4 iter_args(%acc = %e) -> (tensor<8xi32>) {
    %c2 = arith.constant 2 : index
    %even = arith.muli %k, %c2 : index
    %odd = arith.addi %even, %c1 : index
    %sa0 = arith.addi %even, %c1 : index
    %sa = arith.remui %sa0, %c8 : index
    %sb0 = arith.addi %odd, %c3 : index
    %sb = arith.remui %sb0, %c8 : index
    %va = tensor.extract %a[%sa] : tensor<8xi32>
    %vb = tensor.extract %b[%sb] : tensor<8xi32>
    %r0 = tensor.insert %va into %acc[%even] : tensor<8xi32>
    %r1 = tensor.insert %vb into %r0[%odd] : tensor<8xi32>
    affine.yield %r1 : tensor<8xi32>
  }
  return %0 : tensor<8xi32>
}
