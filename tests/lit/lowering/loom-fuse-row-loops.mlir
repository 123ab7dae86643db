// RUN: loom-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(loom-fuse-row-loops))' | FileCheck %s

// Tests of loom-fuse-row-loops: consecutive loop nests over the same rows, each writing or
// reading shared buffers only in the current row, become one loop over the rows (the other
// dims sequential loops inside it, an allocation between them moved before). Nests are
// left apart when one reads another row of a buffer the other writes (a transpose), when
// there are too few rows for the device's threads, when a call lies between them, or when a
// buffer is reached through a view the pass does not follow.

// A layer norm's centring: the row sum (its zero fill first), then x - sum / 256.
// CHECK-LABEL: func.func @centre
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: memref<128x256xf32>, %[[OUT:[a-z0-9_]+]]: memref<128x256xf32>)
// CHECK: %[[SUM:[a-z0-9_]+]] = memref.alloc() : memref<128xf32>
// CHECK-NEXT: %[[VIEW:[a-z0-9_]+]] = memref.expand_shape %[[SUM]]
// CHECK-NEXT: scf.parallel (%[[I:[a-z0-9_]+]]) =
// CHECK-NEXT: memref.store %{{.*}}, %[[SUM]][%[[I]]]
// CHECK-NEXT: %[[INIT:[a-z0-9_]+]] = memref.load %[[SUM]][%[[I]]]
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32) {
// CHECK: memref.store %[[S]], %[[SUM]][%[[I]]]
// CHECK-NEXT: scf.for %[[K:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load %[[X]][%[[I]], %[[K]]]
// CHECK-NEXT: memref.load %[[VIEW]][%[[I]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[I]], %[[K]]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @centre(%x: memref<128x256xf32>, %out: memref<128x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %sum = memref.alloc() : memref<128xf32>
  scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
    memref.store %zero, %sum[%i] : memref<128xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
    %init = memref.load %sum[%i] : memref<128xf32>
    %s = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<128x256xf32>
      %a = arith.addf %v, %acc : f32
      scf.yield %a : f32
    }
    memref.store %s, %sum[%i] : memref<128xf32>
    scf.reduce
  }
  %view = memref.expand_shape %sum [[0, 1]] output_shape [128, 1] : memref<128xf32> into memref<128x1xf32>
  scf.parallel (%i, %k) = (%c0, %c0) to (%c128, %c256) step (%c1, %c1) {
    %v = memref.load %x[%i, %k] : memref<128x256xf32>
    %s = memref.load %view[%i, %c0] : memref<128x1xf32>
    %m = arith.divf %s, %n : f32
    %d = arith.subf %v, %m : f32
    memref.store %d, %out[%i, %k] : memref<128x256xf32>
    scf.reduce
  }
  return
}

// -----

// Two elementwise nests over the same elements: one nest over both dims.
// CHECK-LABEL: func.func @same_elements
// CHECK: scf.parallel (%[[I:[a-z0-9_]+]], %[[J:[a-z0-9_]+]]) =
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: memref.store
// CHECK-NEXT: scf.reduce
// CHECK-NOT: scf.parallel
func.func @same_elements(%x: memref<128x64xf32>, %t: memref<128x64xf32>, %y: memref<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c64) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<128x64xf32>
    memref.store %v, %t[%i, %j] : memref<128x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c64) step (%c1, %c1) {
    %v = memref.load %t[%i, %j] : memref<128x64xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %y[%i, %j] : memref<128x64xf32>
    scf.reduce
  }
  return
}

// -----

// The second nest reads the first's result transposed: row i needs every row's result.
// CHECK-LABEL: func.func @transposed_read
// CHECK: scf.parallel
// CHECK: scf.parallel
func.func @transposed_read(%x: memref<128x128xf32>, %t: memref<128x128xf32>, %y: memref<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c128) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<128x128xf32>
    memref.store %v, %t[%i, %j] : memref<128x128xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c128) step (%c1, %c1) {
    %v = memref.load %t[%j, %i] : memref<128x128xf32>
    memref.store %v, %y[%i, %j] : memref<128x128xf32>
    scf.reduce
  }
  return
}

// -----

// 8 rows would leave a many-core device idle; a call between two nests may touch any
// buffer; a subview is not followed.
// CHECK-LABEL: func.func @left_apart
// CHECK-COUNT-5: scf.parallel
// CHECK-NOT: scf.parallel
func.func private @touch(memref<128x64xf32>)
func.func @left_apart(%x: memref<8x64xf32>, %y: memref<8x64xf32>, %a: memref<128x64xf32>,
                      %b: memref<128x64xf32>, %big: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %f, %x[%i, %c0] : memref<8x64xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i, %c0] : memref<8x64xf32>
    memref.store %v, %y[%i, %c0] : memref<8x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c64) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<128x64xf32>
    scf.reduce
  }
  func.call @touch(%a) : (memref<128x64xf32>) -> ()
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c64) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<128x64xf32>
    memref.store %v, %b[%i, %j] : memref<128x64xf32>
    scf.reduce
  }
  %half = memref.subview %big[0, 0] [128, 64] [1, 1] : memref<256x64xf32> to memref<128x64xf32, strided<[64, 1]>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c64) step (%c1, %c1) {
    %v = memref.load %b[%i, %j] : memref<128x64xf32>
    memref.store %v, %half[%i, %j] : memref<128x64xf32, strided<[64, 1]>>
    scf.reduce
  }
  return
}
