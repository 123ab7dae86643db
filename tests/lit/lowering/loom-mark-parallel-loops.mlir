// RUN: loom-opt %s -loom-mark-parallel-loops | FileCheck %s --check-prefix=MARK
// RUN: loom-opt %s -loom-mark-parallel-loops -convert-scf-to-cf -finalize-memref-to-llvm \
// RUN:   -convert-arith-to-llvm -convert-func-to-llvm -convert-cf-to-llvm \
// RUN:   -reconcile-unrealized-casts -loom-parallel-access-groups | FileCheck %s --check-prefix=LLVM

// Tests of loom-mark-parallel-loops and loom-parallel-access-groups: an innermost scf.parallel
// becomes an scf.for annotated as parallel, and after the LLVM lowering its latch carries
// the annotation and its loads and stores the access group, so that LLVM vectorizes it
// without checking whether the buffers overlap.

// MARK-DAG: #[[GROUP:.*]] = #llvm.access_group<id = distinct[{{[0-9]+}}]<>>
// MARK-DAG: #[[LOOP:.*]] = #llvm.loop_annotation<parallelAccesses = #[[GROUP]]>
// MARK-DAG: #[[GROUP2:.*]] = #llvm.access_group<id = distinct[{{[0-9]+}}]<>>
// MARK-DAG: #[[LOOP2:.*]] = #llvm.loop_annotation<parallelAccesses = #[[GROUP2]]>
// LLVM-DAG: #[[GROUP:.*]] = #llvm.access_group<id = distinct[{{[0-9]+}}]<>>
// LLVM-DAG: #[[LOOP:.*]] = #llvm.loop_annotation<parallelAccesses = #[[GROUP]]>

// Tests that the inner loop of a kernel over rows becomes an annotated scf.for (the outer
// loop stays as it is), and that after the lowering both the load and the store of the
// loop are in its group and the back edge carries the annotation.
// MARK-LABEL: func.func @rows
// MARK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// MARK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// MARK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// MARK: memref.store
// MARK-NOT: scf.reduce
// MARK: } {llvm.loop_annotation = #[[LOOP]]}
// MARK-NOT: scf.parallel
// LLVM-LABEL: llvm.func @rows
// LLVM: llvm.load %{{.*}} {access_groups = [#[[GROUP]]]} : !llvm.ptr -> f32
// LLVM: llvm.store %{{.*}} {access_groups = [#[[GROUP]]]} : f32, !llvm.ptr
// LLVM: llvm.br ^{{.*}} {loop_annotation = #[[LOOP]]}
// LLVM-NOT: llvm.loop_annotation
func.func @rows(%lo: index, %hi: index, %in: memref<8x64xf32>, %out: memref<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %lo to %hi step %c1 {
    scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
      %x = memref.load %in[%i, %j] : memref<8x64xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %out[%i, %j] : memref<8x64xf32>
      scf.reduce
    }
  }
  return
}

// Tests that a parallel loop over two dims becomes two loops, the inner one annotated (each
// loop with an access group of its own).
// MARK-LABEL: func.func @two_dims
// MARK: scf.for %[[I:.*]] = %{{.*}} to %[[C8:.*]] step
// MARK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %[[C64:.*]] step
// MARK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// MARK-NEXT: } {llvm.loop_annotation = #[[LOOP2]]}
// MARK-NEXT: }
// MARK-NEXT: return
func.func @two_dims(%m: memref<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
    memref.store %zero, %m[%i, %j] : memref<8x64xf32>
    scf.reduce
  }
  return
}

// Tests that a parallel loop with a reduction and one with a loop inside are left alone:
// the annotation would promise more than they do, or cover only part of their accesses.
// MARK-LABEL: func.func @left_alone
// MARK-NOT: llvm.loop_annotation
// MARK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) init
// MARK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// MARK: scf.for
// MARK-NOT: llvm.loop_annotation
// MARK: return
func.func @left_alone(%in: memref<64xf32>, %out: memref<64xf32>, %m: memref<8x64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%j) = (%c0) to (%c64) step (%c1) init (%zero) -> f32 {
    %x = memref.load %in[%j] : memref<64xf32>
    scf.reduce(%x : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
    scf.for %i = %c0 to %c8 step %c1 {
      %x = memref.load %m[%i, %j] : memref<8x64xf32>
      memref.store %x, %out[%j] : memref<64xf32>
    }
    scf.reduce
  }
  return %sum : f32
}
