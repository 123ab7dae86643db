// The partitioner as a function, for loom-partition and for propagation's explain option
// (which partitions a copy to say exactly which collectives each op will need).
#ifndef LOOM_PASSES_SHARDING_PARTITION_H
#define LOOM_PASSES_SHARDING_PARTITION_H

#include "compiler/IR/Sharding.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::loom {

/// Rewrites `fn`, whose ops carry propagation's `loom.shardings` and `loom.factors`, into the
/// program of one device of `mesh`, with its collectives.
LogicalResult partitionFunction(func::FuncOp fn, MeshOp mesh);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_PARTITION_H
