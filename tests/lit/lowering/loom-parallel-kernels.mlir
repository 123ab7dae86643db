// RUN: loom-opt %s -loom-parallel-kernels="min-work=1024 chunk-work=256" | FileCheck %s

// Tests of loom-parallel-kernels: a kernel whose body is one large scf.parallel takes the
// range [lo, hi) of its leading iterations as two new arguments and is marked with their
// extent and the fewest worth a chunk; its callers pass the whole range. Short leading dims
// are flattened into one range (the last dim stays a loop, unless the body loops over the
// contiguous dim itself, as a row reduction does); a strided loop's induction
// variable is recomputed from the flat iteration; a kernel below min-work is left alone.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64x64xf32>, %[[B:[a-z0-9_]+]]: memref<64x64xf32>, %[[S:[a-z0-9_]+]]: memref<4x8x256xf32>, %[[T:[a-z0-9_]+]]: memref<16xf32>, %[[U:[a-z0-9_]+]]: memref<4100xf32>, %[[R:[a-z0-9_]+]]: memref<8x16x32xf32>)
// CHECK-DAG: %[[Z0:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK-DAG: %[[N64:[a-z0-9_]+]] = arith.constant 64 : index
// CHECK: call @scale(%[[Z0]], %[[N64]], %[[A]], %[[B]])
// CHECK: call @scale(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[B]], %[[A]])
// CHECK: %[[N32:[a-z0-9_]+]] = arith.constant 32 : index
// CHECK-NEXT: call @deep(%{{[a-z0-9_]+}}, %[[N32]], %[[S]])
// CHECK-NEXT: call @small(%[[T]])
// CHECK: %[[N128:[a-z0-9_]+]] = arith.constant 128 : index
// CHECK-NEXT: call @rows(%{{[a-z0-9_]+}}, %[[N128]], %[[R]])
// CHECK: %[[N2048:[a-z0-9_]+]] = arith.constant 2048 : index
// CHECK-NEXT: call @strided(%{{[a-z0-9_]+}}, %[[N2048]], %[[U]])
// CHECK: call @clamped(

// 8 x 16 rows whose body loops along each row: both row dims are one range of 128, the
// row's 32 + 1 iterations each (the chunks spread over rows, not over 8 outer blocks).
// CHECK-LABEL: func.func private @rows
// CHECK-SAME: loom.parallel_extent = 128 : i64, loom.parallel_grain = 8 : i64
// CHECK: arith.remui
// CHECK: arith.divui
// CHECK: scf.for

// 64 x 64: the 64 rows are split, each row's 64 columns stay an scf.parallel; a row is 64
// iterations, so a chunk of 256 takes 4 rows.
// CHECK-LABEL: func.func private @scale
// CHECK-SAME: (%[[LO:[a-z0-9_]+]]: index, %[[HI:[a-z0-9_]+]]: index, %[[X:[a-z0-9_]+]]: memref<64x64xf32>, %[[Y:[a-z0-9_]+]]: memref<64x64xf32>)
// CHECK-SAME: attributes {loom.parallel_extent = 64 : i64, loom.parallel_grain = 4 : i64, passthrough = ["noinline"]}
// CHECK: scf.for %[[F:[a-z0-9_]+]] = %[[LO]] to %[[HI]] step
// CHECK: %[[ROW:[a-z0-9_]+]] = arith.addi
// CHECK-NEXT: scf.parallel (%[[J:[a-z0-9_]+]]) =
// CHECK-NEXT: memref.load %[[X]][%[[ROW]], %[[J]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: memref.store %{{.*}}, %[[Y]][%[[ROW]], %[[J]]]

// 4 x 8 x 256: the 4 x 8 leading dims are one range of 32 (rem/div by 8), 256 per iteration.
// CHECK-LABEL: func.func private @deep
// CHECK-SAME: (%[[LO:[a-z0-9_]+]]: index, %[[HI:[a-z0-9_]+]]: index, %[[X:[a-z0-9_]+]]: memref<4x8x256xf32>)
// CHECK-SAME: attributes {loom.parallel_extent = 32 : i64, loom.parallel_grain = 1 : i64
// CHECK: scf.for %[[F:[a-z0-9_]+]] = %[[LO]] to %[[HI]] step
// CHECK-NEXT: %[[C8:[a-z0-9_]+]] = arith.constant 8 : index
// CHECK-NEXT: %[[J:[a-z0-9_]+]] = arith.remui %[[F]], %[[C8]]
// CHECK-NEXT: %[[I:[a-z0-9_]+]] = arith.divui %[[F]], %[[C8]]
// CHECK: scf.parallel (%[[K:[a-z0-9_]+]]) =
// CHECK-NEXT: memref.store %{{.*}}, %[[X]][%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[K]]]

// CHECK-LABEL: func.func private @small
// CHECK-SAME: (%{{[a-z0-9_]+}}: memref<16xf32>) attributes {passthrough = ["noinline"]}
// CHECK-NEXT: arith.constant
// CHECK-NOT: scf.for
// CHECK: scf.parallel

// One dim from 2 by 2: iteration f is index 2 + 2 f; no loop is left inside.
// CHECK-LABEL: func.func private @strided
// CHECK-SAME: (%[[LO:[a-z0-9_]+]]: index, %[[HI:[a-z0-9_]+]]: index, %[[X:[a-z0-9_]+]]: memref<4100xf32>)
// CHECK-SAME: loom.parallel_extent = 2048 : i64, loom.parallel_grain = 256 : i64
// CHECK-DAG: %[[C2:[a-z0-9_]+]] = arith.constant 2 : index
// CHECK: scf.for %[[F:[a-z0-9_]+]] = %[[LO]] to %[[HI]] step
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.muli %[[F]], %[[C2]]
// CHECK-NEXT: %[[I:[a-z0-9_]+]] = arith.addi %[[C2]], %[[M]]
// CHECK-NEXT: memref.store %{{.*}}, %[[X]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return

// Tiles of 8 x 8 clamped at the end of a dim of 100 (loom-tile-transposed-loops): each of
// the 13 x 13 tiles counts as its 64 iterations, not as one (which would leave 338 < 1024).
// CHECK-LABEL: func.func private @clamped
// CHECK-SAME: loom.parallel_extent = 169 : i64, loom.parallel_grain = 4 : i64
func.func @main(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %s: memref<4x8x256xf32>, %t: memref<16xf32>, %u: memref<4100xf32>, %r: memref<8x16x32xf32>) {
  call @scale(%a, %b) : (memref<64x64xf32>, memref<64x64xf32>) -> ()
  call @scale(%b, %a) : (memref<64x64xf32>, memref<64x64xf32>) -> ()
  call @deep(%s) : (memref<4x8x256xf32>) -> ()
  call @small(%t) : (memref<16xf32>) -> ()
  call @rows(%r) : (memref<8x16x32xf32>) -> ()
  call @strided(%u) : (memref<4100xf32>) -> ()
  %c = memref.alloc() : memref<100x100xf32>
  call @clamped(%c) : (memref<100x100xf32>) -> ()
  memref.dealloc %c : memref<100x100xf32>
  return
}
func.func private @rows(%x: memref<8x16x32xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c1) {
    scf.for %k = %c0 to %c32 step %c1 {
      memref.store %one, %x[%i, %j, %k] : memref<8x16x32xf32>
    }
  }
  return
}
func.func private @scale(%x: memref<64x64xf32>, %y: memref<64x64xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x64xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %y[%i, %j] : memref<64x64xf32>
  }
  return
}
func.func private @deep(%x: memref<4x8x256xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c4, %c8, %c256) step (%c1, %c1, %c1) {
    memref.store %one, %x[%i, %j, %k] : memref<4x8x256xf32>
  }
  return
}
func.func private @small(%x: memref<16xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    memref.store %one, %x[%i] : memref<16xf32>
  }
  return
}
func.func private @strided(%x: memref<4100xf32>) attributes {passthrough = ["noinline"]} {
  %c2 = arith.constant 2 : index
  %c4098 = arith.constant 4098 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c2) to (%c4098) step (%c2) {
    memref.store %one, %x[%i] : memref<4100xf32>
  }
  return
}
func.func private @clamped(%x: memref<100x100xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c100 = arith.constant 100 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%ti, %tj) = (%c0, %c0) to (%c100, %c100) step (%c8, %c8) {
    %li = arith.subi %c100, %ti : index
    %ni = arith.minsi %c8, %li : index
    %lj = arith.subi %c100, %tj : index
    %nj = arith.minsi %c8, %lj : index
    scf.parallel (%i, %j) = (%c0, %c0) to (%ni, %nj) step (%c1, %c1) {
      %r = arith.addi %ti, %i : index
      %c = arith.addi %tj, %j : index
      memref.store %one, %x[%c, %r] : memref<100x100xf32>
    }
  }
  return
}
