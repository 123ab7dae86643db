// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Tests every Constraint of the mesh and the collectives (compiler/IR/LoomShardingOps.td).

// expected-error @+1 {{'loom.mesh' op has 2 axis names but 1 sizes}}
loom.mesh @mesh axes = ["data", "model"] shape = [2]

// -----

// expected-error @+1 {{'loom.mesh' op has axis "data" twice}}
loom.mesh @mesh axes = ["data", "data"] shape = [2, 2]

// -----

// expected-error @+1 {{'loom.mesh' op axis "data" has size 0; sizes must be >= 1}}
loom.mesh @mesh axes = ["data"] shape = [0]

// -----

// expected-error @+1 {{'loom.mesh' op needs at least one axis}}
loom.mesh @mesh axes = [] shape = []

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @gather_wrong_result(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'loom.all_gather' op result type 'tensor<4x16xf32>' should be 'tensor<8x16xf32>'}}
  %0 = loom.all_gather %x, @mesh, dim = 0, axes = ["data"] : tensor<4x16xf32> -> tensor<4x16xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @gather_bad_dim(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'loom.all_gather' op dim 2 is not a dim of 'tensor<4x16xf32>'}}
  %0 = loom.all_gather %x, @mesh, dim = 2, axes = ["data"] : tensor<4x16xf32> -> tensor<4x16xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @unknown_axis(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'loom.all_reduce' op axes: mesh @mesh has no axis "model"}}
  %0 = loom.all_reduce sum %x, @mesh, axes = ["model"] : tensor<4x16xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @axis_twice(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'loom.all_reduce' op axes: mesh axis "data" is used twice}}
  %0 = loom.all_reduce sum %x, @mesh, axes = ["data", "data"] : tensor<4x16xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @unknown_mesh(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'loom.all_reduce' op refers to an unknown mesh @other}}
  %0 = loom.all_reduce sum %x, @other, axes = ["data"] : tensor<4x16xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [4]
func.func @scatter_indivisible(%x: tensor<6x16xf32>) {
  // expected-error @+1 {{'loom.reduce_scatter' op dim 0 of 'tensor<6x16xf32>' does not divide by the 4 devices of its axes}}
  %0 = loom.reduce_scatter %x, @mesh, dim = 0, axes = ["data"] : tensor<6x16xf32> -> tensor<1x16xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @scatter_wrong_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'loom.reduce_scatter' op result type 'tensor<8x16xf32>' should be 'tensor<4x16xf32>'}}
  %0 = loom.reduce_scatter %x, @mesh, dim = 0, axes = ["data"] : tensor<8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @slice_wrong_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'loom.shard_slice' op result type 'tensor<8x4xf32>' should be 'tensor<8x8xf32>'}}
  %0 = loom.shard_slice %x, @mesh, dim = 1, axes = ["data"] : tensor<8x16xf32> -> tensor<8x4xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @all_to_all_same_dims_keep_their_size(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'loom.all_to_all' op result type 'tensor<8x32xf32>' should be 'tensor<8x16xf32>'}}
  %0 = loom.all_to_all %x, @mesh, split_dim = 1, concat_dim = 1, axes = ["data"] : tensor<8x16xf32> -> tensor<8x32xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [4]
func.func @all_to_all_indivisible(%x: tensor<8x6xf32>) {
  // expected-error @+1 {{'loom.all_to_all' op split_dim 1 of 'tensor<8x6xf32>' does not divide by the 4 devices of its axes}}
  %0 = loom.all_to_all %x, @mesh, split_dim = 1, concat_dim = 0, axes = ["data"] : tensor<8x6xf32> -> tensor<32x1xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @all_to_all_wrong_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'loom.all_to_all' op result type 'tensor<8x16xf32>' should be 'tensor<16x8xf32>'}}
  %0 = loom.all_to_all %x, @mesh, split_dim = 1, concat_dim = 0, axes = ["data"] : tensor<8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @partial_constraint(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'loom.sharding_constraint' op a constraint cannot ask for a partial sum}}
  %0 = loom.sharding_constraint %x : tensor<8x16xf32> to #loom.sharding<@mesh, [[], []], partial = ["data"]>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [2]
func.func @axis_index_unknown(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'loom.axis_index' op axes: mesh @mesh has no axis "model"}}
  %0 = loom.axis_index @mesh, axes = ["model"] : tensor<i32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [4]
func.func @permute_odd_pairs(%x: tensor<8xf32>) {
  // expected-error @+1 {{'loom.collective_permute' op pairs has 3 entries; it lists (source, target) pairs}}
  %0 = loom.collective_permute %x, @mesh, axes = ["data"], pairs = [0, 1, 2] : tensor<8xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [4]
func.func @permute_outside_group(%x: tensor<8xf32>) {
  // expected-error @+1 {{'loom.collective_permute' op pair 3 -> 4 names a position outside the 4 devices of its axes}}
  %0 = loom.collective_permute %x, @mesh, axes = ["data"], pairs = [0, 1, 3, 4] : tensor<8xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [4]
func.func @permute_two_sources(%x: tensor<8xf32>) {
  // expected-error @+1 {{'loom.collective_permute' op position 1 is the source of two pairs}}
  %0 = loom.collective_permute %x, @mesh, axes = ["data"], pairs = [1, 2, 1, 3] : tensor<8xf32>
  return
}

// -----

loom.mesh @mesh axes = ["data"] shape = [4]
func.func @permute_two_targets(%x: tensor<8xf32>) {
  // expected-error @+1 {{'loom.collective_permute' op position 2 is the target of two pairs}}
  %0 = loom.collective_permute %x, @mesh, axes = ["data"], pairs = [0, 2, 1, 2] : tensor<8xf32>
  return
}
