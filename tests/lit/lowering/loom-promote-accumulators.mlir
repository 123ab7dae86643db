// RUN: loom-opt %s -loom-promote-accumulators | FileCheck %s

// Tests of loom-promote-accumulators: a loop that loads and stores one element at indices
// defined outside it carries the element in a register (loaded before, stored after); a
// sum's addf is marked reassoc/nsz so LLVM vectorizes it, a max keeps its op as it is.
// Loops whose element varies with the loop, that read another element of the same buffer,
// or that call out are left alone.

// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: (%[[IN:[a-z0-9_]+]]: memref<8x64xf32>, %[[OUT:[a-z0-9_]+]]: memref<8xf32>)
// CHECK: scf.parallel (%[[I:[a-z0-9_]+]]) =
// CHECK-NEXT: %[[INIT:[a-z0-9_]+]] = memref.load %[[OUT]][%[[I]]]
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = scf.for %[[K:[a-z0-9_]+]] = {{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = memref.load %[[IN]][%[[I]], %[[K]]]
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = arith.addf %[[X]], %[[ACC]] fastmath<reassoc,nsz> : f32
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[R]], %[[OUT]][%[[I]]]

// CHECK-LABEL: func.func @row_max
// CHECK: %[[R:[a-z0-9_]+]] = scf.for {{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %{{[a-z0-9_]+}}) -> (f32) {
// CHECK-NEXT: memref.load
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.maximumf %{{[a-z0-9_]+}}, %[[ACC]] : f32
// CHECK-NEXT: scf.yield %[[M]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[R]]

// CHECK-LABEL: func.func @index_varies
// CHECK-NOT: iter_args
// CHECK: memref.store
// CHECK-LABEL: func.func @other_element_read
// CHECK-NOT: iter_args
// CHECK: memref.store
// CHECK-LABEL: func.func @call_inside
// CHECK-NOT: iter_args
// CHECK: memref.store
func.func @row_sum(%in: memref<8x64xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %in[%i, %k] : memref<8x64xf32>
      %acc = memref.load %out[%i] : memref<8xf32>
      %s = arith.addf %x, %acc : f32
      memref.store %s, %out[%i] : memref<8xf32>
    }
  }
  return
}
func.func @row_max(%in: memref<8x64xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %in[%i, %k] : memref<8x64xf32>
      %acc = memref.load %out[%i] : memref<8xf32>
      %m = arith.maximumf %x, %acc : f32
      memref.store %m, %out[%i] : memref<8xf32>
    }
  }
  return
}
func.func @index_varies(%in: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c64 step %c1 {
    %x = memref.load %in[%k] : memref<64xf32>
    %acc = memref.load %out[%k] : memref<64xf32>
    %s = arith.addf %x, %acc : f32
    memref.store %s, %out[%k] : memref<64xf32>
  }
  return
}
func.func @other_element_read(%out: memref<8xf32>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c64 step %c1 {
    %y = memref.load %out[%j] : memref<8xf32>
    %acc = memref.load %out[%i] : memref<8xf32>
    %s = arith.addf %y, %acc : f32
    memref.store %s, %out[%i] : memref<8xf32>
  }
  return
}
func.func @call_inside(%in: memref<64xf32>, %out: memref<8xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c64 step %c1 {
    %x = memref.load %in[%k] : memref<64xf32>
    %acc = memref.load %out[%i] : memref<8xf32>
    %s = arith.addf %x, %acc : f32
    func.call @opaque(%in) : (memref<64xf32>) -> ()
    memref.store %s, %out[%i] : memref<8xf32>
  }
  return
}
func.func private @opaque(memref<64xf32>)
