// The loom-fuse-elementwise pass (see Passes.td): upstream's elementwise fusion patterns
// alone, without the reshape propagation that hides matmuls from the BLAS lowering; values
// computed from indices alone (masks, iotas) are recomputed in each user.
#include "compiler/Lowering/LoweringPatterns.h"
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::loom {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
/// A generic that reads no tensor (its value depends on the indices alone, as a causal mask
/// does) and has several users gets a copy per user, so that each fuses into its user:
/// recomputing it from the indices is cheaper than writing it and reading it back.
bool cloneIndexOnlyProducers(Operation *root) {
  bool cloned = false;
  root->walk([&](linalg::GenericOp producer) {
    if (producer.getNumDpsInputs() != 0 || producer->getNumResults() != 1 ||
        producer->hasOneUse() || producer->use_empty() || !isPure(producer.getOperation()))
      return;
    for (OpOperand &use : llvm::make_early_inc_range(
             llvm::drop_begin(producer->getResult(0).getUses()))) {
      OpBuilder b(producer);
      use.set(b.clone(*producer)->getResult(0));
      cloned = true;
    }
  });
  return cloned;
}

struct FuseElementwisePass : mlir::loom::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      // A GEMM read in place stays one for the BLAS lowering (as a producer it never fuses:
      // it reduces).
      return producer && producer->hasOneUse() &&
             !fused->getOwner()->hasAttr(mlir::loom::kStridedContraction);
    });
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Fusion may make an index-only value (iotas compared into a mask) out of several ops;
    // its copies then fuse in another round.
    for (int round = 0; round < 4; ++round) {
      if (failed(applyPatternsGreedily(getOperation(), frozen)))
        return signalPassFailure();
      if (!cloneIndexOnlyProducers(getOperation()))
        break;
    }
  }
};
} // namespace
