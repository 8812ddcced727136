%c1 = arith.constant 1 : index
