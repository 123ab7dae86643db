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
// (A's outer stride 0, B's 1024, C's 32: [b t, k, h d] rows of 96), no transpose of w.
// CHECK-LABEL: func.func @projection
// CHECK-NOT: linalg.transpose
// CHECK: call @loom_rt_gemm_f32(%c1_i64, %c16_i64, %c32_i64, %c32_i64, %{{[0-9]+}}, %c0_i64, %c32_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c32_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c96_i64, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %c3_i64, %c0_i64, %c1024_i64, %c32_i64)
func.func @projection(%x: tensor<2x8x32xf32>, %w: tensor<3x32x4x8xf32>) -> tensor<2x8x3x4x8xf32> {
  %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [2] x [1] : (tensor<2x8x32xf32>, tensor<3x32x4x8xf32>) -> tensor<2x8x3x4x8xf32>
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
// CHECK: call @loom_rt_gemm_f32(%c1_i64, %c16_i64, %c32_i64, %c32_i64, %{{[0-9]+}}, %c0_i64, %c16_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c96_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c32_i64, %c0_i64, %c0_i64, %c1_i64, %c0_i64, %c3_i64, %c0_i64, %c32_i64, %c512_i64)
// CHECK-NOT: linalg.transpose
func.func @projection_weight_grad(%x: tensor<4x8x16xf32>, %g: tensor<4x8x3x4x8xf32>) -> tensor<3x16x4x8xf32> {
  %0 = loom.dot_general %x, %g, batching_dims = [] x [], contracting_dims = [0, 1] x [0, 1] : (tensor<4x8x16xf32>, tensor<4x8x3x4x8xf32>) -> tensor<16x3x4x8xf32>
  %1 = loom.transpose %0, permutation = [1, 0, 2, 3] : tensor<16x3x4x8xf32> -> tensor<3x16x4x8xf32>
  return %1 : tensor<3x16x4x8xf32>
}

// One batch dim, not leading (a decoding step's scores against its cache, [n, h, d] x
// [t, h, d] -> [h, n, t]): the heads become the GEMM call's outer batch (A's and B's stride
// d = 4, C's n t = 16), each row read where it lies (leading dims h d = 12), B transposed; no
// transpose copy.
// CHECK-LABEL: func.func @head_scores
// CHECK-NOT: memref.alloc
// CHECK: call @loom_rt_gemm_f32(%c1_i64, %c2_i64, %c8_i64, %c4_i64, %{{[0-9]+}}, %c0_i64, %c12_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c12_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c8_i64, %c0_i64, %c0_i64, %c0_i64, %c1_i64, %c3_i64, %c4_i64, %c4_i64, %c16_i64)
func.func @head_scores(%q: tensor<2x3x4xf32>, %k: tensor<8x3x4xf32>) -> tensor<3x2x8xf32> {
  %0 = loom.dot_general %q, %k, batching_dims = [1] x [1], contracting_dims = [2] x [2] : (tensor<2x3x4xf32>, tensor<8x3x4xf32>) -> tensor<3x2x8xf32>
  return %0 : tensor<3x2x8xf32>
}

// Its weighted sum, [h, n, t] x [t, h, d] -> [h, n, d]: the values read in place too.
// CHECK-LABEL: func.func @head_mix
// CHECK-NOT: memref.alloc
// CHECK: call @loom_rt_gemm_f32(%c1_i64, %c2_i64, %c4_i64, %c8_i64, %{{[0-9]+}}, %c0_i64, %c8_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c12_i64, %c0_i64, %{{[0-9]+}}, %c0_i64, %c4_i64, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %c3_i64, %c16_i64, %c4_i64, %c8_i64)
func.func @head_mix(%w: tensor<3x2x8xf32>, %v: tensor<8x3x4xf32>) -> tensor<3x2x4xf32> {
  %0 = loom.dot_general %w, %v, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<3x2x8xf32>, tensor<8x3x4xf32>) -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// A batch dim that is an operand's last (no unit stride for a GEMM's matrix): that operand is
// copied to [b, m, k] first, as before.
// CHECK-LABEL: func.func @batch_last
// CHECK: memref.alloc() {{.*}} : memref<3x2x4xf32>
// CHECK: call @loom_rt_gemm_f32(%c3_i64, %c2_i64, %c5_i64, %c4_i64,
func.func @batch_last(%a: tensor<2x4x3xf32>, %b: tensor<3x4x5xf32>) -> tensor<3x2x5xf32> {
  %0 = loom.dot_general %a, %b, batching_dims = [2] x [0], contracting_dims = [1] x [1] : (tensor<2x4x3xf32>, tensor<3x4x5xf32>) -> tensor<3x2x5xf32>
  return %0 : tensor<3x2x5xf32>
}
