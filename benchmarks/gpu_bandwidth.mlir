// The programs of loom-gpu-bandwidth-benchmark: a fused elementwise chain over 64M floats,
// and a row softmax over [8192, 4096] (its exp(x - max) kernel is timed).
func.func @main(%x: tensor<67108864xf32>, %y: tensor<67108864xf32>) -> tensor<67108864xf32> {
  %0 = loom.mul %x, %y : tensor<67108864xf32>
  %1 = loom.tanh %x : tensor<67108864xf32>
  %2 = loom.add %0, %1 : tensor<67108864xf32>
  return %2 : tensor<67108864xf32>
}

// -----

func.func @main(%x: tensor<8192x4096xf32>) -> tensor<8192x4096xf32> {
  %max = loom.reduce max %x, dims = [1] : tensor<8192x4096xf32> -> tensor<8192xf32>
  %maxb = loom.broadcast_in_dim %max, dims = [0] : tensor<8192xf32> -> tensor<8192x4096xf32>
  %shifted = loom.sub %x, %maxb : tensor<8192x4096xf32>
  %exp = loom.exp %shifted : tensor<8192x4096xf32>
  %sum = loom.reduce sum %exp, dims = [1] : tensor<8192x4096xf32> -> tensor<8192xf32>
  %sumb = loom.broadcast_in_dim %sum, dims = [0] : tensor<8192xf32> -> tensor<8192x4096xf32>
  %r = loom.div %exp, %sumb : tensor<8192x4096xf32>
  return %r : tensor<8192x4096xf32>
}
