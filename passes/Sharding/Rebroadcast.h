// A broadcast's result resharded through its operand: instead of moving the broadcast result
// (a [B, F] block per device), move its operand (an [F] vector) to the sharding the target
// gives its dims and broadcast it again on each device, whose new dims take any split for
// free. A bias or scale vector split one way and broadcast onto activations split another (an
// FSDP-sharded vector against batch-split activations) then costs a gather of the vector, not
// an all_to_all of the activations' size. The partitioner emits this route where it moves
// fewer bytes than resharding the result, and propagation costs reshards the same way.
#ifndef LOOM_PASSES_SHARDING_REBROADCAST_H
#define LOOM_PASSES_SHARDING_REBROADCAST_H

#include "passes/Sharding/TensorSharding.h"

#include <optional>
#include <utility>

namespace mlir::loom {

/// For a reshard of `op`'s result from `from` to `to`, where neither is partial: the shardings
/// its operand (of global shape `operandShape`) has under `from` and must have for a broadcast
/// on each device to make `to`: each operand dim as the result dim it becomes, one of size 1
/// unsplit.
std::optional<std::pair<TensorSharding, TensorSharding>>
rebroadcastShardings(BroadcastInDimOp op, ArrayRef<int64_t> operandShape,
                     const TensorSharding &from, const TensorSharding &to);

/// For loom-partition: where making local broadcast `op` (its operand `operandSharding`)
/// again moves fewer bytes than moving its result (of type `global`) from `from` to `to`,
/// the sharding its operand must be moved to.
std::optional<TensorSharding> cheaperRebroadcast(BroadcastInDimOp op,
                                                 const TensorSharding &operandSharding,
                                                 RankedTensorType global,
                                                 const TensorSharding &from,
                                                 const TensorSharding &to, MeshOp mesh);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_REBROADCAST_H
