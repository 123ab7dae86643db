// An all_to_all step of a reshard plan as ops on a device's local value: the collective, and
// around it the local reshapes that pre-slice free axes (ReshardStep::presliced) and put the
// received blocks in the order the source dim split them (ReshardStep::concatOrder, also
// after a gather).
#ifndef LOOM_PASSES_SHARDING_EMITALLTOALL_H
#define LOOM_PASSES_SHARDING_EMITALLTOALL_H

#include "passes/Sharding/ReshardPlan.h"

#include "mlir/IR/Builders.h"

namespace mlir::loom {

/// Puts the blocks of dim `dim` of `v`, which arrived in the order of the mesh axes
/// `arrival` (major first), in the order `wanted` (the same axes) by a local transpose.
Value reorderBlocks(OpBuilder &b, Location loc, Value v, int64_t dim, ArrayRef<StringRef> arrival,
                    ArrayRef<StringRef> wanted, MeshOp mesh);

/// Slices from dim `step.dim` of `v` the free axes `step.presliced` that its new split names
/// right after the step's own axes (each device keeps its piece of each), so that the step's
/// collective over `step.axes` moves only those pieces; `v` where none.
Value presliceFreeAxes(OpBuilder &b, Location loc, Value v, const ReshardStep &step,
                       MeshOp mesh, FlatSymbolRefAttr meshRef);

/// Emits `step` (an all_to_all) on local value `v` before `b`'s insertion point; the
/// collective gets `reason` and the step's bytes. Returns the value under `step.after`.
Value emitAllToAll(OpBuilder &b, Location loc, Value v, const ReshardStep &step, MeshOp mesh,
                   FlatSymbolRefAttr meshRef, StringRef reason);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_EMITALLTOALL_H
