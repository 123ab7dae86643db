// RUN: loom-opt %s -pass-pipeline='builtin.module(func.func(loom-tile-transposed-loops))' -split-input-file | FileCheck %s
// RUN: loom-opt %s -pass-pipeline='builtin.module(func.func(loom-tile-transposed-loops{tile-size=16}))' -split-input-file | FileCheck %s --check-prefix=T16
// RUN: not loom-opt %s -pass-pipeline='builtin.module(func.func(loom-tile-transposed-loops{tile-size=0}))' -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD --implicit-check-not="Stack dump"
// BAD: tile-size must be at least 1, got 0

// Tests that a transpose runs in 8 x 8 tiles: the tiles step through both dims, the
// innermost dim stays innermost, and the body reads and writes at the tile's offsets.
// CHECK-LABEL: func.func @transpose
// CHECK-DAG: %[[N:.*]] = arith.constant 1024 : index
// CHECK-DAG: %[[T0:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[T1:.*]] = arith.constant 8 : index
// CHECK: scf.parallel (%[[TI:.*]], %[[TJ:.*]]) = ({{.*}}) to (%[[N]], %[[N]]) step (%[[T0]], %[[T1]])
// CHECK-NEXT: scf.parallel (%[[II:.*]], %[[JJ:.*]]) = ({{.*}}) to (%[[T0]], %[[T1]]) step
// CHECK: %[[I:.*]] = arith.addi %[[TI]], %[[II]]
// CHECK: %[[J:.*]] = arith.addi %[[TJ]], %[[JJ]]
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[J]], %[[I]]]
// CHECK: memref.store %[[V]], %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT: arith.minsi
// T16-LABEL: func.func @transpose
// T16: arith.constant 16 : index
func.func @transpose(%x: memref<1024x1024xf32>, %out: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1024, %c1024) step (%c1, %c1) {
    %v = memref.load %x[%j, %i] : memref<1024x1024xf32>
    memref.store %v, %out[%i, %j] : memref<1024x1024xf32>
    scf.reduce
  }
  return
}

// -----

// Tests a batched transpose whose dims no tile size from 4 to 8 divides (13, 11): the
// batch dim is left whole, and each tile's extent is clamped at the dim's end.
// CHECK-LABEL: func.func @batched_clamped
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.parallel (%[[B:.*]], %[[TI:.*]], %[[TJ:.*]]) = {{.*}} step (%[[C1]], %c8{{.*}}, %c8{{.*}})
// CHECK: %[[LEFT_I:.*]] = arith.subi %{{.*}}, %[[TI]]
// CHECK: arith.minsi %{{.*}}, %[[LEFT_I]]
// CHECK: %[[LEFT_J:.*]] = arith.subi %{{.*}}, %[[TJ]]
// CHECK: arith.minsi %{{.*}}, %[[LEFT_J]]
// CHECK: scf.parallel
// CHECK: memref.load %{{.*}}[%[[B]], %{{.*}}, %{{.*}}]
func.func @batched_clamped(%x: memref<4x11x13xf32>, %out: memref<4x13x11xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c4, %c13, %c11) step (%c1, %c1, %c1) {
    %v = memref.load %x[%b, %j, %i] : memref<4x11x13xf32>
    memref.store %v, %out[%b, %i, %j] : memref<4x13x11xf32>
    scf.reduce
  }
  return
}

// -----

// Tests the tile as a divisor of the dim where one lies from 4 to 8: 6 for 12, 5 for 20.
// CHECK-LABEL: func.func @divisors
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: scf.parallel {{.*}} step (%[[C6]], %[[C5]])
// CHECK-NOT: arith.minsi
func.func @divisors(%x: memref<20x12xf32>, %out: memref<12x20xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c20 = arith.constant 20 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c12, %c20) step (%c1, %c1) {
    %v = memref.load %x[%j, %i] : memref<20x12xf32>
    memref.store %v, %out[%i, %j] : memref<12x20xf32>
    scf.reduce
  }
  return
}

// -----

// Tests what is left alone: contiguous accesses (a reorder of whole rows, as attention's
// heads are), a dim shorter than a tile, and a body with a loop (a reduction's).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK-NOT: arith.addi
func.func @left_alone(%x: memref<8x16x64xf32>, %out: memref<16x8x64xf32>,
                      %y: memref<1024x4xf32>, %out2: memref<4x1024xf32>,
                      %z: memref<64x64xf32>, %sums: memref<64xf32>,
                      %acc: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%h, %t, %d) = (%c0, %c0, %c0) to (%c16, %c8, %c64) step (%c1, %c1, %c1) {
    %v = memref.load %x[%t, %h, %d] : memref<8x16x64xf32>
    memref.store %v, %out[%h, %t, %d] : memref<16x8x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c1024) step (%c1, %c1) {
    %v = memref.load %y[%j, %i] : memref<1024x4xf32>
    memref.store %v, %out2[%i, %j] : memref<4x1024xf32>
    scf.reduce
  }
  scf.parallel (%i, %k) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %z[%k, %i] : memref<64x64xf32>
      %w = memref.load %sums[%j] : memref<64xf32>
      %p = arith.mulf %v, %w : f32
      %s = memref.load %acc[%i, %k] : memref<64x64xf32>
      %a = arith.addf %s, %p : f32
      memref.store %a, %acc[%i, %k] : memref<64x64xf32>
    }
    scf.reduce
  }
  return
}
