// RUN: loom-opt --loom-lower-to-linalg --cse --loom-cpu-bufferize --mlir-print-debuginfo=false %s | FileCheck %s

// Tests that a collective reads its operand where it stands in the program. Here two
// collectives read %e, and an elementwise op between them could write its result into %e's
// buffer if bufferization did not know the second collective still reads it (it once did not:
// the collectives were runtime calls on to_buffer'd tensors, CSE merged the two to_buffer ops,
// and the square, whose init CSE shares with the exponential's, landed in %e's buffer before
// the reduce_scatter read it). Each collective
// becomes an allocation of its output, a start call and a wait call on dense buffers; the
// pipeline's loom-overlap-collectives then starts the reduce_scatter right after the
// exponential, before the all_reduce (both are reductions, which pass other collectives), and
// waits for it after the square.
// CHECK-LABEL: func.func @two_readers
// CHECK: %[[E:.*]] = memref.alloc() {{.*}} : memref<8x4xf32>
// CHECK: memref.store %{{.*}}, %[[E]]
// CHECK: %[[EP:.*]] = memref.extract_aligned_pointer_as_index %[[E]]
// CHECK: %[[EPI:.*]] = arith.index_cast %[[EP]]
// CHECK: %[[H2:.*]] = call @loom_rt_collective_start(%c1_i64, %c0_i64, %c0_i64, %[[EPI]],
// CHECK: %[[H1:.*]] = call @loom_rt_collective_start(%c2_i64, %c0_i64, %c0_i64, %[[EPI]],
// CHECK-NEXT: call @loom_rt_collective_wait(%[[H1]])
// CHECK-NOT: memref.store %{{.*}}, %[[E]]
// CHECK: arith.mulf
// CHECK-NOT: memref.store %{{.*}}, %[[E]]
// CHECK: call @loom_rt_collective_wait(%[[H2]])
// CHECK: memref.dealloc %[[E]]
loom.mesh @mesh axes = ["x"] shape = [2]
func.func @two_readers(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<4x4xf32>) {
  %e = loom.exp %arg0 : tensor<8x4xf32>
  %sum = loom.all_reduce sum %e, @mesh, axes = ["x"] : tensor<8x4xf32>
  %sq = loom.mul %sum, %sum : tensor<8x4xf32>
  %rs = loom.reduce_scatter %e, @mesh, dim = 0, axes = ["x"] : tensor<8x4xf32> -> tensor<4x4xf32>
  %twice = loom.add %sq, %sq : tensor<8x4xf32>
  return %twice, %rs : tensor<8x4xf32>, tensor<4x4xf32>
}

// Tests that a collective_permute passes its (source, target) pairs as a stack array and
// their count (the last two arguments), written before the start, which
// loom-overlap-collectives may not hoist above those stores.
// CHECK-LABEL: func.func @ring
// CHECK: %[[PAIRS:.*]] = memref.alloca() : memref<4xi64>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[PAIRS]]
// CHECK: %[[PP:.*]] = memref.extract_aligned_pointer_as_index %[[PAIRS]]
// CHECK: %[[PPI:.*]] = arith.index_cast %[[PP]]
// CHECK: %[[H:.*]] = call @loom_rt_collective_start(%c5_i64, {{.*}}, %[[PPI]], %c2_i64)
// CHECK-NEXT: call @loom_rt_collective_wait(%[[H]])
func.func @ring(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = loom.collective_permute %arg0, @mesh, axes = ["x"], pairs = [0, 1, 1, 0] : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
