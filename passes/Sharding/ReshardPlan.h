// How a value moves from one sharding to another: the collectives, in order, with the bytes
// each device sends. The partitioner emits exactly this plan and propagation costs its choices
// with it, so what propagation weighs is what the program then does.
#ifndef LOOM_PASSES_SHARDING_RESHARDPLAN_H
#define LOOM_PASSES_SHARDING_RESHARDPLAN_H

#include "passes/Sharding/TensorSharding.h"

#include <string>
#include <vector>

namespace mlir::loom {

/// What starting a collective costs, in bytes moved in the same time (about 10 us): plans
/// and propagation's choices weigh a collective's bytes plus this.
constexpr int64_t kCollectiveLatencyBytes = 16384;

struct ReshardStep {
  enum class Kind { Slice, ReduceScatter, AllReduce, AllToAll, AllGather, Permute };
  Kind kind;
  /// The dim sliced, scattered onto or gathered; for all_to_all, the dim that takes the split.
  int64_t dim = 0;
  /// all_to_all only: the dim that gives the split up.
  int64_t fromDim = 0;
  Axes axes;
  /// reduce_scatter and all_reduce: how the partial values combine.
  ReduceKind combiner = ReduceKind::sum;
  /// Bytes each device sends: all_gather (n-1) x its shard, all_reduce 2(n-1)/n x its value
  /// (reduce_scatter + all_gather), reduce_scatter and all_to_all (n-1)/n x its value,
  /// collective_permute its shard.
  int64_t bytes = 0;
  /// The sharding after this step.
  TensorSharding after;
  /// collective_permute only: (source, target) positions in the group of `axes`, flat.
  std::vector<int64_t> pairs;
  /// all_to_all and reduce_scatter: axes no dim splits yet that the step slices from `dim`
  /// first, as the axes after `axes` in its new split ([b] to [b, a] by one all_to_all over
  /// b, each device sending only the columns of its a; a sum pending over a to [[a, b]] by a
  /// reduce_scatter over a of each device's b-th of both halves); none slice from the dim's
  /// major end instead.
  Axes presliced;
  /// all_to_all and all_gather, where the blocks that the dim which gains them (`fromDim`,
  /// `dim`) receives arrive in another order than the one its split names: the order they
  /// arrive in (the collectives' group orders) and the one they are then put in locally.
  /// [a, b] on dim 0 to [b, a] on dim 1: one all_to_all over [b, a], its rows put in [a, b]
  /// order. [b, a] on dim 0 to [b] on dim 1: an all_to_all over b (not dim 0's minor axis),
  /// then the gather over a, the rows arriving in [a, b] order and put in [b, a].
  Axes arrivalOrder, concatOrder;

  /// "all_gather over [fsdp] on dim 0 (192 bytes)", for explanations.
  std::string toString() const;
};

struct ReshardPlan {
  std::vector<ReshardStep> steps;
  int64_t bytes() const;
};

/// The plan taking a `global`-typed value from sharding `from` to `to` on `mesh`. Free slices
/// come first (they shrink everything after them), then partial values are combined: onto a
/// dim that wants the axis next with reduce_scatter, otherwise with one all_reduce; then dims
/// that must lose axes move them to a dim that wants them (all_to_all) or gather them; then
/// the remaining slices; or, where they cost more, the cheapest steps cheapestReshard finds
/// (ReshardSearch.h: slices, gathers, all_to_alls and collective_permutes). Axes of size 1
/// are ignored. Fails, with the reason in `whyNot`, when `to` asks for a partial value `from`
/// is not, or a dim does not divide.
FailureOr<ReshardPlan> planReshard(RankedTensorType global, TensorSharding from,
                                   TensorSharding to, MeshOp mesh, std::string &whyNot);

/// `s` without the axes of size 1 of `mesh`.
TensorSharding withoutTrivialAxes(TensorSharding s, MeshOp mesh);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_RESHARDPLAN_H
