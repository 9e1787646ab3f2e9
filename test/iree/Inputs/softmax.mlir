func.func @sm(%a: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %e = tensor.empty() : tensor<4x256xf32>
  %r = linalg.softmax dimension(1) ins(%a : tensor<4x256xf32>) outs(%e : tensor<4x256xf32>) -> tensor<4x256xf32>
  return %r : tensor<4x256xf32>
}
