// A reshard plan's steps as the collectives and local ops one device runs (the partitioner
// emits every planned reshard through it; box exchanges: BoxExchange.h).
#ifndef LOOM_PASSES_SHARDING_EMITRESHARD_H
#define LOOM_PASSES_SHARDING_EMITRESHARD_H

#include "passes/Sharding/EmitAllToAll.h"

#include <string>

namespace mlir::loom {

/// Emits `steps` on local value `v` (of the `global` type) before `b`'s insertion point, each
/// collective with its bytes and the reason `reason` gives for its kind ("split dim", "partial
/// sum", ...). Returns the value under the last step's sharding.
Value emitReshardSteps(OpBuilder &b, Location loc, Value v, ArrayRef<ReshardStep> steps,
                       RankedTensorType global, MeshOp mesh, FlatSymbolRefAttr meshRef,
                       function_ref<std::string(StringRef kind)> reason);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_EMITRESHARD_H
