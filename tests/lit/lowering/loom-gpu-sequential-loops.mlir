// RUN: loom-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(loom-gpu-sequential-loops))' | FileCheck %s

// Tests of loom-gpu-sequential-loops (compiler/Lowering/GpuSequentialLoops.cpp).

// Tests that a scatter-add (a loop that loads each row's index from memory, copies the row
// out and adds to it with a parallel loop) becomes sequential as a whole: the parallel loop a
// for loop, the copy loads and stores, and the row's temporary allocated once around it.
// CHECK-LABEL: func.func @scatter_add
// CHECK: %[[TMP:.*]] = memref.alloc() {{.*}} : memref<1x8xf32>
// CHECK-NEXT: scf.for %[[R:.*]] =
// CHECK: memref.load %arg1[%[[R]]]
// CHECK-NOT: memref.copy
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.store {{.*}}, %[[TMP]]
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: }
// CHECK: memref.dealloc %[[TMP]]
// CHECK-NEXT: return
func.func @scatter_add(%table: memref<16x8xf32>, %rows: memref<4xi32>, %upd: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %r32 = memref.load %rows[%i] : memref<4xi32>
    %r = arith.index_cast %r32 : i32 to index
    %dst = memref.subview %table[%r, 0] [1, 8] [1, 1] : memref<16x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
    %src = memref.subview %upd[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
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
  }
  return
}

// -----

// Tests that a loop whose only memory accesses are inside its parallel loop is left alone
// (its parallel loop becomes a kernel the host launches per iteration).
// CHECK-LABEL: func.func @no_reads
// CHECK: scf.for
// CHECK: scf.parallel
func.func @no_reads(%out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      memref.store %cst, %out[%i, %j] : memref<4x8xf32>
      scf.reduce
    }
  }
  return
}
