// RUN: loom-opt %s -loom-parallel-kernels="min-work=1024 chunk-work=256" -loom-prefetch-updates | FileCheck %s

// Tests of loom-prefetch-updates: a chunked kernel that loads and stores the same elements
// of a buffer (an optimizer's update in place) asks for the lines of a row ahead for
// writing, before its loop along the row: a row of at least 1 KB on (2 KB rows: the next
// row; 256-byte rows: 4 rows on), never past the chunk's last row, one prefetch per 64-byte
// line, for each buffer updated in place and none for the buffers it only reads or only
// writes. Rows under 256 bytes are left alone; leading dims flattened into one range get
// the row's indices computed again from the row ahead.

// 784 x 512: p and m are updated in place, g is only read: the next row of p and of m.
// CHECK-LABEL: func.func private @update
// CHECK-SAME: (%[[LO:[a-z0-9_]+]]: index, %[[HI:[a-z0-9_]+]]: index, %[[P:[a-z0-9_]+]]: memref<784x512xf32>, %[[M:[a-z0-9_]+]]: memref<784x512xf32>, %[[G:[a-z0-9_]+]]: memref<784x512xf32>)
// CHECK: scf.for %[[F:[a-z0-9_]+]] = %[[LO]] to %[[HI]] step
// CHECK: %[[LAST:[a-z0-9_]+]] = arith.subi %[[HI]], %{{[a-z0-9_]+}} : index
// CHECK: %[[AHEAD:[a-z0-9_]+]] = arith.addi %[[F]], %{{[a-z0-9_]+}} : index
// CHECK: %[[NEXT:[a-z0-9_]+]] = arith.minui %[[AHEAD]], %[[LAST]] : index
// CHECK: %[[ROW:[a-z0-9_]+]] = arith.addi %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : index
// CHECK: %[[C16:[a-z0-9_]+]] = arith.constant 16 : index
// CHECK: scf.for %[[K:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %{{[a-z0-9_]+}} step %[[C16]] {
// CHECK-NEXT: memref.prefetch %[[M]][%[[ROW]], %[[K]]], write, locality<3>, data : memref<784x512xf32>
// CHECK-NEXT: memref.prefetch %[[P]][%[[ROW]], %[[K]]], write, locality<3>, data : memref<784x512xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.parallel
// CHECK-NOT: memref.prefetch
// CHECK: return

// 4 x 8 x 256: the leading dims are one range; the row ahead's two indices come from it
// again (rem/div by 8).
// CHECK-LABEL: func.func private @deep
// CHECK: scf.for %[[F:[a-z0-9_]+]] =
// CHECK: %[[NEXT:[a-z0-9_]+]] = arith.minui
// CHECK: arith.remui %[[NEXT]]
// CHECK: arith.divui %[[NEXT]]
// CHECK: memref.prefetch
// CHECK-SAME: write, locality<3>, data : memref<4x8x256xf32>
// CHECK: scf.parallel

// 512 x 64 floats: 256-byte rows, 4 on; 4 lines a row.
// CHECK-LABEL: func.func private @narrow
// CHECK: %[[C4:[a-z0-9_]+]] = arith.constant 4 : index
// CHECK: arith.addi %{{[a-z0-9_]+}}, %[[C4]] : index
// CHECK: %[[C16:[a-z0-9_]+]] = arith.constant 16 : index
// CHECK: scf.for %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}} to %c64 step %[[C16]] {
// CHECK-NEXT: memref.prefetch

// Written from another buffer, not read: nothing asked for.
// CHECK-LABEL: func.func private @copy
// CHECK-NOT: memref.prefetch
// CHECK: return

// 128-byte rows: left alone.
// CHECK-LABEL: func.func private @short
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @main(%p: memref<784x512xf32>, %m: memref<784x512xf32>, %g: memref<784x512xf32>, %s: memref<4x8x256xf32>, %n: memref<512x64xf32>, %t: memref<256x32xf32>) {
  call @update(%p, %m, %g) : (memref<784x512xf32>, memref<784x512xf32>, memref<784x512xf32>) -> ()
  call @deep(%s) : (memref<4x8x256xf32>) -> ()
  call @narrow(%n) : (memref<512x64xf32>) -> ()
  call @copy(%p, %g) : (memref<784x512xf32>, memref<784x512xf32>) -> ()
  call @short(%t) : (memref<256x32xf32>) -> ()
  return
}
func.func private @update(%p: memref<784x512xf32>, %m: memref<784x512xf32>, %g: memref<784x512xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c784 = arith.constant 784 : index
  %c512 = arith.constant 512 : index
  %beta = arith.constant 0.9 : f32
  %lr = arith.constant 0.01 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c784, %c512) step (%c1, %c1) {
    %pv = memref.load %p[%i, %j] : memref<784x512xf32>
    %mv = memref.load %m[%i, %j] : memref<784x512xf32>
    %gv = memref.load %g[%i, %j] : memref<784x512xf32>
    %decayed = arith.mulf %mv, %beta : f32
    %moment = arith.addf %decayed, %gv : f32
    %step = arith.mulf %moment, %lr : f32
    %updated = arith.subf %pv, %step : f32
    memref.store %moment, %m[%i, %j] : memref<784x512xf32>
    memref.store %updated, %p[%i, %j] : memref<784x512xf32>
  }
  return
}
func.func private @deep(%x: memref<4x8x256xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c4, %c8, %c256) step (%c1, %c1, %c1) {
    %v = memref.load %x[%i, %j, %k] : memref<4x8x256xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %x[%i, %j, %k] : memref<4x8x256xf32>
  }
  return
}
func.func private @narrow(%x: memref<512x64xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c64) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<512x64xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %x[%i, %j] : memref<512x64xf32>
  }
  return
}
func.func private @copy(%x: memref<784x512xf32>, %y: memref<784x512xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c784 = arith.constant 784 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c784, %c512) step (%c1, %c1) {
    %v = memref.load %y[%i, %j] : memref<784x512xf32>
    memref.store %v, %x[%i, %j] : memref<784x512xf32>
  }
  return
}
func.func private @short(%x: memref<256x32xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c32) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<256x32xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %x[%i, %j] : memref<256x32xf32>
  }
  return
}
