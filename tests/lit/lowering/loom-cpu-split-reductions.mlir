// RUN: loom-opt %s -loom-cpu-split-reductions | FileCheck %s

// Tests of loom-cpu-split-reductions: a large reduction over leading dims first keeps the
// first dim (partials whose loop is parallel), then sums the partials; a reduction to a scalar
// likewise; one over the first dim alone, in groups of rows (its chain of elementwise
// producers recomputed on views of their operands); small ones, ones over an inner dim, and
// ones where a view would stop a broadcast's fusion stay as they are.

// CHECK-LABEL: func.func @bias_gradient
// CHECK: %[[P:.*]] = loom.reduce sum %arg0, dims = [1] : tensor<8x128x256xf32> -> tensor<8x256xf32>
// CHECK-NEXT: %[[G:.*]] = loom.reduce sum %[[P]], dims = [0] : tensor<8x256xf32> -> tensor<256xf32>
// CHECK-NEXT: return %[[G]]
func.func @bias_gradient(%dy: tensor<8x128x256xf32>) -> tensor<256xf32> {
  %g = loom.reduce sum %dy, dims = [0, 1] : tensor<8x128x256xf32> -> tensor<256xf32>
  return %g : tensor<256xf32>
}

// The elementwise producer stays the reduction's operand (no reshape between them).
// CHECK-LABEL: func.func @sum_of_squares
// CHECK: %[[SQ:.*]] = loom.mul %arg0, %arg0
// CHECK-NEXT: %[[P:.*]] = loom.reduce max %[[SQ]], dims = [1] : tensor<256x1024xf32> -> tensor<256xf32>
// CHECK-NEXT: loom.reduce max %[[P]], dims = [0] : tensor<256xf32> -> tensor<f32>
func.func @sum_of_squares(%g: tensor<256x1024xf32>) -> tensor<f32> {
  %sq = loom.mul %g, %g : tensor<256x1024xf32>
  %s = loom.reduce max %sq, dims = [0, 1] : tensor<256x1024xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// The first dim alone: viewed as 16 groups of 64 rows, each group's rows summed into its
// partial, then the partials. A first dim of 1020 makes 15 groups of 68.
// CHECK-LABEL: func.func @rows_in_groups
// CHECK: %[[V:.*]] = loom.reshape %arg0 : tensor<1024x256xf32> -> tensor<16x64x256xf32>
// CHECK-NEXT: %[[P:.*]] = loom.reduce sum %[[V]], dims = [1] : tensor<16x64x256xf32> -> tensor<16x256xf32>
// CHECK-NEXT: loom.reduce sum %[[P]], dims = [0] : tensor<16x256xf32> -> tensor<256xf32>
// CHECK: loom.reshape %arg1 : tensor<1020x4x32xf32> -> tensor<15x68x4x32xf32>
// CHECK-NEXT: loom.reduce max %{{.*}}, dims = [1] : tensor<15x68x4x32xf32> -> tensor<15x4x32xf32>
// CHECK-NEXT: loom.reduce max %{{.*}}, dims = [0] : tensor<15x4x32xf32> -> tensor<4x32xf32>
// CHECK: loom.add
// CHECK-NEXT: loom.reshape
// The fused chain sq * y: recomputed on views of x and y, so that it still fuses.
// CHECK: %[[X:.*]] = loom.reshape %arg0 : tensor<1024x256xf32> -> tensor<16x64x256xf32>
// CHECK-NEXT: %[[SQ:.*]] = loom.mul %[[X]], %[[X]] : tensor<16x64x256xf32>
// CHECK-NEXT: %[[Y:.*]] = loom.reshape %arg2 : tensor<1024x256xf32> -> tensor<16x64x256xf32>
// CHECK-NEXT: %[[PR:.*]] = loom.mul %[[SQ]], %[[Y]] : tensor<16x64x256xf32>
// CHECK-NEXT: loom.reduce sum %[[PR]], dims = [1] : tensor<16x64x256xf32> -> tensor<16x256xf32>
func.func @rows_in_groups(%rows: tensor<1024x256xf32>, %deep: tensor<1020x4x32xf32>,
                          %other: tensor<1024x256xf32>)
    -> (tensor<256xf32>, tensor<4x32xf32>, tensor<1024x256xf32>, tensor<256xf32>,
        tensor<256xf32>) {
  %a = loom.reduce sum %rows, dims = [0] : tensor<1024x256xf32> -> tensor<256xf32>
  %b = loom.reduce max %deep, dims = [0] : tensor<1020x4x32xf32> -> tensor<4x32xf32>
  // A producer used elsewhere too is computed apart anyway: its reduction is split.
  %s = loom.add %rows, %other : tensor<1024x256xf32>
  %c = loom.reduce sum %s, dims = [0] : tensor<1024x256xf32> -> tensor<256xf32>
  %sq = loom.mul %rows, %rows : tensor<1024x256xf32>
  %pr = loom.mul %sq, %other : tensor<1024x256xf32>
  %d = loom.reduce sum %pr, dims = [0] : tensor<1024x256xf32> -> tensor<256xf32>
  return %a, %b, %s, %c, %d
      : tensor<256xf32>, tensor<4x32xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<256xf32>
}

// CHECK-LABEL: func.func @unchanged
// CHECK-NEXT: loom.reduce sum %arg0, dims = [0, 1] : tensor<64x64xf32>
// CHECK-NEXT: loom.reduce sum %arg1, dims = [0] : tensor<1021x256xf32>
// CHECK-NEXT: loom.reduce sum %arg2, dims = [1, 2] : tensor<8x128x256xf32>
// CHECK-NEXT: %[[B:.*]] = loom.broadcast_in_dim %arg4
// CHECK-NEXT: %[[M:.*]] = loom.add %arg3, %[[B]]
// CHECK-NEXT: loom.reduce sum %[[M]], dims = [0] : tensor<1024x256xf32>
func.func @unchanged(%small: tensor<64x64xf32>, %rows: tensor<1021x256xf32>,
                     %inner: tensor<8x128x256xf32>, %fused: tensor<1024x256xf32>,
                     %bias: tensor<256xf32>)
    -> (tensor<f32>, tensor<256xf32>, tensor<8xf32>, tensor<256xf32>) {
  %a = loom.reduce sum %small, dims = [0, 1] : tensor<64x64xf32> -> tensor<f32>
  %b = loom.reduce sum %rows, dims = [0] : tensor<1021x256xf32> -> tensor<256xf32>
  %c = loom.reduce sum %inner, dims = [1, 2] : tensor<8x128x256xf32> -> tensor<8xf32>
  %wide = loom.broadcast_in_dim %bias, dims = [1] : tensor<256xf32> -> tensor<1024x256xf32>
  %sq = loom.add %fused, %wide : tensor<1024x256xf32>
  %d = loom.reduce sum %sq, dims = [0] : tensor<1024x256xf32> -> tensor<256xf32>
  return %a, %b, %c, %d : tensor<f32>, tensor<256xf32>, tensor<8xf32>, tensor<256xf32>
}
