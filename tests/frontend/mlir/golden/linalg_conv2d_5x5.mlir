func.func @conv2d(%img: !secret.secret<tensor<25xi16>> {tensor_ext.layout = "{ [i0] -> [ct, slot] : (i0 = 0 and ct = 0 and slot = 0) or (i0 = 1 and ct = 0 and slot = 1) or (i0 = 2 and ct = 0 and slot = 2) or (i0 = 3 and ct = 0 and slot = 3) or (i0 = 4 and ct = 0 and slot = 4) or (i0 = 5 and ct = 0 and slot = 5) or (i0 = 6 and ct = 0 and slot = 6) or (i0 = 7 and ct = 0 and slot = 7) or (i0 = 8 and ct = 0 and slot = 8) or (i0 = 9 and ct = 0 and slot = 9) or (i0 = 10 and ct = 0 and slot = 10) or (i0 = 11 and ct = 0 and slot = 11) or (i0 = 12 and ct = 0 and slot = 12) or (i0 = 13 and ct = 0 and slot = 13) or (i0 = 14 and ct = 0 and slot = 14) or (i0 = 15 and ct = 0 and slot = 15) or (i0 = 16 and ct = 0 and slot = 16) or (i0 = 17 and ct = 0 and slot = 17) or (i0 = 18 and ct = 0 and slot = 18) or (i0 = 19 and ct = 0 and slot = 19) or (i0 = 20 and ct = 0 and slot = 20) or (i0 = 21 and ct = 0 and slot = 21) or (i0 = 22 and ct = 0 and slot = 22) or (i0 = 23 and ct = 0 and slot = 23) or (i0 = 24 and ct = 0 and slot = 24) }", eqsat.layout = "row-major", eqsat.shape = "5x5", eqsat.slots = 25 : i64}) -> (!secret.secret<tensor<25xi16>> {tensor_ext.layout = "{ [i0] -> [ct, slot] : (i0 = 0 and ct = 0 and slot = 0) or (i0 = 1 and ct = 0 and slot = 1) or (i0 = 2 and ct = 0 and slot = 2) or (i0 = 3 and ct = 0 and slot = 5) or (i0 = 4 and ct = 0 and slot = 6) or (i0 = 5 and ct = 0 and slot = 7) or (i0 = 6 and ct = 0 and slot = 10) or (i0 = 7 and ct = 0 and slot = 11) or (i0 = 8 and ct = 0 and slot = 12) }", eqsat.layout = "strided", eqsat.shape = "3x3", eqsat.slots = 25 : i64}) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  %0 = secret.generic(%img: !secret.secret<tensor<25xi16>>) {
  ^body(%input0: tensor<25xi16>):
    %1 = tensor_ext.rotate %input0, %c1 : tensor<25xi16>, index
    %2 = tensor_ext.rotate %input0, %c2 : tensor<25xi16>, index
    %cst = arith.constant dense<2> : tensor<25xi16>
    %3 = arith.muli %cst, %1 : tensor<25xi16>
    %4 = arith.addi %input0, %3 : tensor<25xi16>
    %5 = arith.addi %4, %2 : tensor<25xi16>
    %6 = arith.muli %cst, %input0 : tensor<25xi16>
    %cst_1 = arith.constant dense<4> : tensor<25xi16>
    %7 = arith.muli %cst_1, %1 : tensor<25xi16>
    %8 = arith.addi %6, %7 : tensor<25xi16>
    %cst_2 = arith.constant dense<3> : tensor<25xi16>
    %9 = arith.muli %cst_2, %2 : tensor<25xi16>
    %10 = arith.addi %8, %9 : tensor<25xi16>
    %11 = tensor_ext.rotate %10, %c5 : tensor<25xi16>, index
    %12 = arith.addi %5, %11 : tensor<25xi16>
    %cst_3 = arith.constant dense<5> : tensor<25xi16>
    %13 = arith.muli %cst_3, %2 : tensor<25xi16>
    %14 = arith.addi %4, %13 : tensor<25xi16>
    %15 = tensor_ext.rotate %14, %c10 : tensor<25xi16>, index
    %16 = arith.addi %12, %15 : tensor<25xi16>
    secret.yield %16 : tensor<25xi16>
  } -> !secret.secret<tensor<25xi16>>
  return %0 : !secret.secret<tensor<25xi16>>
}
