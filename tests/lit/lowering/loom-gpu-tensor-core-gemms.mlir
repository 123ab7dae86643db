// RUN: loom-opt %s -split-input-file -loom-cpu-to-linalg -loom-gpu-bufferize | FileCheck %s

// Tests of loom-gpu-tensor-core-gemms (compiler/Lowering/GpuTensorCoreGemms.cpp) in the GPU
// bufferization: 16-bit products read their operands as they are, not widened copies.

// Tests that a bf16 product calls the bf16 GEMM with the arguments' own addresses (no f32
// copy of them is made), and that the f32 result is rounded to bf16 afterwards.
// CHECK-LABEL: func.func @bf16_product
// CHECK-NOT: arith.extf
// CHECK-DAG: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %arg0 : memref<64x128xbf16>
// CHECK-DAG: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %arg1 : memref<128x256xbf16>
// CHECK-DAG: %[[A:.*]] = arith.index_cast %[[PA]]
// CHECK-DAG: %[[B:.*]] = arith.index_cast %[[PB]]
// CHECK: call @loom_rt_gpu_gemm_bf16_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %[[B]],
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @bf16_product(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>) -> tensor<64x256xbf16> {
  %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<64x128xbf16>, tensor<128x256xbf16>) -> tensor<64x256xbf16>
  return %0 : tensor<64x256xbf16>
}

// -----

// Tests that an f16 product batched over heads (a strided contraction: attention's scores)
// calls the f16 GEMM, and that an f32 product keeps the f32 GEMM.
// CHECK-LABEL: func.func @f16_batched_and_f32
// CHECK: call @loom_rt_gpu_gemm_f16_f32(
// CHECK: call @loom_rt_gpu_gemm_f32(
func.func @f16_batched_and_f32(%q: tensor<2x64x4x32xf16>, %k: tensor<2x64x4x32xf16>,
                               %x: tensor<64x128xf32>, %w: tensor<128x256xf32>)
    -> (tensor<2x4x64x64xf16>, tensor<64x256xf32>) {
  %s = loom.dot_general %q, %k, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<2x64x4x32xf16>, tensor<2x64x4x32xf16>) -> tensor<2x4x64x64xf16>
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
  return %s, %y : tensor<2x4x64x64xf16>, tensor<64x256xf32>
}
