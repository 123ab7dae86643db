// RUN: loom-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(loom-gpu-atomic-scatter))' | FileCheck %s

// Tests of loom-gpu-atomic-scatter (compiler/Lowering/GpuAtomicScatter.cpp).

// Tests that a scatter-add's loop (as the scatter lowering and bufferization leave it: load the
// row index, copy the target row, add the update in a parallel loop) becomes one parallel loop
// over (update, element) that adds with an atomic, without the row copy.
// CHECK-LABEL: func.func @scatter_add
// CHECK-NOT: scf.for
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%c4, %c8)
// CHECK: memref.load %arg1[%[[I]]]
// CHECK: %[[DST:.*]] = memref.subview %arg0
// CHECK: %[[U:.*]] = memref.load {{.*}}[%c0, %[[J]]]
// CHECK-NEXT: memref.atomic_rmw addf %[[U]], %[[DST]][%c0, %[[J]]]
// CHECK-NOT: memref.copy
// CHECK: return
func.func @scatter_add(%table: memref<16x8xf32>, %rows: memref<4xi32>, %upd: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %r32 = memref.load %rows[%i] : memref<4xi32>
    %r = arith.index_cast %r32 : i32 to index
    %src = memref.subview %upd[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
    %dst = memref.subview %table[%r, 0] [1, 8] [1, 1] : memref<16x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
    %tmp = memref.alloc() {alignment = 64 : i64} : memref<1x8xf32>
    memref.copy %dst, %tmp : memref<1x8xf32, strided<[8, 1], offset: ?>> to memref<1x8xf32>
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      %a = memref.load %tmp[%c0, %j] : memref<1x8xf32>
      %b = memref.load %src[%c0, %j] : memref<1x8xf32, strided<[8, 1], offset: ?>>
      %s = arith.addf %a, %b : f32
      memref.store %s, %dst[%c0, %j] : memref<1x8xf32, strided<[8, 1], offset: ?>>
      scf.reduce
    }
    memref.dealloc %tmp : memref<1x8xf32>
  } {scatter_add}
  return
}

// -----

// Tests that a loop without the scatter_add mark is left alone.
// CHECK-LABEL: func.func @unmarked
// CHECK: scf.for
// CHECK-NOT: atomic_rmw
func.func @unmarked(%table: memref<16x8xf32>, %rows: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %r32 = memref.load %rows[%i] : memref<4xi32>
    %r = arith.index_cast %r32 : i32 to index
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      %a = memref.load %table[%r, %j] : memref<16x8xf32>
      %s = arith.addf %a, %one : f32
      memref.store %s, %table[%r, %j] : memref<16x8xf32>
      scf.reduce
    }
  }
  return
}
