// RUN: loom-opt %s -loom-return-reshaped-allocs -split-input-file | FileCheck %s
// RUN: loom-opt %s -loom-return-reshaped-allocs -buffer-results-to-out-params="hoist-static-allocs modify-public-functions" -split-input-file | FileCheck %s --check-prefix=OUT

// A product computed as [8, 4] and returned as [2, 4, 4]: the function allocates the
// returned shape and fills it through a collapse_shape; after buffer-results-to-out-params
// the caller's buffer is written directly, with no copy.
// CHECK-LABEL: func.func @expanded
// CHECK: %[[R:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x4x4xf32>
// CHECK: %[[V:.*]] = memref.collapse_shape %[[R]] {{\[}}[0, 1], [2]] : memref<2x4x4xf32> into memref<8x4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[V]] : memref<8x4xf32>)
// CHECK: return %[[R]] : memref<2x4x4xf32>
// OUT-LABEL: func.func @expanded
// OUT-SAME: (%[[OUT:.*]]: memref<2x4x4xf32>)
// OUT-NOT: memref.alloc
// OUT-NOT: memref.copy
// OUT: memref.collapse_shape %[[OUT]]
func.func @expanded() -> memref<2x4x4xf32> {
  %cst = arith.constant 1.0 : f32
  %0 = memref.alloc() {alignment = 64 : i64} : memref<8x4xf32>
  linalg.fill ins(%cst : f32) outs(%0 : memref<8x4xf32>)
  %1 = memref.expand_shape %0 [[0, 1], [2]] output_shape [2, 4, 4] : memref<8x4xf32> into memref<2x4x4xf32>
  return %1 : memref<2x4x4xf32>
}

// -----

// Two reshapes (collapse then expand) are undone in reverse order.
// CHECK-LABEL: func.func @chain
// CHECK: %[[R:.*]] = memref.alloc() : memref<4x2x4xf32>
// CHECK: %[[C:.*]] = memref.collapse_shape %[[R]] {{\[}}[0, 1], [2]] : memref<4x2x4xf32> into memref<8x4xf32>
// CHECK: %[[E:.*]] = memref.expand_shape %[[C]] {{\[}}[0, 1], [2]] output_shape [2, 4, 4] : memref<8x4xf32> into memref<2x4x4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : memref<2x4x4xf32>)
// CHECK: return %[[R]]
func.func @chain() -> memref<4x2x4xf32> {
  %cst = arith.constant 1.0 : f32
  %0 = memref.alloc() : memref<2x4x4xf32>
  linalg.fill ins(%cst : f32) outs(%0 : memref<2x4x4xf32>)
  %1 = memref.collapse_shape %0 [[0, 1], [2]] : memref<2x4x4xf32> into memref<8x4xf32>
  %2 = memref.expand_shape %1 [[0, 1], [2]] output_shape [4, 2, 4] : memref<8x4xf32> into memref<4x2x4xf32>
  return %2 : memref<4x2x4xf32>
}

// -----

// Left alone: a reshaped argument (not the function's buffer), and an alloc returned as it is.
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[E:.*]] = memref.expand_shape %arg0
// CHECK: return %[[E]], %[[A]]
func.func @left_alone(%arg0: memref<8xf32>) -> (memref<2x4xf32>, memref<4x8xf32>) {
  %0 = memref.alloc() : memref<4x8xf32>
  %1 = memref.expand_shape %arg0 [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  return %1, %0 : memref<2x4xf32>, memref<4x8xf32>
}

// -----

// Two reshapes of one alloc: the first result takes the alloc, the second is still a reshape
// of it (and buffer-results-to-out-params copies it out).
// CHECK-LABEL: func.func @twice
// CHECK: %[[R:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[C:.*]] = memref.collapse_shape %[[R]]
// CHECK: %[[E2:.*]] = memref.expand_shape %[[C]] {{\[}}[0, 1]] output_shape [4, 2]
// CHECK: return %[[R]], %[[E2]]
func.func @twice() -> (memref<2x4xf32>, memref<4x2xf32>) {
  %0 = memref.alloc() : memref<8xf32>
  %1 = memref.expand_shape %0 [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  %2 = memref.expand_shape %0 [[0, 1]] output_shape [4, 2] : memref<8xf32> into memref<4x2xf32>
  return %1, %2 : memref<2x4xf32>, memref<4x2xf32>
}
