// RUN: loom-opt %s -loom-dispatch-parallel-kernels | FileCheck %s

// Tests of loom-dispatch-parallel-kernels: a kernel marked loom.parallel_extent/grain takes
// (context, lo, hi) and loads its other arguments from the context struct in a new entry
// block; each call stores the arguments into one struct on the caller's stack (allocated
// once per caller and kernel) and calls loom_rt_parallel_for with the kernel's address, the
// extent and the grain. Calls of unmarked functions stay as they are.

// CHECK: llvm.func @loom_rt_parallel_for(!llvm.ptr, !llvm.ptr, i64, i64)
// CHECK-LABEL: llvm.func @step
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: !llvm.ptr, %[[Q:[a-z0-9_]+]]: !llvm.ptr, %[[S:[a-z0-9_]+]]: f32)
// CHECK: %[[FRAME:[a-z0-9_]+]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, f32)>
// CHECK-NOT: llvm.alloca
// CHECK: %[[F0:[a-z0-9_]+]] = llvm.getelementptr %[[FRAME]][0, 0]
// CHECK-NEXT: llvm.store %[[P]], %[[F0]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[F1:[a-z0-9_]+]] = llvm.getelementptr %[[FRAME]][0, 1]
// CHECK-NEXT: llvm.store %[[S]], %[[F1]] : f32, !llvm.ptr
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = llvm.mlir.addressof @k : !llvm.ptr
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: llvm.call @loom_rt_parallel_for(%[[K]], %[[FRAME]], %[[N]], %[[G]])
// CHECK: llvm.store %[[Q]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.call @loom_rt_parallel_for(%{{.*}}, %[[FRAME]], %{{.*}}, %{{.*}})
// CHECK-NOT: llvm.call @k
// CHECK: llvm.call @serial(%[[P]])

// CHECK-LABEL: llvm.func @k
// CHECK-SAME: (%[[CTX:[a-z0-9_]+]]: !llvm.ptr, %[[LO:[a-z0-9_]+]]: i64, %[[HI:[a-z0-9_]+]]: i64)
// CHECK-NEXT: %[[A0:[a-z0-9_]+]] = llvm.getelementptr %[[CTX]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, f32)>
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = llvm.load %[[A0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[A1:[a-z0-9_]+]] = llvm.getelementptr %[[CTX]][0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, f32)>
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = llvm.load %[[A1]] : !llvm.ptr -> f32
// CHECK-NEXT: llvm.br ^bb1(%[[LO]], %[[HI]], %[[X]], %[[V]] : i64, i64, !llvm.ptr, f32)
llvm.func @step(%p: !llvm.ptr, %q: !llvm.ptr, %s: f32) attributes {passthrough = ["optnone", "noinline"]} {
  %lo = llvm.mlir.constant(0 : i64) : i64
  %hi = llvm.mlir.constant(64 : i64) : i64
  llvm.call @k(%lo, %hi, %p, %s) : (i64, i64, !llvm.ptr, f32) -> ()
  llvm.call @k(%lo, %hi, %q, %s) : (i64, i64, !llvm.ptr, f32) -> ()
  llvm.call @serial(%p) : (!llvm.ptr) -> ()
  llvm.return
}
llvm.func @k(%lo: i64, %hi: i64, %x: !llvm.ptr, %s: f32) attributes {loom.parallel_extent = 64 : i64, loom.parallel_grain = 4 : i64, passthrough = ["noinline"]} {
  llvm.br ^loop(%lo : i64)
^loop(%i: i64):
  %done = llvm.icmp "sge" %i, %hi : i64
  llvm.cond_br %done, ^exit, ^body
^body:
  %a = llvm.getelementptr %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  llvm.store %s, %a : f32, !llvm.ptr
  %one = llvm.mlir.constant(1 : i64) : i64
  %next = llvm.add %i, %one : i64
  llvm.br ^loop(%next : i64)
^exit:
  llvm.return
}
llvm.func @serial(%x: !llvm.ptr) attributes {passthrough = ["noinline"]} {
  llvm.return
}
