// The partitioner as a function, for loom-partition and for propagation's explain option
// (which partitions a copy to say exactly which collectives each op will need).
#ifndef LOOM_PASSES_SHARDING_PARTITION_H
#define LOOM_PASSES_SHARDING_PARTITION_H

#include "compiler/IR/Sharding.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::loom {

/// Rewrites `fn`, whose ops carry propagation's `loom.shardings` and `loom.factors`, into the
/// program of one device of `mesh`, with its collectives. With `keepGathered`, a value
/// resharded for one user is reused by every later user wanting the same sharding (a gathered
/// parameter is not gathered again for the backward); without, only combined partial sums are.
LogicalResult partitionFunction(func::FuncOp fn, MeshOp mesh, bool keepGathered = false);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_PARTITION_H
