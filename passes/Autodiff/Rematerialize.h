// Recomputation in the backward sweep of cheap forward values (elementwise chains), and of
// the groups of ops the user marks (remat), instead of keeping them alive from the forward
// to the backward (DESIGN.md "Autodiff").
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

/// In `fn` (as above): the forward values of each group of ops marked `loom.remat = N` (the
/// DSL's remat) that the backward reads are recomputed, the group's ops that make them
/// cloned just before the first backward op reading one of them, from the group's inputs
/// through loom.optimization_barrier (so that CSE leaves the clones apart). The backward then
/// keeps the group's inputs, not its intermediates.
void rematerializeMarkedGroups(func::FuncOp fn, const llvm::DenseSet<Operation *> &forward);

/// Removes every `loom.remat` mark under `root` (differentiation has used them).
void dropRematMarks(Operation *root);

} // namespace mlir::loom

#endif // LOOM_PASSES_AUTODIFF_REMATERIALIZE_H
