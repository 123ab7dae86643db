// RUN: loom-opt %s -loom-sink-deallocs -split-input-file | FileCheck %s

// Tests that a temporary is freed right after its last use, and that a use through a view or
// through a pointer extracted for a call keeps it alive until that use.
// CHECK-LABEL: func.func @temporaries
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK: memref.copy %[[A]], %{{.*}}
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: %[[V:.*]] = memref.collapse_shape %[[B]]
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[V]]
// CHECK: %[[I:.*]] = arith.index_cast %[[P]]
// CHECK-NEXT: call @use(%[[I]])
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: call @later()
// CHECK-NEXT: return
func.func private @use(i64)
func.func private @later()
func.func @temporaries(%x: memref<4xf32>, %y: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<2x2xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  memref.copy %a, %y : memref<4xf32> to memref<4xf32>
  %v = memref.collapse_shape %b [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  %p = memref.extract_aligned_pointer_as_index %v : memref<4xf32> -> index
  %i = arith.index_cast %p : index to i64
  call @use(%i) : (i64) -> ()
  call @later() : () -> ()
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<2x2xf32>
  return
}

// -----

// Tests that a use inside a loop counts as a use by the loop.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK: memref.load %[[A:.*]][
// CHECK: }
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: call @later()
func.func private @later()
func.func @loop(%out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %a[%i] : memref<4xf32>
    memref.store %v, %out[] : memref<f32>
  }
  call @later() : () -> ()
  memref.dealloc %a : memref<4xf32>
  return
}
