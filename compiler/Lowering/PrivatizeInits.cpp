// The loom-privatize-inits pass (see Passes.td): every destination-style op gets its own
// fill as init, so bufferization never copies a shared one.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::loom {
#define GEN_PASS_DEF_PRIVATIZEINITS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
/// A fill of an empty tensor: cheap to recreate next to each user. (A shared empty tensor
/// is left alone: sharing it is what lets bufferization reuse one buffer across ops.)
bool isFreshInit(Operation *op) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op);
  return fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
}

struct PrivatizeInitsPass : mlir::loom::impl::PrivatizeInitsBase<PrivatizeInitsPass> {
  void runOnOperation() override {
    SmallVector<OpOperand *> shared;
    getOperation()->walk([&](DestinationStyleOpInterface op) {
      for (OpOperand &init : op.getDpsInitsMutable())
        if (Operation *def = init.get().getDefiningOp();
            isFreshInit(def) && !init.get().hasOneUse())
          shared.push_back(&init);
    });
    // Every user gets a fill of its own right before it; the original goes once unused.
    SetVector<Operation *> originals;
    for (OpOperand *init : shared) {
      Operation *def = init->get().getDefiningOp();
      originals.insert(def);
      OpBuilder b(init->getOwner());
      IRMapping mapping;
      if (auto fill = dyn_cast<linalg::FillOp>(def))
        b.clone(*fill.getOutputs()[0].getDefiningOp(), mapping);
      Operation *copy = b.clone(*def, mapping);
      init->set(copy->getResult(cast<OpResult>(init->get()).getResultNumber()));
    }
    for (Operation *def : originals) {
      if (!def->use_empty())
        continue;
      Operation *empty = nullptr;
      if (auto fill = dyn_cast<linalg::FillOp>(def))
        empty = fill.getOutputs()[0].getDefiningOp();
      def->erase();
      if (empty && empty->use_empty())
        empty->erase();
    }
  }
};
} // namespace
