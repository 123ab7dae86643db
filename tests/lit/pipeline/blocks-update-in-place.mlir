// RUN: loom-opt %s --loom-cpu-to-linalg --loom-cpu-bufferize | FileCheck %s

// An optimizer's update of each layer's parameters, outlined as one block per layer, writes
// the new parameters in place into the donated argument the caller passes: the block's
// result for them is dropped, and the caller neither allocates nor copies them. The new
// moment and the new parameters are written by one loop (the moment is one more result of
// the update's fused loop).
// CHECK-LABEL: func.func private @"block:optim.cpp:5"
// CHECK-SAME:    (%[[M:[^:]*]]: memref<8xf32>, %[[G:[^:]*]]: memref<8xf32>, %[[P:[^:]*]]: memref<8xf32>, %[[N:[^:]*]]: memref<8xf32>)
// CHECK:         scf.parallel
// CHECK:           memref.store {{.*}}, %[[N]]
// CHECK-NEXT:      memref.store {{.*}}, %[[P]]
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     memref.copy
// CHECK:         return
// CHECK-LABEL: func.func @update
// CHECK-SAME:    (%[[P0:[^:]*]]: memref<8xf32> {loom.aliased_output = 0 : i64}, %[[M0:[^:]*]]: memref<8xf32>, %[[G0:[^:]*]]: memref<8xf32>, %[[P1:[^:]*]]: memref<8xf32> {loom.aliased_output = 2 : i64}
// CHECK-SAME:    loom.output_aliases = array<i64: 0, -1, 3, -1>
// CHECK:         call @"block:optim.cpp:5"(%[[M0]], %[[G0]], %[[P0]], %{{.*}})
// CHECK:         call @"block:optim.cpp:5"
// CHECK-NOT:     memref.copy {{.*}}, %[[P0]]
// CHECK-NOT:     memref.copy {{.*}}, %[[P1]]
// CHECK:         return
func.func @update(%p0: tensor<8xf32> {loom.aliased_output = 0 : i64}, %m0: tensor<8xf32>,
                  %g0: tensor<8xf32>, %p1: tensor<8xf32> {loom.aliased_output = 2 : i64},
                  %m1: tensor<8xf32>, %g1: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %b = loom.constant dense<0.9> : tensor<8xf32>
  %c = loom.constant dense<0.1> : tensor<8xf32>
  %lr = loom.constant dense<0.01> : tensor<8xf32>
  %e = loom.constant dense<1.0e-8> : tensor<8xf32>
  %a0 = loom.mul %m0, %b : tensor<8xf32> loc("optim.cpp":5:1)
  %d0 = loom.mul %g0, %c : tensor<8xf32>
  %n0 = loom.add %a0, %d0 : tensor<8xf32>
  %s0 = loom.mul %n0, %n0 : tensor<8xf32>
  %r0 = loom.sqrt %s0 : tensor<8xf32>
  %q0 = loom.add %r0, %e : tensor<8xf32>
  %u0 = loom.div %n0, %q0 : tensor<8xf32>
  %v0 = loom.mul %u0, %lr : tensor<8xf32>
  %o0 = loom.sub %p0, %v0 : tensor<8xf32>
  %a1 = loom.mul %m1, %b : tensor<8xf32> loc("optim.cpp":5:1)
  %d1 = loom.mul %g1, %c : tensor<8xf32>
  %n1 = loom.add %a1, %d1 : tensor<8xf32>
  %s1 = loom.mul %n1, %n1 : tensor<8xf32>
  %r1 = loom.sqrt %s1 : tensor<8xf32>
  %q1 = loom.add %r1, %e : tensor<8xf32>
  %u1 = loom.div %n1, %q1 : tensor<8xf32>
  %v1 = loom.mul %u1, %lr : tensor<8xf32>
  %o1 = loom.sub %p1, %v1 : tensor<8xf32>
  return %o0, %n0, %o1, %n1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
