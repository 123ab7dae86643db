// RUN: loom-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(loom-gpu-collapse-loops,canonicalize))' | FileCheck %s
// RUN: loom-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(loom-gpu-collapse-loops))' | FileCheck %s --check-prefix=NESTED

// Tests of loom-gpu-collapse-loops (compiler/Lowering/GpuCollapseLoops.cpp).

// Tests that a 2-d loop over [1024, 512] becomes one loop over 524288 iterations whose
// index gives the row by division and the column by remainder, so that consecutive
// iterations (threads) touch consecutive elements.
// CHECK-LABEL: func.func @two_dims
// CHECK-DAG: %[[N:.*]] = arith.constant 524288 : index
// CHECK: scf.parallel (%[[K:[a-z0-9_]+]]) = (%{{.*}}) to (%[[N]]) step (%{{.*}})
// CHECK-DAG: arith.remsi %[[K]]
// CHECK-DAG: arith.divsi %[[K]]
// CHECK: memref.store
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @two_dims(%out: memref<1024x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1024, %c512) step (%c1, %c1) {
    memref.store %cst, %out[%i, %j] : memref<1024x512xf32>
    scf.reduce
  }
  return
}

// -----

// Tests that a 1-d loop, and a loop nested in another parallel loop, are left as they are
// (canonicalize would merge them first in the pipeline).
// NESTED-LABEL: func.func @left_alone
// NESTED: scf.parallel (%{{[a-z0-9_]+}}) = (%{{.*}}) to (%c8) step
// NESTED: scf.parallel (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) = (%{{.*}}, %{{.*}}) to (%c4, %c4) step
func.func @left_alone(%out: memref<8x4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.parallel (%j, %k) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      memref.store %cst, %out[%i, %j, %k] : memref<8x4x4xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}
