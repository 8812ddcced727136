func.func @mv(%w: tensor<512x512xi16>, %x: tensor<512xi16>) -> tensor<512xi16> {
  %z = arith.constant dense<0> : tensor<512xi16>
  %y = linalg.matvec ins(%w, %x : tensor<512x512xi16>, tensor<512xi16>) outs(%z : tensor<512xi16>) -> tensor<512xi16>
  return %y : tensor<512xi16>
}
