// How jit's inShardings and outShardings become the traced program's `loom.sharding`
// attributes, and how a partitioned program's attributes become DSL shardings again.
#ifndef LOOM_FRONTEND_JITSHARDINGS_H
#define LOOM_FRONTEND_JITSHARDINGS_H

#include "frontend/Jit.h"
#include "frontend/Trace.h"

#include "mlir/IR/Attributes.h"

#include <vector>

namespace loom::detail {

/// The DSL sharding an attribute of the partitioned program names.
NamedSharding namedShardingOf(mlir::Attribute attr, const Mesh &mesh);

/// The `loom.sharding` attribute of every flat argument (null where none is given); checks
/// each against its argument's shape.
std::vector<mlir::Attribute> argumentShardings(Trace &trace, const JitFunction::FlatArgs &args,
                                               const JitOptions &options);

/// Sets the `loom.sharding` of every result of `main` that outShardings gives one; result i
/// of the traced function is compiled result positions[i].
void setResultShardings(Trace &trace, const TracedOutputs &outputs,
                        const std::vector<size_t> &positions, const JitOptions &options);

} // namespace loom::detail

#endif // LOOM_FRONTEND_JITSHARDINGS_H
