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

// -----

// Tests that a sum over leading dims to few outputs (a bias gradient: 8192 rows of 768) is
// split into 64 slices of 128 rows, 64 x 768 threads, then the slices summed; the result keeps
// its shape. A max keeps its kind; with 32 outputs, 128 slices at most (the second level's
// threads sum them serially).
// CHECK-LABEL: func.func @bias_gradient
// CHECK: %[[V:.*]] = loom.reshape %arg0 : tensor<8x1024x768xf32> -> tensor<64x128x768xf32>
// CHECK: %[[P:.*]] = loom.reduce sum %[[V]], dims = [1] : tensor<64x128x768xf32> -> tensor<64x768xf32>
// CHECK: %[[S:.*]] = loom.reduce sum %[[P]], dims = [0] : tensor<64x768xf32> -> tensor<768xf32>
// CHECK: %[[W:.*]] = loom.reshape %arg1 : tensor<4096x4x8xf32> -> tensor<128x32x32xf32>
// CHECK: %[[Q:.*]] = loom.reduce max %[[W]], dims = [1] : tensor<128x32x32xf32> -> tensor<128x32xf32>
// CHECK: %[[M:.*]] = loom.reduce max %[[Q]], dims = [0] : tensor<128x32xf32> -> tensor<32xf32>
// CHECK: %[[R:.*]] = loom.reshape %[[M]] : tensor<32xf32> -> tensor<4x8xf32>
// CHECK: return %[[S]], %[[R]]
func.func @bias_gradient(%dy: tensor<8x1024x768xf32>, %x: tensor<4096x4x8xf32>)
    -> (tensor<768xf32>, tensor<4x8xf32>) {
  %0 = loom.reduce sum %dy, dims = [0, 1] : tensor<8x1024x768xf32> -> tensor<768xf32>
  %1 = loom.reduce max %x, dims = [0] : tensor<4096x4x8xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<768xf32>, tensor<4x8xf32>
}

// -----

// Tests that leading-dim reductions are left alone with few rows (128), with outputs enough
// to fill the GPU (32768), or when a trailing dim is reduced too.
// CHECK-LABEL: func.func @left_alone
// CHECK: loom.reduce sum %arg0, dims = [0, 1] : tensor<8x16x32xf32> -> tensor<32xf32>
// CHECK: loom.reduce sum %arg1, dims = [0] : tensor<4096x32768xf32> -> tensor<32768xf32>
// CHECK: loom.reduce sum %arg2, dims = [0, 2] : tensor<4096x8x8xf32> -> tensor<8xf32>
// CHECK-NOT: loom.reshape
func.func @left_alone(%a: tensor<8x16x32xf32>, %b: tensor<4096x32768xf32>,
                      %c: tensor<4096x8x8xf32>)
    -> (tensor<32xf32>, tensor<32768xf32>, tensor<8xf32>) {
  %0 = loom.reduce sum %a, dims = [0, 1] : tensor<8x16x32xf32> -> tensor<32xf32>
  %1 = loom.reduce sum %b, dims = [0] : tensor<4096x32768xf32> -> tensor<32768xf32>
  %2 = loom.reduce sum %c, dims = [0, 2] : tensor<4096x8x8xf32> -> tensor<8xf32>
  return %0, %1, %2 : tensor<32xf32>, tensor<32768xf32>, tensor<8xf32>
}
