// Recomputation in the backward sweep of cheap forward values (elementwise chains), instead
// of keeping them alive from the forward to the backward (DESIGN.md "Autodiff").
#ifndef LOOM_PASSES_AUTODIFF_REMATERIALIZE_H
#define LOOM_PASSES_AUTODIFF_REMATERIALIZE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::loom {

/// In `fn`, whose ops in `forward` are the forward pass and whose other ops the backward
/// sweep: every forward value the backward reads that an elementwise chain computes from
/// values kept anyway (or from fewer bytes than it holds) is recomputed where the backward
/// first needs it. A GELU then keeps its input alone, not each of its intermediates. A value
/// that a backward product (dot_general) reads is kept: the product needs it in memory.
void rematerializeCheapValues(func::FuncOp fn, const llvm::DenseSet<Operation *> &forward);

} // namespace mlir::loom

#endif // LOOM_PASSES_AUTODIFF_REMATERIALIZE_H
