// A reshard as an exchange of boxes: each device's piece under the target sharding is cut
// into the boxes where it meets the pieces of the source sharding, and each box comes from a
// device that holds it (itself where it can), by collective_permutes of like boxes. Every
// device then receives only what it lacks: the bound that steps of named axes miss where the
// two shardings split dims into different numbers of pieces ([[a], [b]] to [[b], [a]] on a
// 2x4 mesh has no intermediate sharding with a piece per device that both steps could share;
// MPI's alltoallv sends such boxes directly). loom-partition takes it where it moves fewer
// bytes than the planned steps, counting each collective's start-up.
#ifndef LOOM_PASSES_SHARDING_BOXEXCHANGE_H
#define LOOM_PASSES_SHARDING_BOXEXCHANGE_H

#include "passes/Sharding/ReshardPlan.h"

#include "mlir/IR/Builders.h"

#include <limits>
#include <optional>

namespace mlir::loom {

struct BoxExchange {
  /// The mesh axes either sharding splits dims over, in mesh order: the permutes' group.
  SmallVector<StringRef> axes;
  /// One collective_permute: the box at `source` (of `shape`) in each sender's piece goes to
  /// `target` in its receiver's piece. `pairs` as the op's: (sender, receiver) positions in
  /// the group; a device may send to itself. A move whose every pair is such is no permute:
  /// its devices keep the box, the others zeros (a select on the device's index).
  struct Move {
    SmallVector<int64_t> source, target, shape, pairs;
  };
  SmallVector<Move> moves;
  /// Devices in the group of `axes`.
  int64_t devices = 1;
  /// Bytes the busiest device receives from others.
  int64_t busiest = 0;
  /// The busiest bytes plus each permute's start-up (kCollectiveLatencyBytes).
  int64_t time() const;
};

/// The exchange from `from` to `to` for a `global` value where it costs less than `steps`
/// (ReshardCost::time): what loom-partition emits instead and propagation weighs. Nullopt
/// where it costs as much or more, where either sharding is partial, the element type cannot
/// be summed (i1), or the boxes grow past a bound.
std::optional<BoxExchange> cheaperBoxExchange(RankedTensorType global,
                                              const TensorSharding &from,
                                              const TensorSharding &to, MeshOp mesh,
                                              ArrayRef<ReshardStep> steps);

/// What the partitioner's move of a `global` value from `from` to `to` costs (ReshardCost::time
/// of the planned steps, or of the box exchange where that is cheaper); kUnreachableReshard
/// where there is none.
constexpr int64_t kUnreachableReshard = std::numeric_limits<int64_t>::max() / 4;
int64_t reshardTime(RankedTensorType global, const TensorSharding &from,
                    const TensorSharding &to, MeshOp mesh);

/// Emits `exchange` on local value `v` before `b`'s insertion point: per move a slice and a
/// permute (with `reason` and its bytes; none where every device keeps its own box); the
/// moves into one box of the piece summed (a device gets zeros from the permutes that do not
/// target it); the boxes side by side in a piece of shape `target`. Where devices' pieces are
/// cut into different boxes, the piece is built on the grid of all their cuts, each of its
/// boxes the sum of the parts of the boxes that cover it.
Value emitBoxExchange(OpBuilder &b, Location loc, Value v, const BoxExchange &exchange,
                      FlatSymbolRefAttr mesh, RankedTensorType target, StringRef reason);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_BOXEXCHANGE_H
