// RUN: loom-opt %s -loom-autodiff -inline -symbol-dce -canonicalize -loom-propagate-sharding -loom-partition | FileCheck %s

// Tests data parallelism on a differentiated two-layer model: the batch is split over "data"
// and the weights are replicated. The forward needs no collective; the loss (a sum over the
// split batch) and each weight gradient (a matmul contracting the split batch) are partial
// sums, each restored by one all_reduce on its way out.
// CHECK-LABEL: func.func @main
// CHECK-SAME: tensor<4x16xf32>
// CHECK-NOT: loom.all_gather
// CHECK-NOT: loom.reduce_scatter
// CHECK-NOT: loom.all_to_all
// CHECK-NOT: loom.shard_slice
// CHECK-COUNT-3: loom.all_reduce sum
// CHECK-NOT: loom.all_
// CHECK: return
loom.mesh @mesh axes = ["data"] shape = [2]
func.func private @loss(%w1: tensor<16x32xf32>, %w2: tensor<32x4xf32>, %x: tensor<8x16xf32>) -> tensor<f32> {
  %h = loom.dot_general %x, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = loom.tanh %h : tensor<8x32xf32>
  %y = loom.dot_general %a, %w2, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  %s = loom.mul %y, %y : tensor<8x4xf32>
  %l = loom.reduce sum %s, dims = [0, 1] : tensor<8x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @main(%w1: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, []>},
                %w2: tensor<32x4xf32> {loom.sharding = #loom.sharding<@mesh, []>},
                %x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"]]>})
    -> (tensor<f32> {loom.sharding = #loom.sharding<@mesh, []>},
        tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, []>},
        tensor<32x4xf32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %l, %g1, %g2 = loom.value_and_grad @loss(%w1, %w2, %x) wrt = [0, 1] : (tensor<16x32xf32>, tensor<32x4xf32>, tensor<8x16xf32>) -> (tensor<f32>, tensor<16x32xf32>, tensor<32x4xf32>)
  return %l, %g1, %g2 : tensor<f32>, tensor<16x32xf32>, tensor<32x4xf32>
}
