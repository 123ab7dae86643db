// RUN: loom-opt %s -loom-cpu-to-linalg -loom-cpu-bufferize | FileCheck %s

// Two batch dims with the heads not leading (attention's q k^T on [b, t, h, d] operands):
// the dot_general lowering reads both operands in place, and the GEMM call takes the heads
// as its batch (stride d) and b as its outer batch (stride t h d); no transpose copies.
// CHECK-LABEL: func.func @heads_scores
// CHECK-NOT: linalg.transpose
// CHECK: call @loom_rt_gemm_f32(%c3_i64, %c8_i64, %c8_i64, %c4_i64, %{{[0-9]+}}, %c0_i64, %c12_i64, %c4_i64, %{{[0-9]+}}, %c0_i64, %c12_i64, %c4_i64, %{{[0-9]+}}, %c0_i64, %c8_i64, %c64_i64, %c0_i64, %c0_i64, %c1_i64, %c2_i64, %c96_i64, %c96_i64, %c192_i64)
func.func @heads_scores(%q: tensor<2x8x3x4xf32>, %k: tensor<2x8x3x4xf32>) -> tensor<2x3x8x8xf32> {
  %0 = loom.dot_general %q, %k, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<2x8x3x4xf32>, tensor<2x8x3x4xf32>) -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}
