// Moving ops out of a model's repeats (see RepeatHoisting.h).
#include "compiler/Lowering/RepeatHoisting.h"

#include "compiler/IR/LoomOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace {
/// The most elements a value of scalar bookkeeping holds: a random key's 2 words (a
/// model's own tensors, however small, have more).
constexpr int64_t kScalarElements = 2;

bool isSmall(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  return shaped && shaped.hasStaticShape() && shaped.getNumElements() <= kScalarElements;
}
} // namespace

llvm::DenseSet<Operation *> mlir::loom::hoistConstantChains(Block &block) {
  llvm::DenseSet<Operation *> chain;
  Operation *last = nullptr;
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (op.getNumRegions() || !isMemoryEffectFree(&op))
      continue;
    bool fromConstants = llvm::all_of(op.getOperands(), [&](Value v) {
      return v.getDefiningOp() && chain.contains(v.getDefiningOp());
    });
    if (!fromConstants)
      continue;
    chain.insert(&op);
    if (last)
      op.moveAfter(last);
    else
      op.moveBefore(&block, block.begin());
    last = &op;
  }
  return chain;
}

void mlir::loom::hoistScalarChains(Block &block, const llvm::DenseSet<Operation *> &constants) {
  // The last constant-chain op: ops reading only arguments and constants go after it.
  Operation *top = nullptr;
  for (Operation &op : block)
    if (constants.contains(&op))
      top = &op;
  llvm::DenseSet<Operation *> chain;
  // The op moved last: later ones go after it too, so that moved ops keep their order (it
  // came before them, so it still precedes where they were).
  Operation *moved = nullptr;
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (constants.contains(&op) || op.getNumRegions() || !isMemoryEffectFree(&op) ||
        op.getNumResults() == 0 || !llvm::all_of(op.getResultTypes(), isSmall))
      continue;
    // A chain starts at a slice taking a few elements (a key's row of the split keys) and
    // goes on through ops that read only the chain and constants.
    bool continues = llvm::all_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && (chain.contains(def) || constants.contains(def));
    });
    if (!isa<mlir::loom::SliceOp>(op) && !continues)
      continue;
    chain.insert(&op);
    // Just after the latest op it reads (ops of this block; the others are arguments).
    Operation *after = top;
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == &block && (!after || after->isBeforeInBlock(def)))
        after = def;
    }
    if (moved && (!after || after->isBeforeInBlock(moved)))
      after = moved;
    if (after)
      op.moveAfter(after);
    else
      op.moveBefore(&block, block.begin());
    moved = &op;
  }
}
