// An extract/insert chain that moves every slot of %in by the same offset: it is
// tensor_ext.rotate %in, 5 (HEIR's collapse-insertion-chains pass, at size 16).
func.func @collapse_chain(%in: tensor<16xi16>, %out: tensor<16xi16>) -> tensor<16xi16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %c11 = arith.constant 11 : index
  %c12 = arith.constant 12 : index
  %c13 = arith.constant 13 : index
  %c14 = arith.constant 14 : index
  %c15 = arith.constant 15 : index
  %ex0 = tensor.extract %in[%c5] : tensor<16xi16>
  %in0 = tensor.insert %ex0 into %out[%c0] : tensor<16xi16>
  %ex1 = tensor.extract %in[%c6] : tensor<16xi16>
  %in1 = tensor.insert %ex1 into %in0[%c1] : tensor<16xi16>
  %ex2 = tensor.extract %in[%c7] : tensor<16xi16>
  %in2 = tensor.insert %ex2 into %in1[%c2] : tensor<16xi16>
  %ex3 = tensor.extract %in[%c8] : tensor<16xi16>
  %in3 = tensor.insert %ex3 into %in2[%c3] : tensor<16xi16>
  %ex4 = tensor.extract %in[%c9] : tensor<16xi16>
  %in4 = tensor.insert %ex4 into %in3[%c4] : tensor<16xi16>
  %ex5 = tensor.extract %in[%c10] : tensor<16xi16>
  %in5 = tensor.insert %ex5 into %in4[%c5] : tensor<16xi16>
  %ex6 = tensor.extract %in[%c11] : tensor<16xi16>
  %in6 = tensor.insert %ex6 into %in5[%c6] : tensor<16xi16>
  %ex7 = tensor.extract %in[%c12] : tensor<16xi16>
  %in7 = tensor.insert %ex7 into %in6[%c7] : tensor<16xi16>
  %ex8 = tensor.extract %in[%c13] : tensor<16xi16>
  %in8 = tensor.insert %ex8 into %in7[%c8] : tensor<16xi16>
  %ex9 = tensor.extract %in[%c14] : tensor<16xi16>
  %in9 = tensor.insert %ex9 into %in8[%c9] : tensor<16xi16>
  %ex10 = tensor.extract %in[%c15] : tensor<16xi16>
  %in10 = tensor.insert %ex10 into %in9[%c10] : tensor<16xi16>
  %ex11 = tensor.extract %in[%c0] : tensor<16xi16>
  %in11 = tensor.insert %ex11 into %in10[%c11] : tensor<16xi16>
  %ex12 = tensor.extract %in[%c1] : tensor<16xi16>
  %in12 = tensor.insert %ex12 into %in11[%c12] : tensor<16xi16>
  %ex13 = tensor.extract %in[%c2] : tensor<16xi16>
  %in13 = tensor.insert %ex13 into %in12[%c13] : tensor<16xi16>
  %ex14 = tensor.extract %in[%c3] : tensor<16xi16>
  %in14 = tensor.insert %ex14 into %in13[%c14] : tensor<16xi16>
  %ex15 = tensor.extract %in[%c4] : tensor<16xi16>
  %in15 = tensor.insert %ex15 into %in14[%c15] : tensor<16xi16>
  return %in15 : tensor<16xi16>
}
