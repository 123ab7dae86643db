// Cleanups of the collectives loom-partition emits, for what one op's reshard plan cannot see:
// a value combined for one user (a sharding_constraint that pins it replicated) and sliced by
// the next.
#ifndef LOOM_PASSES_SHARDING_FUSECOLLECTIVES_H
#define LOOM_PASSES_SHARDING_FUSECOLLECTIVES_H

#include "compiler/IR/Sharding.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::loom {

/// Rewrites every all_reduce whose one user is a shard_slice: each sliced axis the all_reduce
/// combines over becomes a reduce_scatter, the other sliced axes are sliced first, and the
/// axes left over are all-reduced on the smaller slice. Half the bytes or less, any axis order.
void fuseCombineThenSlice(func::FuncOp fn, MeshOp mesh);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_FUSECOLLECTIVES_H
