// RUN: loom-opt %s -loom-emit-entry -split-input-file -verify-diagnostics | FileCheck %s

// Tests of loom-emit-entry: the `loom_entry(!llvm.ptr)` wrapper that rebuilds each memref
// descriptor from buffers[i] and calls @main, and the functions it refuses to wrap.

// Tests that the wrapper loads each buffer pointer in argument order, builds a descriptor
// {data, data, 0, sizes, strides} with the static sizes and row-major strides (no arrays for
// rank 0), casts it to the memref type and calls @main, which becomes private.
// CHECK-LABEL: func.func private @main
// CHECK-SAME: (%{{[a-z0-9_]+}}: memref<4x8xf32>, %{{[a-z0-9_]+}}: memref<f64>, %{{[a-z0-9_]+}}: memref<2x3x5xi32>)
// CHECK: func.func @loom_entry(%[[BUFS:[a-z0-9_]+]]: !llvm.ptr) {
// CHECK-NEXT: %[[SLOT0:[0-9]+]] = llvm.getelementptr %[[BUFS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[DATA0:[0-9]+]] = llvm.load %[[SLOT0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[U0:[0-9]+]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-NEXT: %[[D0A:[0-9]+]] = llvm.insertvalue %[[DATA0]], %[[U0]][0]
// CHECK-NEXT: %[[D0B:[0-9]+]] = llvm.insertvalue %[[DATA0]], %[[D0A]][1]
// CHECK-NEXT: %[[OFF0:[0-9]+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[D0C:[0-9]+]] = llvm.insertvalue %[[OFF0]], %[[D0B]][2]
// CHECK-NEXT: %[[SZ00:[0-9]+]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: %[[D0D:[0-9]+]] = llvm.insertvalue %[[SZ00]], %[[D0C]][3, 0]
// CHECK-NEXT: %[[ST00:[0-9]+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: %[[D0E:[0-9]+]] = llvm.insertvalue %[[ST00]], %[[D0D]][4, 0]
// CHECK-NEXT: %[[SZ01:[0-9]+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: %[[D0F:[0-9]+]] = llvm.insertvalue %[[SZ01]], %[[D0E]][3, 1]
// CHECK-NEXT: %[[ST01:[0-9]+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[D0:[0-9]+]] = llvm.insertvalue %[[ST01]], %[[D0F]][4, 1]
// CHECK-NEXT: %[[M0:[0-9]+]] = builtin.unrealized_conversion_cast %[[D0]] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<4x8xf32>
// CHECK-NEXT: %[[SLOT1:[0-9]+]] = llvm.getelementptr %[[BUFS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[DATA1:[0-9]+]] = llvm.load %[[SLOT1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[U1:[0-9]+]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64)>
// CHECK-NEXT: %[[D1A:[0-9]+]] = llvm.insertvalue %[[DATA1]], %[[U1]][0]
// CHECK-NEXT: %[[D1B:[0-9]+]] = llvm.insertvalue %[[DATA1]], %[[D1A]][1]
// CHECK-NEXT: %[[OFF1:[0-9]+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[D1:[0-9]+]] = llvm.insertvalue %[[OFF1]], %[[D1B]][2]
// CHECK-NEXT: %[[M1:[0-9]+]] = builtin.unrealized_conversion_cast %[[D1]] : !llvm.struct<(ptr, ptr, i64)> to memref<f64>
// CHECK-NEXT: %[[SLOT2:[0-9]+]] = llvm.getelementptr %[[BUFS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[DATA2:[0-9]+]] = llvm.load %[[SLOT2]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
// CHECK-NEXT: llvm.insertvalue %[[DATA2]], %{{[0-9]+}}[0]
// CHECK-NEXT: llvm.insertvalue %[[DATA2]], %{{[0-9]+}}[1]
// CHECK-NEXT: llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{[0-9]+}}, %{{[0-9]+}}[2]
// CHECK-NEXT: llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{[0-9]+}}, %{{[0-9]+}}[3, 0]
// CHECK-NEXT: llvm.mlir.constant(15 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{[0-9]+}}, %{{[0-9]+}}[4, 0]
// CHECK-NEXT: llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{[0-9]+}}, %{{[0-9]+}}[3, 1]
// CHECK-NEXT: llvm.mlir.constant(5 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{[0-9]+}}, %{{[0-9]+}}[4, 1]
// CHECK-NEXT: llvm.mlir.constant(5 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{[0-9]+}}, %{{[0-9]+}}[3, 2]
// CHECK-NEXT: llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: llvm.insertvalue %{{[0-9]+}}, %{{[0-9]+}}[4, 2]
// CHECK-NEXT: %[[M2:[0-9]+]] = builtin.unrealized_conversion_cast %{{[0-9]+}} : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> to memref<2x3x5xi32>
// CHECK-NEXT: call @main(%[[M0]], %[[M1]], %[[M2]]) : (memref<4x8xf32>, memref<f64>, memref<2x3x5xi32>) -> ()
// CHECK-NEXT: return
func.func @main(%x: memref<4x8xf32>, %s: memref<f64>, %out: memref<2x3x5xi32>) {
  return
}

// -----

// Tests that a function without arguments gets a wrapper that only calls it, and that other
// functions in the module are left public.
// CHECK-LABEL: func.func @helper()
// CHECK-LABEL: func.func private @main()
// CHECK: func.func @loom_entry(%{{[a-z0-9_]+}}: !llvm.ptr) {
// CHECK-NEXT: call @main() : () -> ()
// CHECK-NEXT: return
func.func @helper() {
  return
}
func.func @main() {
  call @helper() : () -> ()
  return
}

// -----

// Tests that a module without a function named main is an error.
// expected-error @below {{loom-emit-entry: no function named 'main'}}
module {
  func.func @not_main(%x: memref<4xf32>) {
    return
  }
}

// -----

// Tests that a main with results is rejected: results go through out-params.
// expected-error @below {{loom-emit-entry: 'main' must return its results through out-params}}
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}

// -----

// Tests that an argument with a non-identity layout is rejected.
// expected-error @below {{loom-emit-entry: argument 1 has type 'memref<4x4xf32, strided<[1, 4]>>'; need a static identity-layout memref}}
func.func @main(%x: memref<4xf32>, %y: memref<4x4xf32, strided<[1, 4]>>) {
  return
}

// -----

// Tests that an argument with a dynamic shape is rejected.
// expected-error @below {{loom-emit-entry: argument 0 has type 'memref<?x4xf32>'; need a static identity-layout memref}}
func.func @main(%x: memref<?x4xf32>) {
  return
}

// -----

// Tests that an argument that is not a memref is rejected.
// expected-error @below {{loom-emit-entry: argument 0 has type 'tensor<4xf32>'; need a static identity-layout memref}}
func.func @main(%x: tensor<4xf32>) {
  return
}

// -----

// Tests that outputs living in donated inputs keep their slots: inputs 0-1 use slots 0-1,
// output 0 (in input 0) has no out-param, so output 1's out-param reads slot 3; and that the
// table {numOutputs, aliases...} is exported for the runtime.
// CHECK: llvm.mlir.global external constant @loom_output_aliases(dense<[2, 0, -1]> : tensor<3xi64>) {{.*}} : !llvm.array<3 x i64>
// CHECK: func.func @loom_entry(%[[BUFS:[a-z0-9_]+]]: !llvm.ptr) {
// CHECK: llvm.getelementptr %[[BUFS]][0]
// CHECK: llvm.getelementptr %[[BUFS]][1]
// CHECK: llvm.getelementptr %[[BUFS]][3]
func.func @main(%p: memref<4xf32>, %g: memref<4xf32>, %loss: memref<f32>)
    attributes {loom.output_aliases = array<i64: 0, -1>} {
  return
}
