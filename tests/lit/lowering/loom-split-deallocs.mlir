// RUN: loom-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(loom-split-deallocs))' | FileCheck %s

// Distinct allocations: one dealloc each, with its own condition.
// CHECK-LABEL: func.func @distinct
// CHECK-SAME:    (%[[C:.*]]: i1)
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    bufferization.dealloc (%[[A]] : memref<4xf32>) if (%true)
// CHECK-NEXT:    bufferization.dealloc (%[[B]] : memref<8xf32>) if (%[[C]])
// CHECK-NEXT:    return
func.func @distinct(%c: i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  bufferization.dealloc (%a, %b : memref<4xf32>, memref<8xf32>) if (%true, %c)
  return
}

// -----

// A dealloc that retains a buffer answers whether it is still owned: left alone.
// CHECK-LABEL: func.func @retained
// CHECK:         bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) if (%{{.*}}, %{{.*}}) retain
func.func @retained(%r: memref<4xf32>) -> i1 {
  %true = arith.constant true
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %o = bufferization.dealloc (%a, %b : memref<4xf32>, memref<4xf32>) if (%true, %true) retain (%r : memref<4xf32>)
  return %o : i1
}

// -----

// A buffer that is not an allocation of its own (an argument, which may alias one): left
// alone for buffer-deallocation-simplification to check.
// CHECK-LABEL: func.func @argument
// CHECK:         bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) if
// CHECK-NEXT:    return
func.func @argument(%m: memref<4xf32>, %c: i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%a, %m : memref<4xf32>, memref<4xf32>) if (%true, %c)
  return
}
