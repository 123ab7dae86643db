// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests lookups in a table split by rows over the devices while the batch is split too (an
// embedding table sharded as TorchRec's row-wise sharding, the batch data parallel): each
// device gathers the examples' rows it holds (ids clamped to the table first, as gather
// defines; zeros for the rows of others) and a reduce_scatter brings
// each example's row to its device; the table is never gathered. The gradient's scatter-add
// gathers the batch's updates and ids and adds those of the device's own rows into its part;
// the table's gradient is never all-reduced.

// CHECK-LABEL: func.func @lookup
// CHECK-SAME: %arg0: tensor<512x16xf32>
// CHECK-NOT: loom.all_gather %arg0
// CHECK: %[[IDS:.*]] = loom.all_gather %arg1, @mesh, dim = 0, axes = ["data"] {{.*}} : tensor<128xi32> -> tensor<256xi32>
// CHECK: %[[DEV:.*]] = loom.axis_index @mesh, axes = ["data"]
// CHECK: %[[FIRST:.*]] = loom.mul %[[DEV]], %{{.*}} : tensor<i32>
// CHECK: %[[LOW:.*]] = loom.max %[[IDS]], %{{.*}} : tensor<256xi32>
// CHECK: %[[CLAMPED:.*]] = loom.min %[[LOW]], %{{.*}} : tensor<256xi32>
// CHECK: %[[LOCAL:.*]] = loom.sub %[[CLAMPED]], %{{.*}} : tensor<256xi32>
// CHECK: %[[SAFE:.*]] = loom.select %{{.*}}, %[[LOCAL]], %{{.*}} : tensor<256xi1>, tensor<256xi32>
// CHECK: %[[ROWS:.*]] = loom.gather %arg0[%[[SAFE]]] : (tensor<512x16xf32>, tensor<256xi32>) -> tensor<256x16xf32>
// CHECK: %[[MASKED:.*]] = loom.select %{{.*}}, %[[ROWS]], %{{.*}} : tensor<256x16xi1>, tensor<256x16xf32>
// CHECK: %[[MINE:.*]] = loom.reduce_scatter %[[MASKED]], @mesh, dim = 0, axes = ["data"] {{.*}} : tensor<256x16xf32> -> tensor<128x16xf32>
// CHECK: return %[[MINE]] : tensor<128x16xf32>
loom.mesh @mesh axes = ["data"] shape = [2]
func.func @lookup(%table: tensor<1024x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                  %ids: tensor<256xi32> {loom.sharding = #loom.sharding<@mesh, [["data"]]>})
    -> (tensor<256x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>}) {
  %rows = loom.gather %table[%ids] : (tensor<1024x16xf32>, tensor<256xi32>) -> tensor<256x16xf32>
  return %rows : tensor<256x16xf32>
}

// -----

// CHECK-LABEL: func.func @lookup_grad
// CHECK-DAG: %[[UPD:.*]] = loom.all_gather %arg0, @mesh, dim = 0, axes = ["data"] {{.*}} : tensor<128x16xf32> -> tensor<256x16xf32>
// CHECK-DAG: %[[IDS:.*]] = loom.all_gather %arg1, @mesh, dim = 0, axes = ["data"] {{.*}} : tensor<128xi32> -> tensor<256xi32>
// CHECK: loom.axis_index @mesh, axes = ["data"]
// CHECK: %[[MASKED:.*]] = loom.select %{{.*}}, %[[UPD]], %{{.*}} : tensor<256x16xi1>, tensor<256x16xf32>
// CHECK: %[[GRAD:.*]] = loom.scatter_add %[[MASKED]][%{{.*}}] : (tensor<256x16xf32>, tensor<256xi32>) -> tensor<512x16xf32>
// CHECK-NOT: loom.all_reduce
// CHECK-NOT: loom.reduce_scatter
// CHECK: return %[[GRAD]] : tensor<512x16xf32>
loom.mesh @mesh axes = ["data"] shape = [2]
func.func @lookup_grad(%updates: tensor<256x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                       %ids: tensor<256xi32> {loom.sharding = #loom.sharding<@mesh, [["data"]]>})
    -> (tensor<1024x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>}) {
  %grad = loom.scatter_add %updates[%ids] : (tensor<256x16xf32>, tensor<256xi32>) -> tensor<1024x16xf32>
  return %grad : tensor<1024x16xf32>
}

// -----

// A table much smaller than the rows looked up (a GPT's embedding of a small vocabulary) is
// gathered whole instead: combining the looked-up rows would move more.
// CHECK-LABEL: func.func @small_table
// CHECK: loom.all_gather %arg0, @mesh, dim = 0, axes = ["data"] {{.*}} : tensor<8x16xf32> -> tensor<16x16xf32>
// CHECK-NOT: loom.reduce_scatter
// CHECK-NOT: loom.axis_index
loom.mesh @mesh axes = ["data"] shape = [2]
func.func @small_table(%table: tensor<16x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                       %ids: tensor<256xi32> {loom.sharding = #loom.sharding<@mesh, [["data"]]>})
    -> (tensor<256x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>}) {
  %rows = loom.gather %table[%ids] : (tensor<16x16xf32>, tensor<256xi32>) -> tensor<256x16xf32>
  return %rows : tensor<256x16xf32>
}

// -----

// A replicated table's gradient (data parallelism) scaled before its uses (as a loss scale's
// unscaling is): gathering the batch's updates and ids moves fewer bytes than combining the
// whole table later, so the scatter_add does not leave a partial table to be all-reduced.
// CHECK-LABEL: func.func @scaled_replicated_grad
// CHECK-DAG: loom.all_gather %arg0, @mesh, dim = 0, axes = ["data"] {{.*}} : tensor<128x16xf32> -> tensor<256x16xf32>
// CHECK-DAG: loom.all_gather %arg1, @mesh, dim = 0, axes = ["data"] {{.*}} : tensor<128xi32> -> tensor<256xi32>
// CHECK-NOT: loom.all_reduce
// CHECK: return
loom.mesh @mesh axes = ["data"] shape = [2]
func.func @scaled_replicated_grad(%updates: tensor<256x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                                  %ids: tensor<256xi32> {loom.sharding = #loom.sharding<@mesh, [["data"]]>},
                                  %scale: tensor<f32> {loom.sharding = #loom.sharding<@mesh, []>})
    -> (tensor<4096x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], []]>},
        tensor<4096x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], []]>}) {
  %grad = loom.scatter_add %updates[%ids] : (tensor<256x16xf32>, tensor<256xi32>) -> tensor<4096x16xf32>
  %s = loom.broadcast_in_dim %scale, dims = [] : tensor<f32> -> tensor<4096x16xf32>
  %unscaled = loom.div %grad, %s : tensor<4096x16xf32>
  %square = loom.mul %unscaled, %unscaled : tensor<4096x16xf32>
  return %unscaled, %square : tensor<4096x16xf32>, tensor<4096x16xf32>
}
