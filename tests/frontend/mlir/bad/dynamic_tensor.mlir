func.func @f(%x: tensor<?xi16>) -> tensor<?xi16> {
  return %x : tensor<?xi16>
}
