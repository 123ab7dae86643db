// Gathers from and scatter-adds into a table split by rows: each device holds rows
// [i * R, (i + 1) * R) of the table (i its index along the split's axes) and works on the
// indices that fall there (clamped to the table first, as the ops define), with zeros
// elsewhere. A gather so gives a partial sum over the
// axes (completed by the reduce_scatter or all_reduce the consumer needs), and a
// scatter-add writes only the device's own rows, never the whole table.
#ifndef LOOM_PASSES_SHARDING_SPLITTABLEROWS_H
#define LOOM_PASSES_SHARDING_SPLITTABLEROWS_H

#include "compiler/IR/LoomOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <functional>

namespace mlir::loom {

/// Called with each value the rewrite makes, and the value whose sharding it shares.
using NoteSharding = std::function<void(Value made, Value like)>;

/// Rewrites local `gather` (its table of `allRows` rows split by rows over `axes`) to read
/// only this device's rows, zeros for the others.
void maskGatherToLocalRows(GatherOp gather, int64_t allRows, ArrayRef<StringRef> axes,
                           FlatSymbolRefAttr mesh, const NoteSharding &note);

/// Rewrites local `scatter` (its result of `allRows` rows split by rows over `axes`) to add
/// only the updates whose rows this device holds.
void maskScatterToLocalRows(ScatterAddOp scatter, int64_t allRows, ArrayRef<StringRef> axes,
                            FlatSymbolRefAttr mesh, const NoteSharding &note);

} // namespace mlir::loom

#endif // LOOM_PASSES_SHARDING_SPLITTABLEROWS_H
