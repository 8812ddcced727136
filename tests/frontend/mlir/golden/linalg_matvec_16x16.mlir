func.func @matvec(%x: !secret.secret<tensor<16xi16>>) -> !secret.secret<tensor<16xi16>> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %0 = secret.generic(%x: !secret.secret<tensor<16xi16>>) {
  ^body(%input0: tensor<16xi16>):
    %1 = tensor_ext.rotate %input0, %c1 : tensor<16xi16>, index
    %2 = tensor_ext.rotate %input0, %c2 : tensor<16xi16>, index
    %3 = tensor_ext.rotate %input0, %c3 : tensor<16xi16>, index
    %cst = arith.constant dense<[-2, 0, 2, -3, 3, -2, -3, -1, 1, 0, -2, -1, 3, -1, -2, -3]> : tensor<16xi16>
    %4 = arith.muli %cst, %input0 : tensor<16xi16>
    %cst_1 = arith.constant dense<[2, 2, 1, -3, 3, -3, 0, 2, 1, 3, 2, -1, -2, -1, 1, -2]> : tensor<16xi16>
    %5 = arith.muli %cst_1, %1 : tensor<16xi16>
    %6 = arith.addi %4, %5 : tensor<16xi16>
    %cst_2 = arith.constant dense<[1, 1, 3, -2, -2, 2, 2, 0, -2, 0, -2, -1, -1, 0, -3, 2]> : tensor<16xi16>
    %7 = arith.muli %cst_2, %2 : tensor<16xi16>
    %8 = arith.addi %6, %7 : tensor<16xi16>
    %cst_3 = arith.constant dense<[-1, 3, 3, -3, -1, -3, -3, 2, -2, -1, 2, -2, -3, -1, -3, 0]> : tensor<16xi16>
    %9 = arith.muli %cst_3, %3 : tensor<16xi16>
    %10 = arith.addi %8, %9 : tensor<16xi16>
    %cst_4 = arith.constant dense<[-2, 3, 3, 0, -3, 2, 2, 3, 1, 1, 1, 1, -1, 1, 3, -2]> : tensor<16xi16>
    %11 = arith.muli %cst_4, %input0 : tensor<16xi16>
    %cst_5 = arith.constant dense<[1, -2, 3, 1, 1, 3, -1, -1, 2, 2, -2, 3, -3, -2, 2, 3]> : tensor<16xi16>
    %12 = arith.muli %cst_5, %1 : tensor<16xi16>
    %13 = arith.addi %11, %12 : tensor<16xi16>
    %cst_6 = arith.constant dense<[-3, 1, -3, -3, -1, -3, 0, -2, 0, -2, -1, 3, 2, 0, 0, 0]> : tensor<16xi16>
    %14 = arith.muli %cst_6, %2 : tensor<16xi16>
    %15 = arith.addi %13, %14 : tensor<16xi16>
    %cst_7 = arith.constant dense<[0, -3, 0, -3, 3, -3, 0, -3, -2, -3, -3, 0, 3, -1, -3, -2]> : tensor<16xi16>
    %16 = arith.muli %cst_7, %3 : tensor<16xi16>
    %17 = arith.addi %15, %16 : tensor<16xi16>
    %18 = tensor_ext.rotate %17, %c4 : tensor<16xi16>, index
    %19 = arith.addi %10, %18 : tensor<16xi16>
    %cst_8 = arith.constant dense<[-3, -3, 0, -1, -2, -3, 2, 2, -1, 1, -2, -3, -3, 1, 3, 3]> : tensor<16xi16>
    %20 = arith.muli %cst_8, %input0 : tensor<16xi16>
    %cst_9 = arith.constant dense<[-2, 3, -2, -2, -3, -1, -3, 1, 1, 2, 3, 3, 2, 2, 2, 3]> : tensor<16xi16>
    %21 = arith.muli %cst_9, %1 : tensor<16xi16>
    %22 = arith.addi %20, %21 : tensor<16xi16>
    %cst_10 = arith.constant dense<[-3, -2, 2, -3, 0, 0, 0, -1, -2, 2, 3, 3, 0, 1, 2, 2]> : tensor<16xi16>
    %23 = arith.muli %cst_10, %2 : tensor<16xi16>
    %24 = arith.addi %22, %23 : tensor<16xi16>
    %cst_11 = arith.constant dense<[3, 3, -1, -1, -2, -1, 1, 0, 0, 2, 0, -3, 2, -1, 1, -3]> : tensor<16xi16>
    %25 = arith.muli %cst_11, %3 : tensor<16xi16>
    %26 = arith.addi %24, %25 : tensor<16xi16>
    %27 = tensor_ext.rotate %26, %c8 : tensor<16xi16>, index
    %28 = arith.addi %19, %27 : tensor<16xi16>
    %cst_12 = arith.constant dense<[2, -2, -1, -2, 2, 3, -2, -1, 0, -1, 0, -1, -3, -1, -2, 2]> : tensor<16xi16>
    %29 = arith.muli %cst_12, %input0 : tensor<16xi16>
    %cst_13 = arith.constant dense<[3, 2, 3, -1, -2, -3, 0, -2, -3, 1, 3, -1, 2, 2, -1, 0]> : tensor<16xi16>
    %30 = arith.muli %cst_13, %1 : tensor<16xi16>
    %31 = arith.addi %29, %30 : tensor<16xi16>
    %cst_14 = arith.constant dense<[3, -2, 1, 3, 0, 1, -2, 2, 0, -2, 1, 2, -3, 0, -2, 1]> : tensor<16xi16>
    %32 = arith.muli %cst_14, %2 : tensor<16xi16>
    %33 = arith.addi %31, %32 : tensor<16xi16>
    %cst_15 = arith.constant dense<[2, 3, 2, 3, 2, 3, -1, -1, -2, 2, -3, 3, 2, 2, -2, 3]> : tensor<16xi16>
    %34 = arith.muli %cst_15, %3 : tensor<16xi16>
    %35 = arith.addi %33, %34 : tensor<16xi16>
    %36 = tensor_ext.rotate %35, %c12 : tensor<16xi16>, index
    %37 = arith.addi %28, %36 : tensor<16xi16>
    secret.yield %37 : tensor<16xi16>
  } -> !secret.secret<tensor<16xi16>>
  return %0 : !secret.secret<tensor<16xi16>>
}
