// Moving ops that would interrupt a model's repeats out of the way before
// loom-outline-repeated-blocks searches for them.
#ifndef LOOM_COMPILER_LOWERING_REPEATHOISTING_H
#define LOOM_COMPILER_LOWERING_REPEATHOISTING_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::loom {

/// Pure ops computed from constants alone (the causal mask's iota/compare): moved to the top
/// of the block so they do not interrupt the repeats. Returns them: a block that uses them
/// clones them in, so its fusion still sees how they are made.
llvm::DenseSet<Operation *> hoistConstantChains(Block &block);

/// Scalar bookkeeping (a few elements sliced from a tensor, and pure ops on those and
/// constants: a layer's random key taken from the split keys, and its words), moved up to
/// just after what it reads. Such ops differ from layer to layer (the key's row is an
/// attribute of its slice) and would break the repeats; moved, each layer reads their results
/// as its arguments. They cost nothing wherever they run, and the move only ends their
/// operands' lives sooner.
void hoistScalarChains(Block &block, const llvm::DenseSet<Operation *> &constants);

} // namespace mlir::loom

#endif
