// RUN: loom-opt %s -loom-outline-kernels -split-input-file | FileCheck %s

// Each top-level loop nest becomes a call to a kernel named after its ops and source line;
// constants are cloned into the kernel, other values it uses become arguments; two nests
// with the same body (as each layer of a model repeats) share one kernel.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>, %[[S:.*]]: f32)
// CHECK-NEXT:    call @"exp_mul:model.cpp:12"(%[[A]], %[[S]], %[[B]])
// CHECK-NEXT:    call @"exp_mul:model.cpp:12"(%[[B]], %[[S]], %[[C]])
// CHECK-NEXT:    call @"add:model.cpp:20"(%[[C]], %[[A]])
// CHECK-NEXT:    return
// CHECK:       func.func private @"exp_mul:model.cpp:12"(%[[X:.*]]: memref<4xf32>, %[[F:.*]]: f32, %[[Y:.*]]: memref<4xf32>)
// CHECK-SAME:    attributes {passthrough = ["noinline"]}
// CHECK-DAG:     arith.constant 0 : index
// CHECK-DAG:     arith.constant 4 : index
// CHECK:         scf.for
// CHECK:           math.exp
// CHECK:           arith.mulf
// CHECK:         return
// CHECK:       func.func private @"add:model.cpp:20"
// CHECK-NOT:   func.func private
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %e = math.exp %x : f32
    %y = arith.mulf %e, %s : f32
    memref.store %y, %b[%i] : memref<4xf32>
  } loc("model.cpp":12:3)
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %b[%i] : memref<4xf32>
    %e = math.exp %x : f32
    %y = arith.mulf %e, %s : f32
    memref.store %y, %c[%i] : memref<4xf32>
  } loc("model.cpp":30:3)
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %c[%i] : memref<4xf32>
    %y = memref.load %a[%i] : memref<4xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %c[%i] : memref<4xf32>
  } loc("model.cpp":20:3)
  return
}

// -----

// A loop that yields values: the kernel returns them. Different bounds, different kernels.
// CHECK-LABEL: func.func @sums
// CHECK:         %[[R0:.*]] = call @"add:sum.cpp:1"(%{{.*}}) : (memref<8xf32>) -> f32
// CHECK:         %[[R1:.*]] = call @"add:sum.cpp:1_0"(%{{.*}}) : (memref<8xf32>) -> f32
// CHECK:         return %[[R0]], %[[R1]]
func.func @sums(%a: memref<8xf32>) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %r0 = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%i] : memref<8xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  } loc("sum.cpp":1:1)
  %r1 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%i] : memref<8xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  } loc("sum.cpp":1:1)
  return %r0, %r1 : f32, f32
}
