// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests that plans pay for what they make necessary, checked on the bytes each device sends.

// An FSDP matmul with no sharding asked of its result: all-gathering the 8 MB weight sends
// 6.3 MB per device; contracting the split dim instead would all-reduce a 1 GiB partial result
// (1.6 GB per device) and leave it replicated on every device.
// CHECK-LABEL: func.func @fsdp_unannotated
// CHECK-SAME: -> (tensor<2048x32768xf32>
// CHECK-NEXT: loom.all_gather %arg1, @mesh, dim = 0, axes = ["data"] {bytes = 6291456 : i64
// CHECK-NEXT: loom.dot_general {{.*}} -> tensor<2048x32768xf32>
// CHECK-NEXT: return
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @fsdp_unannotated(%x: tensor<8192x64xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                            %w: tensor<64x32768xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> tensor<8192x32768xf32> {
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8192x64xf32>, tensor<64x32768xf32>) -> tensor<8192x32768xf32>
  return %y : tensor<8192x32768xf32>
}

// -----

// The same at small sizes.
// CHECK-LABEL: func.func @fsdp_small
// CHECK-NEXT: loom.all_gather %arg1, @mesh, dim = 0, axes = ["data"] {bytes = 1536 : i64
// CHECK-NEXT: loom.dot_general {{.*}} -> tensor<2x32xf32>
// CHECK-NEXT: return
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @fsdp_small(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                      %w: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> tensor<8x32xf32> {
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// A weight gradient pinned replicated, then wanted FSDP-split: one reduce_scatter (1536 bytes),
// not an all_reduce (3072) and a slice.
// CHECK-LABEL: func.func @wgrad_pinned
// CHECK: loom.dot_general
// CHECK-NEXT: loom.reduce_scatter {{.*}} dim = 0, axes = ["data"] {bytes = 1536 : i64
// CHECK-NOT: loom.all_reduce
// CHECK-NOT: loom.shard_slice
// CHECK: return
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @wgrad_pinned(%x: tensor<64x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                        %dy: tensor<64x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> (tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>}) {
  %g = loom.dot_general %x, %dy, batching_dims = [] x [], contracting_dims = [0] x [0] : (tensor<64x16xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %r = loom.sharding_constraint %g : tensor<16x32xf32> to #loom.sharding<@mesh, []>
  return %r : tensor<16x32xf32>
}

// -----

// A sequence-parallel MLP whose output is pinned replicated and then added to the
// sequence-split residual: all_gather in, reduce_scatter out (Megatron-SP).
// CHECK-LABEL: func.func @sequence_parallel_mlp
// CHECK-NEXT: loom.all_gather %arg0, @mesh, dim = 0, axes = ["model"] {bytes = 384 : i64
// CHECK: loom.reduce_scatter {{.*}} dim = 0, axes = ["model"] {bytes = 384 : i64
// CHECK-NOT: loom.all_reduce
// CHECK-NOT: loom.shard_slice
// CHECK: return
loom.mesh @mesh axes = ["model"] shape = [4]
func.func @sequence_parallel_mlp(%x: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>},
                                 %w1: tensor<8x32xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>},
                                 %w2: tensor<32x8xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>})
    -> (tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>}) {
  %h = loom.dot_general %x, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
  %a = loom.tanh %h : tensor<16x32xf32>
  %y = loom.dot_general %a, %w2, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  %p = loom.sharding_constraint %y : tensor<16x8xf32> to #loom.sharding<@mesh, []>
  %z = loom.add %p, %x : tensor<16x8xf32>
  return %z : tensor<16x8xf32>
}

// -----

// On a 2-d mesh, a sum partial over x wanted split over [y, x]: the product runs on the rows
// split over y (its operand sliced for free, half the work), then reduce_scatter over x on
// the quarter. In the other order, [x, y], the reduce_scatter over x first slices y's rows
// from each half (ReshardStep::presliced: each device keeps the rows of its y in both x
// halves), so it too moves a quarter: 512 bytes, where scattering the halves and slicing
// after moved 1024.
// CHECK-LABEL: func.func @partial_x_to_yx
// CHECK-NEXT: loom.shard_slice %arg0, @mesh, dim = 0, axes = ["y"] {bytes = 0 : i64
// CHECK-NEXT: loom.dot_general %{{.*}} -> tensor<8x32xf32>
// CHECK-NEXT: loom.reduce_scatter {{.*}} dim = 0, axes = ["x"] {bytes = 512 : i64
// CHECK-NEXT: return
// CHECK-LABEL: func.func @partial_x_to_xy
// CHECK: loom.dot_general {{.*}} -> tensor<16x32xf32>
// CHECK-NEXT: loom.reshape {{.*}} : tensor<16x32xf32> -> tensor<2x2x4x32xf32>
// CHECK-NEXT: loom.shard_slice {{.*}} dim = 1, axes = ["y"] : tensor<2x2x4x32xf32> -> tensor<2x1x4x32xf32>
// CHECK-NEXT: loom.reshape {{.*}} : tensor<2x1x4x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: loom.reduce_scatter {{.*}} dim = 0, axes = ["x"] {bytes = 512 : i64{{.*}} : tensor<8x32xf32> -> tensor<4x32xf32>
// CHECK-NEXT: return
// CHECK-LABEL: func.func @pinned_x_to_yx
// CHECK: loom.shard_slice {{.*}} dim = 0, axes = ["y"]
// CHECK-NEXT: loom.reduce_scatter {{.*}} dim = 0, axes = ["x"] {bytes = 512 : i64
// CHECK-NOT: loom.all_reduce
loom.mesh @mesh axes = ["x", "y"] shape = [2, 2]
func.func @partial_x_to_yx(%a: tensor<16x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["x"]]>},
                           %b: tensor<64x32xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], []]>})
    -> (tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["y", "x"], []]>}) {
  %g = loom.dot_general %a, %b, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %g : tensor<16x32xf32>
}
func.func @partial_x_to_xy(%a: tensor<16x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["x"]]>},
                           %b: tensor<64x32xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], []]>})
    -> (tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["x", "y"], []]>}) {
  %g = loom.dot_general %a, %b, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %g : tensor<16x32xf32>
}
func.func @pinned_x_to_yx(%a: tensor<16x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["x"]]>},
                          %b: tensor<64x32xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], []]>})
    -> (tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["y", "x"], []]>}) {
  %g = loom.dot_general %a, %b, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %r = loom.sharding_constraint %g : tensor<16x32xf32> to #loom.sharding<@mesh, []>
  return %r : tensor<16x32xf32>
}

// -----

// [[x], [y]] -> [[y], [x]] with an op on each side of the constraint: each op runs at one
// end's sharding (32x32 per device, never a 64x32 compromise), and the reshard is the one used
// with nothing in between: the two devices whose pieces swap send them to each other, 4096
// bytes (all_gather + all_to_all + slice would send 8192).
// CHECK-LABEL: func.func @swap_between_ops
// CHECK-NEXT: loom.exp %arg0 : tensor<32x32xf32>
// CHECK-NEXT: loom.collective_permute {{.*}} axes = ["x", "y"], pairs = [0, 0, 1, 2, 2, 1, 3, 3] {bytes = 4096 : i64
// CHECK-NEXT: loom.tanh {{.*}} : tensor<32x32xf32>
// CHECK-NEXT: return
loom.mesh @mesh axes = ["x", "y"] shape = [2, 2]
func.func @swap_between_ops(%a: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], ["y"]]>})
    -> (tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["y"], ["x"]]>}) {
  %b = loom.exp %a : tensor<64x64xf32>
  %c = loom.sharding_constraint %b : tensor<64x64xf32> to #loom.sharding<@mesh, [["y"], ["x"]]>
  %d = loom.tanh %c : tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// A result used twice is resharded at each use, and propagation pays for both: an update of a
// replicated moment by a split gradient runs replicated (one gather of the gradient, 384 bytes)
// rather than split with its result gathered for each of its two users.
// CHECK-LABEL: func.func @update_used_twice
// CHECK-NEXT: loom.all_gather %arg1, @mesh, dim = 0, axes = ["data"] {bytes = 384 : i64
// CHECK-NEXT: loom.add {{.*}} : tensor<16x8xf32>
// CHECK-NOT: loom.all_gather
// CHECK: return
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @update_used_twice(%m: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, []>},
                             %g: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> (tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, []>},
        tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %a = loom.add %m, %g : tensor<16x8xf32>
  %d = loom.div %a, %m : tensor<16x8xf32>
  return %a, %d : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// Reshards the greedy steps would do by gathering, planned by the search (ReshardSearch.h):
// [[b]] to [[a, b]] on 2x4 slices a in for free ([[b, a]], as many pieces as the target) and
// permutes each device's 32 KB piece to its holder, where gathering b sent 192 KB;
// [[a]] to [[b]] (2 pieces to 4) slices b in, permutes [[a, b]] to [[b, a]] and gathers a:
// 64 KB instead of gathering a (128 KB). A small value keeps the one all_gather: each
// collective's start-up (16 KB, kCollectiveLatencyBytes) outweighs the bytes saved.
// CHECK-LABEL: func.func @finer
// CHECK-NEXT: loom.shard_slice %arg0, @mesh, dim = 0, axes = ["a"]
// CHECK-NEXT: loom.collective_permute {{.*}} axes = ["a", "b"], pairs = [0, 0, 4, 1, 1, 2, 5, 3, 2, 4, 6, 5, 3, 6, 7, 7] {bytes = 32768 : i64
// CHECK-NEXT: return
// CHECK-LABEL: func.func @other_size
// CHECK-NEXT: loom.shard_slice %arg0, @mesh, dim = 0, axes = ["b"]
// CHECK-NEXT: loom.collective_permute {{.*}} axes = ["a", "b"], {{.*}} {bytes = 32768 : i64
// CHECK-NEXT: loom.all_gather {{.*}} dim = 0, axes = ["a"] {bytes = 32768 : i64
// CHECK-NEXT: return
// CHECK-LABEL: func.func @small
// CHECK-NEXT: loom.all_gather %arg0, @mesh, dim = 0, axes = ["a"] {bytes = 512 : i64
// CHECK-NEXT: loom.shard_slice
// CHECK-NEXT: return
loom.mesh @mesh axes = ["a", "b"] shape = [2, 4]
func.func @finer(%x: tensor<1024x64xf32> {loom.sharding = #loom.sharding<@mesh, [["b"], []]>})
    -> (tensor<1024x64xf32> {loom.sharding = #loom.sharding<@mesh, [["a", "b"], []]>}) {
  return %x : tensor<1024x64xf32>
}
func.func @other_size(%x: tensor<1024x64xf32> {loom.sharding = #loom.sharding<@mesh, [["a"], []]>})
    -> (tensor<1024x64xf32> {loom.sharding = #loom.sharding<@mesh, [["b"], []]>}) {
  return %x : tensor<1024x64xf32>
}
func.func @small(%x: tensor<16x16xf32> {loom.sharding = #loom.sharding<@mesh, [["a"], []]>})
    -> (tensor<16x16xf32> {loom.sharding = #loom.sharding<@mesh, [["b"], []]>}) {
  return %x : tensor<16x16xf32>
}

// -----

// A product contracting a dim split over [a, b], its result wanted split over [a, b] on its
// rows. A reduce_scatter of the whole 4 MiB partial product over both axes receives 3.5 MiB
// per device; the product split over [a] on its rows and [b] on its contraction receives
// 1.5 MiB of operands (moving its split axes) and reduce_scatters a quarter of it over [b]
// onto [a, b]: 1.5 MiB, 3 MiB in all.
// CHECK-LABEL: func.func @contract_two_axes
// CHECK-NOT: axes = ["a", "b"] {bytes = 3670016
// CHECK: loom.dot_general {{.*}} -> tensor<512x1024xf32>
// CHECK-NEXT: loom.reduce_scatter %{{.*}}, @mesh, dim = 0, axes = ["b"] {bytes = 1572864 : i64
// CHECK-SAME: -> tensor<128x1024xf32>
// CHECK-NEXT: return
loom.mesh @mesh axes = ["a", "b"] shape = [2, 4]
func.func @contract_two_axes(%x: tensor<1024x1024xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["a", "b"]]>},
                             %w: tensor<1024x1024xf32> {loom.sharding = #loom.sharding<@mesh, [["a", "b"], []]>})
    -> (tensor<1024x1024xf32> {loom.sharding = #loom.sharding<@mesh, [["a", "b"], []]>}) {
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %y : tensor<1024x1024xf32>
}
