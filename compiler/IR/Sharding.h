// Checks shared by every op and pass that meets a sharding: is it valid for this tensor on
// this mesh? Messages name the dim, the axes and the sizes involved.
#ifndef LOOM_COMPILER_IR_SHARDING_H
#define LOOM_COMPILER_IR_SHARDING_H

#include "compiler/IR/LoomOps.h"

namespace mlir::loom {

/// The mesh `name` refers to from `from`, or null.
MeshOp lookupMesh(Operation *from, FlatSymbolRefAttr name);

/// The product of the sizes of `axes` on `mesh`; every axis must exist.
int64_t groupSize(MeshOp mesh, ArrayRef<StringRef> axes);

/// Checks that `axes` are distinct axes of `mesh`. `what` names them in messages
/// ("axes of dim 1").
LogicalResult verifyAxes(function_ref<InFlightDiagnostic()> emitError, MeshOp mesh,
                         ArrayRef<StringRef> axes, StringRef what);

/// Checks `sharding` for a tensor of `type`: a known mesh, known axes used once, no more dims
/// than the rank, and each dim divisible by its axes' sizes.
LogicalResult verifySharding(function_ref<InFlightDiagnostic()> emitError, Operation *from,
                             ShardingAttr sharding, RankedTensorType type);

/// The local (per-device) type of a `type` tensor sharded as `sharding` on `mesh`.
RankedTensorType localType(RankedTensorType type, ShardingAttr sharding, MeshOp mesh);

/// StringRefs of a string array attribute.
SmallVector<StringRef> stringsOf(ArrayAttr array);

} // namespace mlir::loom

#endif // LOOM_COMPILER_IR_SHARDING_H
