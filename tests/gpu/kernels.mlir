// Loom programs whose GPU kernels tests/gpu/GpuKernelTest.cpp runs on a GPU: a fused
// elementwise chain over 4096 elements, and a row softmax over [1024, 512].
func.func @main(%x: tensor<4096xf32>, %y: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = loom.mul %x, %y : tensor<4096xf32>
  %1 = loom.tanh %x : tensor<4096xf32>
  %2 = loom.add %0, %1 : tensor<4096xf32>
  return %2 : tensor<4096xf32>
}

// -----

func.func @main(%x: tensor<1024x512xf32>) -> tensor<1024x512xf32> {
  %max = loom.reduce max %x, dims = [1] : tensor<1024x512xf32> -> tensor<1024xf32>
  %maxb = loom.broadcast_in_dim %max, dims = [0] : tensor<1024xf32> -> tensor<1024x512xf32>
  %shifted = loom.sub %x, %maxb : tensor<1024x512xf32>
  %exp = loom.exp %shifted : tensor<1024x512xf32>
  %sum = loom.reduce sum %exp, dims = [1] : tensor<1024x512xf32> -> tensor<1024xf32>
  %sumb = loom.broadcast_in_dim %sum, dims = [0] : tensor<1024xf32> -> tensor<1024x512xf32>
  %r = loom.div %exp, %sumb : tensor<1024x512xf32>
  return %r : tensor<1024x512xf32>
}
