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

// -----

// Bodies that differ only in a scalar constant (a per-layer scale) share one kernel that takes
// it as an argument; index constants (bounds) stay inside.
// CHECK-LABEL: func.func @scaled
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:         call @"mul:layer.cpp:5"(%{{.*}}, %{{.*}}, %[[TWO]])
// CHECK-NEXT:    call @"mul:layer.cpp:5"(%{{.*}}, %{{.*}}, %[[THREE]])
// CHECK:       func.func private @"mul:layer.cpp:5"(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %[[S:.*]]: f32)
// CHECK:         arith.constant 4 : index
// CHECK:         arith.mulf %{{.*}}, %[[S]] : f32
// CHECK-NOT:   func.func private
func.func @scaled(%a: memref<4xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %b[%i] : memref<4xf32>
  } loc("layer.cpp":5:3)
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %b[%i] : memref<4xf32>
    %y = arith.mulf %x, %three : f32
    memref.store %y, %a[%i] : memref<4xf32>
  } loc("layer.cpp":5:3)
  return
}

// -----

// Bodies that read views of one buffer at different static offsets (each layer's random key)
// share one kernel whose argument has a dynamic offset; the calls cast to it.
// CHECK-LABEL: func.func @views
// CHECK:         %[[V1:.*]] = memref.subview %{{.*}}[1] [1] [1]
// CHECK:         %[[V2:.*]] = memref.subview %{{.*}}[2] [1] [1]
// CHECK:         %[[C1:.*]] = memref.cast %[[V1]] : memref<1xi32, strided<[1], offset: 1>> to memref<1xi32, strided<[1], offset: ?>>
// CHECK-NEXT:    call @"add:key.cpp:7"(%[[C1]], %{{.*}})
// CHECK:         %[[C2:.*]] = memref.cast %[[V2]] : memref<1xi32, strided<[1], offset: 2>> to memref<1xi32, strided<[1], offset: ?>>
// CHECK-NEXT:    call @"add:key.cpp:7"(%[[C2]], %{{.*}})
// CHECK:       func.func private @"add:key.cpp:7"(%{{.*}}: memref<1xi32, strided<[1], offset: ?>>, %{{.*}}: memref<4xi32>)
// CHECK-NOT:   func.func private
func.func @views(%k: memref<4xi32>, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v1 = memref.subview %k[1] [1] [1] : memref<4xi32> to memref<1xi32, strided<[1], offset: 1>>
  %v2 = memref.subview %k[2] [1] [1] : memref<4xi32> to memref<1xi32, strided<[1], offset: 2>>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %v1[%c0] : memref<1xi32, strided<[1], offset: 1>>
    %y = memref.load %out[%i] : memref<4xi32>
    %z = arith.addi %x, %y : i32
    memref.store %z, %out[%i] : memref<4xi32>
  } loc("key.cpp":7:3)
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %v2[%c0] : memref<1xi32, strided<[1], offset: 2>>
    %y = memref.load %out[%i] : memref<4xi32>
    %z = arith.addi %x, %y : i32
    memref.store %z, %out[%i] : memref<4xi32>
  } loc("key.cpp":7:3)
  return
}
