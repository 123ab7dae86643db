// The loom-elementwise-in-place pass (see Passes.td): an elementwise op writes its result
// into the buffer of an operand that dies with it, instead of a fresh one.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::loom {
#define GEN_PASS_DEF_ELEMENTWISEINPLACE
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// Whether `v` will be a buffer of its own that bufferization allocates: the result of a
/// destination-style op whose init is, through such ops, an empty tensor. (Not a function's
/// argument, nor a view of one, which writing into would clobber or make bufferization copy.)
bool isFreshBuffer(Value v) {
  for (int depth = 0; depth < 64; ++depth) {
    if (v.getDefiningOp<tensor::EmptyOp>())
      return true;
    auto result = dyn_cast<OpResult>(v);
    auto dps = result ? dyn_cast<DestinationStyleOpInterface>(result.getOwner()) : nullptr;
    if (!dps)
      return false;
    v = dps.getTiedOpOperand(result)->get();
  }
  return false;
}

/// An input of `op` that its init `init` may take the place of: same type, both read and
/// written at the same element (identity maps), used by nothing else, a fresh buffer.
OpOperand *reusableInput(linalg::GenericOp op, OpOperand &init,
                         ArrayRef<OpOperand *> taken) {
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value v = input->get();
    if (v.getType() != init.get().getType() || !v.hasOneUse() ||
        !op.getMatchingIndexingMap(input).isIdentity() || llvm::is_contained(taken, input) ||
        v.getParentBlock() != op->getBlock() || !isFreshBuffer(v))
      continue;
    return input;
  }
  return nullptr;
}

struct ElementwiseInPlacePass
    : mlir::loom::impl::ElementwiseInPlaceBase<ElementwiseInPlacePass> {
  void runOnOperation() override {
    getOperation()->walk([](linalg::GenericOp op) {
      if (op.getNumLoops() != op.getNumParallelLoops() || !op.hasPureTensorSemantics())
        return;
      SmallVector<OpOperand *> taken;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        // The init's values must not be read (its block argument unused), and it must be an
        // empty tensor: a fill or an earlier result would be lost.
        if (!init.get().getDefiningOp<tensor::EmptyOp>() ||
            !op.getMatchingIndexingMap(&init).isIdentity() ||
            !op.getMatchingBlockArgument(&init).use_empty())
          continue;
        if (OpOperand *input = reusableInput(op, init, taken)) {
          taken.push_back(input);
          init.set(input->get());
        }
      }
    });
  }
};

} // namespace
