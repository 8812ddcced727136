func.func @conv(%x: tensor<2x1x4x4xi16>) -> tensor<2x1x2x2xi16> {
  %f = arith.constant dense<1> : tensor<1x1x3x3xi16>
  %z = arith.constant dense<0> : tensor<2x1x2x2xi16>
  %y = linalg.conv_2d_nchw_fchw ins(%x, %f : tensor<2x1x4x4xi16>, tensor<1x1x3x3xi16>) outs(%z : tensor<2x1x2x2xi16>) -> tensor<2x1x2x2xi16>
  return %y : tensor<2x1x2x2xi16>
}
