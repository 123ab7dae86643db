// RUN: loom-opt %s -loom-pointer-buffers -split-input-file | FileCheck %s
// RUN: loom-opt %s -loom-pointer-buffers -split-input-file -finalize-memref-to-llvm -convert-arith-to-llvm -loom-func-to-llvm -reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// Tests that a buffer allocated for a call and freed after it is the allocator's pointer,
// that a reshape of it is the same pointer, and that the callee takes pointers: an argument
// only passed on stays a pointer, one an op reads whole gets a descriptor at the entry.
// CHECK-LABEL: func.func private @layer
// CHECK-SAME: (%[[X:.*]]: !llvm.ptr, %[[Y:.*]]: !llvm.ptr)
// CHECK: %[[XD:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<8x256xf32>
// CHECK: memref.load %[[XD]]
// CHECK: call @inner(%[[Y]])
// CHECK-LABEL: func.func private @inner
// CHECK-SAME: (%{{.*}}: !llvm.ptr)
// CHECK-LABEL: func.func private @step
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr)
// CHECK-NOT: memref.alloc
// CHECK: %[[SIZE:.*]] = llvm.mlir.constant(8192 : i64) : i64
// CHECK: %[[A:.*]] = llvm.call @_mlir_memref_to_llvm_alloc(%[[SIZE]])
// CHECK: call @layer(%[[P]], %[[A]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK: %[[ALIGN:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK: %[[B:.*]] = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%[[ALIGN]], %{{.*}})
// CHECK: call @inner(%[[B]])
// CHECK: llvm.call @_mlir_memref_to_llvm_free(%[[A]])
// CHECK: llvm.call @_mlir_memref_to_llvm_free(%[[B]])
// CHECK-NOT: memref.dealloc
// LLVM-LABEL: llvm.func @step
// LLVM-NOT: llvm.insertvalue
// LLVM: llvm.return
func.func private @layer(%x: memref<8x256xf32>, %y: memref<8x256xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0, %c0] : memref<8x256xf32>
  memref.store %v, %x[%c0, %c0] : memref<8x256xf32>
  call @inner(%y) : (memref<8x256xf32>) -> ()
  return
}
func.func private @inner(%y: memref<8x256xf32>) {
  return
}
func.func private @step(%p: memref<8x256xf32> {loom.aliased_output = 0 : i64}) {
  %a = memref.alloc() : memref<8x256xf32>
  call @layer(%p, %a) : (memref<8x256xf32>, memref<8x256xf32>) -> ()
  %b = memref.alloc() {alignment = 64 : i64} : memref<2048xf32>
  %e = memref.expand_shape %b [[0, 1]] output_shape [8, 256] : memref<2048xf32> into memref<8x256xf32>
  call @inner(%e) : (memref<8x256xf32>) -> ()
  memref.dealloc %a : memref<8x256xf32>
  memref.dealloc %b : memref<2048xf32>
  return
}
// The entry calls @step (twice): public, so it keeps buffers; what it passes is the
// pointer it described, and the descriptor goes.
func.func @entry(%buffers: !llvm.ptr) {
  %0 = llvm.load %buffers : !llvm.ptr -> !llvm.ptr
  %1 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  %2 = llvm.insertvalue %0, %1[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  %3 = llvm.insertvalue %0, %2[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  %4 = builtin.unrealized_conversion_cast %3 : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<8x256xf32>
  call @step(%4) : (memref<8x256xf32>) -> ()
  call @step(%4) : (memref<8x256xf32>) -> ()
  return
}
// CHECK-LABEL: func.func @entry
// CHECK: %[[DATA:.*]] = llvm.load
// CHECK-NOT: llvm.insertvalue
// CHECK-NOT: unrealized_conversion_cast
// CHECK: call @step(%[[DATA]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: call @step(%[[DATA]]) : (!llvm.ptr) -> ()

// -----

// Tests that a buffer an op reads whole keeps its descriptor and passes its aligned pointer,
// and that a function whose address is taken, or that takes a dynamic buffer, keeps buffers.
// CHECK-LABEL: func.func private @takes
// CHECK-SAME: !llvm.ptr
// CHECK-LABEL: func.func private @dynamic
// CHECK-SAME: memref<?xf32>
// CHECK-LABEL: func.func private @addressed
// CHECK-SAME: memref<4xf32>
// CHECK-LABEL: func.func private @caller
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: %[[I:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[I64]]
// CHECK: call @takes(%[[PTR]])
// CHECK: call @addressed(%[[A]])
func.func private @takes(%x: memref<4xf32>) {
  return
}
func.func private @dynamic(%x: memref<?xf32>) {
  return
}
func.func private @addressed(%x: memref<4xf32>) {
  return
}
func.func private @caller(%f: f32) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4xf32>
  memref.store %f, %a[%c0] : memref<4xf32>
  call @takes(%a) : (memref<4xf32>) -> ()
  call @addressed(%a) : (memref<4xf32>) -> ()
  memref.dealloc %a : memref<4xf32>
  %g = func.constant @addressed : (memref<4xf32>) -> ()
  return
}
