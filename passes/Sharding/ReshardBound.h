// The least a reshard must move: what plans, box exchanges and the reshard audit measure
// themselves against.
#ifndef LOOM_PASSES_SHARDING_RESHARDBOUND_H
#define LOOM_PASSES_SHARDING_RESHARDBOUND_H

#include "passes/Sharding/TensorSharding.h"

namespace mlir::loom {

/// The bytes the busiest device must receive at least to go from `from` to `to` (no axis
/// pending in one and not the other): its piece under `to` less what it holds under `from`.
int64_t leastBytes(RankedTensorType global, const TensorSharding &from,
                   const TensorSharding &to, MeshOp mesh);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_RESHARDBOUND_H
