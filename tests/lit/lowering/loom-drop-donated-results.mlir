// RUN: loom-opt %s -loom-drop-donated-results -split-input-file | FileCheck %s

// Tests that a result living in its donated argument is dropped and recorded, while the
// other results keep their own buffers.
// CHECK-LABEL: func.func @step
// CHECK-SAME: -> memref<f32>
// CHECK-SAME: attributes {loom.output_aliases = array<i64: 0, -1>}
// CHECK: return %{{.*}} : memref<f32>
func.func @step(%p: memref<4xf32> {loom.aliased_output = 0 : i64}, %s: memref<f32>)
    -> (memref<4xf32>, memref<f32>) {
  return %p, %s : memref<4xf32>, memref<f32>
}

// -----

// Tests that a result bufferization did not place in its argument keeps its output buffer.
// CHECK-LABEL: func.func @elsewhere
// CHECK-SAME: -> memref<4xf32> {
// CHECK: return %{{.*}} : memref<4xf32>
func.func @elsewhere(%p: memref<4xf32> {loom.aliased_output = 0 : i64}) -> memref<4xf32> {
  %0 = memref.alloc() : memref<4xf32>
  return %0 : memref<4xf32>
}
