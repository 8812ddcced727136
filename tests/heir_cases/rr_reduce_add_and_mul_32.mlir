// heir: tests/Dialect/TensorExt/Transforms/rotate_and_reduce.mlir, @reduce_add_and_mul
// heir-rotations: 9
// The sum plus the product of all 32 slots of one vector, each written as the 17-rotation
// linear chain of @sum_of_linear_rotates (with addi, then with muli). HEIR: 9 rotations (the
// first one shared); issue 3: <= 9, i.e. 5 + 5 minus sharing.
// Adapted: the fourteen repeated steps of each chain are an affine.for with iter_args.
func.func @add_and_mul(%v: tensor<32xi16>) -> i16 {
  %c1 = arith.constant 1 : index
  %c29 = arith.constant 29 : index
  %c30 = arith.constant 30 : index
  %c31 = arith.constant 31 : index
  %r1 = tensor_ext.rotate %v, %c1 : tensor<32xi16>, index
  %r31 = tensor_ext.rotate %v, %c31 : tensor<32xi16>, index
  // the sum
  %pair = arith.addi %r1, %v : tensor<32xi16>
  %r29 = tensor_ext.rotate %pair, %c29 : tensor<32xi16>, index
  %t = arith.addi %r31, %r29 : tensor<32xi16>
  %start = arith.addi %t, %v : tensor<32xi16>
  %sum = affine.for %k = 0 to 14 iter_args(%a = %start) -> (tensor<32xi16>) {
    %rot = tensor_ext.rotate %a, %c30 : tensor<32xi16>, index
    %u = arith.addi %r31, %rot : tensor<32xi16>
    %w = arith.addi %u, %v : tensor<32xi16>
    affine.yield %w : tensor<32xi16>
  }
  %s = tensor.extract %sum[%c31] : tensor<32xi16>
  // the product
  %ppair = arith.muli %r1, %v : tensor<32xi16>
  %p29 = tensor_ext.rotate %ppair, %c29 : tensor<32xi16>, index
  %pt = arith.muli %r31, %p29 : tensor<32xi16>
  %pstart = arith.muli %pt, %v : tensor<32xi16>
  %prod = affine.for %k = 0 to 14 iter_args(%a = %pstart) -> (tensor<32xi16>) {
    %rot = tensor_ext.rotate %a, %c30 : tensor<32xi16>, index
    %u = arith.muli %r31, %rot : tensor<32xi16>
    %w = arith.muli %u, %v : tensor<32xi16>
    affine.yield %w : tensor<32xi16>
  }
  %p = tensor.extract %prod[%c31] : tensor<32xi16>
  %out = arith.addi %s, %p : i16
  return %out : i16
}
