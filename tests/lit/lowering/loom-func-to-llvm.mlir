// RUN: loom-opt %s -loom-func-to-llvm -split-input-file | FileCheck %s

// Tests of loom-func-to-llvm: static buffers are passed as bare pointers; a module with a
// buffer that cannot be (empty, a dynamic offset, an external function taking one) keeps
// memref descriptors everywhere, so caller and callee always agree.

// CHECK-LABEL: llvm.func @layer(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-LABEL: llvm.func @main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.call @layer(%{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> ()
func.func private @layer(%x: memref<8x128x256xf32>, %w: memref<f32>) {
  return
}
func.func @main(%x: memref<8x128x256xf32>, %w: memref<f32>) {
  call @layer(%x, %w) : (memref<8x128x256xf32>, memref<f32>) -> ()
  return
}

// -----

// An empty buffer: descriptors for every function.
// CHECK-LABEL: llvm.func @empty(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-LABEL: llvm.func @full(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
func.func private @empty(%x: memref<3x0xf32>) {
  return
}
func.func private @full(%x: memref<4xf32>) {
  return
}

// -----

// A view with a dynamic offset.
// CHECK-LABEL: llvm.func @view(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
func.func private @view(%x: memref<4xf32, strided<[1], offset: ?>>) {
  return
}

// -----

// An external function taking a buffer would read a descriptor on its C side.
// CHECK-LABEL: llvm.func @external(!llvm.ptr, !llvm.ptr, i64, i64, i64)
// CHECK-LABEL: llvm.func @user(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
func.func private @external(memref<4xf32>)
func.func private @user(%x: memref<4xf32>) {
  call @external(%x) : (memref<4xf32>) -> ()
  return
}
