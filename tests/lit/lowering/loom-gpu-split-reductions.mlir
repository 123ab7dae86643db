// RUN: loom-opt %s -split-input-file -loom-gpu-split-reductions | FileCheck %s

// Tests of loom-gpu-split-reductions (compiler/Lowering/GpuSplitReductions.cpp).

// Tests that a sum of 512x768 elements to a scalar becomes 4096 partials (dim 0 of a
// [96, 4096] view, so that consecutive partials read consecutive elements), those 64, then one.
// CHECK-LABEL: func.func @full_sum
// CHECK: %[[V:.*]] = loom.reshape %arg0 : tensor<512x768xf32> -> tensor<96x4096xf32>
// CHECK: %[[P:.*]] = loom.reduce sum %[[V]], dims = [0] : tensor<96x4096xf32> -> tensor<4096xf32>
// CHECK: %[[W:.*]] = loom.reshape %[[P]] : tensor<4096xf32> -> tensor<64x64xf32>
// CHECK: %[[Q:.*]] = loom.reduce sum %[[W]], dims = [0] : tensor<64x64xf32> -> tensor<64xf32>
// CHECK: %[[S:.*]] = loom.reduce sum %[[Q]], dims = [0] : tensor<64xf32> -> tensor<f32>
// CHECK: return %[[S]]
func.func @full_sum(%x: tensor<512x768xf32>) -> tensor<f32> {
  %s = loom.reduce sum %x, dims = [0, 1] : tensor<512x768xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Tests that a max keeps its kind, that 10007 elements (a prime: no divisor between 64
// and 4096) and a partial reduction are left alone, and that 1024 elements take two levels.
// CHECK-LABEL: func.func @kinds_and_sizes
// CHECK: loom.reduce max {{.*}} tensor<4x4096xf32> -> tensor<4096xf32>
// CHECK: loom.reduce max {{.*}} tensor<64x64xf32> -> tensor<64xf32>
// CHECK: loom.reduce max {{.*}} tensor<64xf32> -> tensor<f32>
// CHECK: loom.reduce sum %arg1, dims = [0] : tensor<10007xf32> -> tensor<f32>
// CHECK: loom.reshape %arg2 : tensor<1024xf32> -> tensor<2x512xf32>
// CHECK: tensor<8x64xf32> -> tensor<64xf32>
// CHECK: tensor<64xf32> -> tensor<f32>
// CHECK: loom.reduce sum %arg3, dims = [1] : tensor<64x1024xf32> -> tensor<64xf32>
func.func @kinds_and_sizes(%a: tensor<16384xf32>, %b: tensor<10007xf32>, %c: tensor<1024xf32>,
                           %d: tensor<64x1024xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<64xf32>) {
  %0 = loom.reduce max %a, dims = [0] : tensor<16384xf32> -> tensor<f32>
  %1 = loom.reduce sum %b, dims = [0] : tensor<10007xf32> -> tensor<f32>
  %2 = loom.reduce sum %c, dims = [0] : tensor<1024xf32> -> tensor<f32>
  %3 = loom.reduce sum %d, dims = [1] : tensor<64x1024xf32> -> tensor<64xf32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<64xf32>
}
