// RUN: loom-opt %s -split-input-file -loom-widen-accumulations -loom-lower-to-linalg -loom-gpu-tensor-core-gemms -canonicalize | FileCheck %s
// RUN: loom-opt %s -split-input-file -loom-widen-accumulations -loom-lower-to-linalg -loom-gpu-tensor-core-gemms -loom-gpu-bufferize | FileCheck %s --check-prefix=CALL

// Tests of loom-gpu-tensor-core-gemms (compiler/Lowering/GpuTensorCoreGemms.cpp): 16-bit
// products read their operands in 16 bits, accumulate in f32, and become cuBLAS's 16-bit GEMMs.

// Tests that a bf16 product reads the bf16 arguments (no widened copy is left), its f32
// result rounded to bf16 afterwards; the GPU pipeline calls the bf16 GEMM.
// CHECK-LABEL: func.func @bf16_product
// CHECK-NOT: arith.extf
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<64x128xbf16>, tensor<128x256xbf16>) outs(%{{.*}} : tensor<64x256xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CALL-LABEL: func.func @bf16_product
// CALL: call @loom_rt_gpu_gemm_bf16_f32(
func.func @bf16_product(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>) -> tensor<64x256xbf16> {
  %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<64x128xbf16>, tensor<128x256xbf16>) -> tensor<64x256xbf16>
  return %0 : tensor<64x256xbf16>
}

// -----

// Tests that an f16 product batched over heads (a strided contraction: attention's scores)
// reads f16 and widens in its body, and that an f32 product stays as it is.
// CHECK-LABEL: func.func @f16_batched_and_f32
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<2x64x4x32xf16>, tensor<2x64x4x32xf16>) outs(%{{.*}} : tensor<2x4x64x64xf32>) attrs = {loom.strided_contraction}
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.matmul ins(%arg2, %arg3 : tensor<64x128xf32>, tensor<128x256xf32>)
// CALL-LABEL: func.func @f16_batched_and_f32
// CALL: call @loom_rt_gpu_gemm_f16_f32(
// CALL: call @loom_rt_gpu_gemm_f32(
func.func @f16_batched_and_f32(%q: tensor<2x64x4x32xf16>, %k: tensor<2x64x4x32xf16>,
                               %x: tensor<64x128xf32>, %w: tensor<128x256xf32>)
    -> (tensor<2x4x64x64xf16>, tensor<64x256xf32>) {
  %s = loom.dot_general %q, %k, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<2x64x4x32xf16>, tensor<2x64x4x32xf16>) -> tensor<2x4x64x64xf16>
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
  return %s, %y : tensor<2x4x64x64xf16>, tensor<64x256xf32>
}

// -----

// Tests that an f32 product of operands rounded to bf16 inside the program (as autocast
// does), one of them through a transpose and reshape, reads them in bf16: the rounding
// stays with its producer (tanh) and the widening goes.
// CHECK-LABEL: func.func @rounded_in_the_program
// CHECK: math.tanh
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.transpose ins(%{{.*}} : tensor<256x128xbf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x128xbf16>, tensor<128x256xbf16>) outs(%{{.*}} : tensor<64x256xf32>)
// CALL-LABEL: func.func @rounded_in_the_program
// CALL: call @loom_rt_gpu_gemm_bf16_f32(
func.func @rounded_in_the_program(%x: tensor<64x128xf32>, %w: tensor<256x128xf32>) -> tensor<64x256xf32> {
  %t = loom.tanh %x : tensor<64x128xf32>
  %xb = loom.convert %t : tensor<64x128xf32> -> tensor<64x128xbf16>
  %wb = loom.convert %w : tensor<256x128xf32> -> tensor<256x128xbf16>
  %wt = loom.transpose %wb, permutation = [1, 0] : tensor<256x128xbf16> -> tensor<128x256xbf16>
  %0 = loom.dot_general %xb, %wt, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<64x128xbf16>, tensor<128x256xbf16>) -> tensor<64x256xbf16>
  %1 = loom.convert %0 : tensor<64x256xbf16> -> tensor<64x256xf32>
  return %1 : tensor<64x256xf32>
}
