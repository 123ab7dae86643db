// RUN: loom-opt %s --loom-cpu-to-linalg --loom-cpu-bufferize | FileCheck %s

// Tests that a scatter_add bufferizes to an update of the result in place: each index's row
// is loaded, added to and stored back into the output buffer, with no temporary row (an
// allocation and a copy per index, which made a recommender's table gradients 8x slower).
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[U:[a-z0-9_]+]]: memref<32x16xf32>, %[[I:[a-z0-9_]+]]: memref<32xi32>, %[[OUT:[a-z0-9_]+]]: memref<100x16xf32>)
// CHECK: scf.for
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: %[[ROW:[a-z0-9_]+]] = memref.subview %[[OUT]]
// CHECK: scf.parallel
// CHECK: %[[OLD:[a-z0-9_]+]] = memref.load %[[ROW]]
// CHECK: %[[NEW:[a-z0-9_]+]] = arith.addf %[[OLD]], %{{[a-z0-9_]+}} : f32
// CHECK: memref.store %[[NEW]], %[[ROW]]
// CHECK-NOT: memref.alloc
// CHECK: } {scatter_add}
func.func @scatter_add(%u: tensor<32x16xf32>, %i: tensor<32xi32>) -> tensor<100x16xf32> {
  %0 = loom.scatter_add %u[%i] : (tensor<32x16xf32>, tensor<32xi32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}
