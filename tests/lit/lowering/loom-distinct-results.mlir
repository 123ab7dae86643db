// RUN: loom-opt %s -loom-distinct-results -split-input-file | FileCheck %s

// Tests that a buffer returned twice is copied into a buffer of its own.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>)
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[X]], %[[COPY]]
// CHECK: return %[[X]], %[[COPY]]
func.func @twice(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  return %x, %x : memref<4xf32>, memref<4xf32>
}

// -----

// Tests that distinct results and private functions are left alone.
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: memref.copy
// CHECK: return %{{.*}}, %{{.*}} :
// CHECK-LABEL: func.func @distinct
// CHECK-NOT: memref.copy
func.func private @helper(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  return %x, %x : memref<4xf32>, memref<4xf32>
}
func.func @distinct(%x: memref<4xf32>, %y: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  return %x, %y : memref<4xf32>, memref<4xf32>
}
