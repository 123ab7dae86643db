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

// A projection whose free dim k stands before its contracting dim (x [b, t, c] times
// w [k, c, h, d], as a GPT's fused q/k/v weight): one GEMM per k, as an outer batch of 3
// (A's outer stride 0, B's 512, C's 32: [b t, k, h d] rows of 96), no transpose of w.
// CHECK-LABEL: func.func @projection
// CHECK-NOT: linalg.transpose
// CHECK: call @loom_rt_gemm_f32(%c1_i64, %c16_i64, %c32_i64, %c16_i64, %{{[0-9]+}}, %c0_i64, %c16_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c32_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c96_i64, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %c3_i64, %c0_i64, %c512_i64, %c32_i64)
func.func @projection(%x: tensor<2x8x16xf32>, %w: tensor<3x16x4x8xf32>) -> tensor<2x8x3x4x8xf32> {
  %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [2] x [1] : (tensor<2x8x16xf32>, tensor<3x16x4x8xf32>) -> tensor<2x8x3x4x8xf32>
  return %0 : tensor<2x8x3x4x8xf32>
}

// Its input gradient contracts over k, h, d, with c between k and h in w: k becomes an outer
// loop whose products sum into C (C's outer stride 0), w read transposed in place.
// CHECK-LABEL: func.func @projection_input_grad
// CHECK-NOT: linalg.transpose
// CHECK: call @loom_rt_gemm_f32(%c1_i64, %c16_i64, %c16_i64, %c32_i64, %{{[0-9]+}}, %c0_i64, %c96_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c32_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c16_i64, %c0_i64, %c0_i64, %c0_i64, %c1_i64, %c3_i64, %c32_i64, %c512_i64, %c0_i64)
func.func @projection_input_grad(%g: tensor<2x8x3x4x8xf32>, %w: tensor<3x16x4x8xf32>) -> tensor<2x8x16xf32> {
  %0 = loom.dot_general %g, %w, batching_dims = [] x [], contracting_dims = [2, 3, 4] x [0, 2, 3] : (tensor<2x8x3x4x8xf32>, tensor<3x16x4x8xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// Its weight gradient, a product [c, k, h, d] transposed to the weight's [k, c, h, d]: written
// transposed by the GEMM (C's outer stride 512, rows of 32), the transpose folded away.
// CHECK-LABEL: func.func @projection_weight_grad
// CHECK-NOT: linalg.transpose
// CHECK: call @loom_rt_gemm_f32(%c1_i64, %c16_i64, %c32_i64, %c16_i64, %{{[0-9]+}}, %c0_i64, %c16_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c96_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c32_i64, %c0_i64, %c0_i64, %c1_i64, %c0_i64, %c3_i64, %c0_i64, %c32_i64, %c512_i64)
// CHECK-NOT: linalg.transpose
func.func @projection_weight_grad(%x: tensor<2x8x16xf32>, %g: tensor<2x8x3x4x8xf32>) -> tensor<3x16x4x8xf32> {
  %0 = loom.dot_general %x, %g, batching_dims = [] x [], contracting_dims = [0, 1] x [0, 1] : (tensor<2x8x16xf32>, tensor<2x8x3x4x8xf32>) -> tensor<16x3x4x8xf32>
  %1 = loom.transpose %0, permutation = [1, 0, 2, 3] : tensor<16x3x4x8xf32> -> tensor<3x16x4x8xf32>
  return %1 : tensor<3x16x4x8xf32>
}
