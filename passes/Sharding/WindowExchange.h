// A cleanup after partitioning for ops that read across a split dim. loom.slice, loom.pad and
// loom.concatenate along a dim need it whole, so loom-partition gathers their split operands
// and, where the result is split again, slices each device's piece out of the result. Most
// of what was gathered is thrown away: a device's piece of `x[128:256]` of a [384] dim split
// 4 ways lies on one or two devices, and a roll (concatenate(x[8:], x[:8])) needs 8 rows
// from one neighbour. As XLA exchanges halos, the chain becomes collective_permutes of the
// parts each device reads from others, then a local selection.
#ifndef LOOM_PASSES_SHARDING_WINDOWEXCHANGE_H
#define LOOM_PASSES_SHARDING_WINDOWEXCHANGE_H

#include "compiler/IR/Sharding.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::loom {

/// Rewrites each shard_slice (dim d, axes A) of a value built only by loom.slice, loom.pad
/// (no interior padding) and loom.concatenate along d from all_gathers over A along d (each
/// used once) and values every device holds whole: each device receives, by one
/// collective_permute per group of like transfers, the parts of other devices' pieces its
/// result reads, and selects its result from them and what it holds. Kept as it was where
/// that would move as many bytes or more (counting each collective's start-up).
void exchangeWindows(func::FuncOp fn, MeshOp mesh);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_WINDOWEXCHANGE_H
