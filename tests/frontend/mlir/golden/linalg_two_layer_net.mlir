func.func @net(%x: !secret.secret<tensor<8xi16>>) -> !secret.secret<tensor<8xi16>> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %0 = secret.generic(%x: !secret.secret<tensor<8xi16>>) {
  ^body(%input0: tensor<8xi16>):
    %1 = tensor_ext.rotate %input0, %c1 : tensor<8xi16>, index
    %cst = arith.constant dense<[1, -2, -1, -2, 0, 1, -2, 2]> : tensor<8xi16>
    %2 = arith.muli %cst, %input0 : tensor<8xi16>
    %cst_1 = arith.constant dense<[-1, 0, -1, 0, -1, 2, 0, -2]> : tensor<8xi16>
    %3 = arith.muli %cst_1, %1 : tensor<8xi16>
    %4 = arith.addi %2, %3 : tensor<8xi16>
    %cst_2 = arith.constant dense<[0, -2, 2, 0, 0, -2, -2, 2]> : tensor<8xi16>
    %5 = arith.muli %cst_2, %input0 : tensor<8xi16>
    %cst_3 = arith.constant dense<[-2, -2, 2, 2, 1, 2, 2, -1]> : tensor<8xi16>
    %6 = arith.muli %cst_3, %1 : tensor<8xi16>
    %7 = arith.addi %5, %6 : tensor<8xi16>
    %8 = tensor_ext.rotate %7, %c2 : tensor<8xi16>, index
    %9 = arith.addi %4, %8 : tensor<8xi16>
    %cst_4 = arith.constant dense<[-2, 0, 1, -1, 1, -1, -1, -2]> : tensor<8xi16>
    %10 = arith.muli %cst_4, %input0 : tensor<8xi16>
    %cst_5 = arith.constant dense<[0, -2, -1, 2, -2, 1, 0, -1]> : tensor<8xi16>
    %11 = arith.muli %cst_5, %1 : tensor<8xi16>
    %12 = arith.addi %10, %11 : tensor<8xi16>
    %13 = tensor_ext.rotate %12, %c4 : tensor<8xi16>, index
    %14 = arith.addi %9, %13 : tensor<8xi16>
    %cst_6 = arith.constant dense<[-2, 1, 1, -1, 0, 2, 0, 0]> : tensor<8xi16>
    %15 = arith.muli %cst_6, %input0 : tensor<8xi16>
    %cst_7 = arith.constant dense<[2, 2, -1, 2, -1, 0, -2, -1]> : tensor<8xi16>
    %16 = arith.muli %cst_7, %1 : tensor<8xi16>
    %17 = arith.addi %15, %16 : tensor<8xi16>
    %18 = tensor_ext.rotate %17, %c6 : tensor<8xi16>, index
    %19 = arith.addi %14, %18 : tensor<8xi16>
    %20 = arith.muli %19, %19 : tensor<8xi16>
    %21 = tensor_ext.rotate %20, %c1 : tensor<8xi16>, index
    %cst_8 = arith.constant dense<[1, -1, 2, 2, 0, 2, -2, -1]> : tensor<8xi16>
    %22 = arith.muli %cst_8, %20 : tensor<8xi16>
    %cst_9 = arith.constant dense<[-2, -2, 1, -2, 2, 0, 1, -1]> : tensor<8xi16>
    %23 = arith.muli %cst_9, %21 : tensor<8xi16>
    %24 = arith.addi %22, %23 : tensor<8xi16>
    %cst_10 = arith.constant dense<[-2, -1, -1, 1, -2, -1, 1, 1]> : tensor<8xi16>
    %25 = arith.muli %cst_10, %20 : tensor<8xi16>
    %cst_11 = arith.constant dense<[-1, 2, -1, -2, 1, -2, 1, 2]> : tensor<8xi16>
    %26 = arith.muli %cst_11, %21 : tensor<8xi16>
    %27 = arith.addi %25, %26 : tensor<8xi16>
    %28 = tensor_ext.rotate %27, %c2 : tensor<8xi16>, index
    %29 = arith.addi %24, %28 : tensor<8xi16>
    %cst_12 = arith.constant dense<[2, 0, 1, -2, -2, 1, -2, -2]> : tensor<8xi16>
    %30 = arith.muli %cst_12, %20 : tensor<8xi16>
    %cst_13 = arith.constant dense<[1, -2, 0, 0, 2, 1, 0, -2]> : tensor<8xi16>
    %31 = arith.muli %cst_13, %21 : tensor<8xi16>
    %32 = arith.addi %30, %31 : tensor<8xi16>
    %33 = tensor_ext.rotate %32, %c4 : tensor<8xi16>, index
    %34 = arith.addi %29, %33 : tensor<8xi16>
    %cst_14 = arith.constant dense<[0, 1, -2, 1, 0, -1, -1, 0]> : tensor<8xi16>
    %35 = arith.muli %cst_14, %20 : tensor<8xi16>
    %cst_15 = arith.constant dense<[-2, 2, -2, 0, -2, -1, 2, 2]> : tensor<8xi16>
    %36 = arith.muli %cst_15, %21 : tensor<8xi16>
    %37 = arith.addi %35, %36 : tensor<8xi16>
    %38 = tensor_ext.rotate %37, %c6 : tensor<8xi16>, index
    %39 = arith.addi %34, %38 : tensor<8xi16>
    secret.yield %39 : tensor<8xi16>
  } -> !secret.secret<tensor<8xi16>>
  return %0 : !secret.secret<tensor<8xi16>>
}
