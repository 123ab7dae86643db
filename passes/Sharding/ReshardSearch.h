// The cheapest steps between two shardings of a value once its pending axes agree: a search
// over sequences of free slices, all_gathers, all_to_alls (which may take their axes in
// another order, and slice a free axis first: EmitAllToAll.h) and collective_permutes,
// weighing each by the bytes devices send. planReshard (ReshardPlan.h) takes its result
// where it beats the greedy path, e.g. [[b], []] to [[a, b], []] on a 2x4 mesh: slicing a in
// first gives [[b, a], []], which has as many pieces per dim as the target, and a
// collective_permute then sends each device's 2-row piece once (128 bytes of 16x16 f32,
// where gathering b sent 768).
#ifndef LOOM_PASSES_SHARDING_RESHARDSEARCH_H
#define LOOM_PASSES_SHARDING_RESHARDSEARCH_H

#include "passes/Sharding/ReshardPlan.h"

#include <optional>
#include <tuple>
#include <vector>

namespace mlir::loom {

/// What steps cost, compared in order: the bytes the busiest device sends plus each
/// collective's start-up (kCollectiveLatencyBytes), the bytes an average device sends (a
/// permute's devices that keep their piece send none), and the number of collectives.
struct ReshardCost {
  int64_t busiest = 0, average = 0, collectives = 0;
  int64_t time() const { return busiest + collectives * kCollectiveLatencyBytes; }
  bool operator<(const ReshardCost &o) const {
    return std::tuple(time(), average, collectives) <
           std::tuple(o.time(), o.average, o.collectives);
  }
  ReshardCost operator+(const ReshardCost &o) const {
    return {busiest + o.busiest, average + o.average, collectives + o.collectives};
  }
};
ReshardCost costOf(ArrayRef<ReshardStep> steps);

/// One collective_permute over the axes `from` and `to` split dims on, where both split each
/// dim into as many pieces and no axis of the exchange is pending: each device receives its
/// piece of `to` from a device that holds it under `from` (itself if it does). Every device
/// sends at most its shard, which is the least a device that lacks its piece must receive.
std::optional<ReshardStep> permuteStep(RankedTensorType global, const TensorSharding &from,
                                       const TensorSharding &to, MeshOp mesh);

/// The cheapest steps from `from` to `to` (the same pending axes, none of size 1) that change
/// only the dims the two split differently, or nullopt if there are none or the search grew
/// past its bound.
std::optional<std::vector<ReshardStep>> cheapestReshard(RankedTensorType global,
                                                        const TensorSharding &from,
                                                        const TensorSharding &to, MeshOp mesh);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_RESHARDSEARCH_H
