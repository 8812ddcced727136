// fuzz seed 84: costlier: cost 65 -> 70 from a source within the noise budget (the extracted program needed one more rescale than the source)
// scheme: ckks
// rules: ring
func.func @fuzz_84(%x0: tensor<4xf32>, %x1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c1 = arith.constant 1 : index
  %cst = arith.constant dense<-1.000000e+00> : tensor<4xf32>
  %0 = arith.mulf %x1, %cst : tensor<4xf32>
  %1 = arith.mulf %x0, %cst : tensor<4xf32>
  %cst_1 = arith.constant dense<5.000000e+00> : tensor<4xf32>
  %2 = arith.mulf %x1, %cst_1 : tensor<4xf32>
  %3 = arith.subf %0, %2 : tensor<4xf32>
  %4 = arith.addf %3, %1 : tensor<4xf32>
  %5 = arith.subf %4, %x0 : tensor<4xf32>
  %cst_2 = arith.constant dense<2.000000e+00> : tensor<4xf32>
  %6 = arith.mulf %5, %cst_2 : tensor<4xf32>
  %7 = tensor_ext.rotate %1, %c1 : tensor<4xf32>, index
  return %6, %7 : tensor<4xf32>, tensor<4xf32>
}
