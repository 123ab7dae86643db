// The loom-fuse-elementwise pass (see Passes.td): upstream's elementwise fusion patterns
// alone, without the reshape propagation that hides matmuls from the BLAS lowering. A value
// with several users is recomputed in each when that is cheap (masks, `x - mean`), else joins
// an elementwise user over the same elements as one more result (multi-output fusion).
#include "compiler/Lowering/LoweringPatterns.h"
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::loom {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
/// Whether each element of `producer` costs a few additions or multiplications (no division,
/// no transcendental math): cheaper to compute again than to write and read back.
bool isCheapPerElement(linalg::GenericOp producer) {
  int ops = 0;
  for (Operation &op : producer.getBody()->without_terminator()) {
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp, arith::AddIOp,
             arith::SubIOp, arith::MulIOp, arith::SelectOp, arith::CmpFOp, arith::CmpIOp,
             arith::ConstantOp, arith::IndexCastOp, linalg::IndexOp>(op))
      return false;
    ++ops;
  }
  return ops <= 4;
}

/// Whether `producer`, used several times, is computed again in each user instead of being
/// written once and read by each. So are values of the indices alone (a causal mask), and
/// cheap values that read at most one tensor over all their elements (`x - mean` in a layer
/// norm, read by the variance, the output and the backward): each user then reads that tensor
/// instead of the value, as many bytes, and nothing is written. Every user must take it in
/// (an input read through a permutation, so that each element is computed once per user).
bool recomputedInEachUser(linalg::GenericOp producer) {
  if (producer->getNumResults() != 1 || producer->hasOneUse() || producer->use_empty() ||
      !isPure(producer.getOperation()) ||
      producer.getNumParallelLoops() != producer.getNumLoops())
    return false;
  if (producer.getNumDpsInputs() == 0)
    return true;
  if (!isCheapPerElement(producer) ||
      llvm::count_if(producer.getDpsInputOperands(), [&](OpOperand *in) {
        return producer.getMatchingIndexingMap(in).isPermutation();
      }) > 1)
    return false;
  return llvm::all_of(producer->getResult(0).getUses(), [](OpOperand &use) {
    auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
    return user && user.isDpsInput(&use) && !user->hasAttr(mlir::loom::kStridedContraction) &&
           user.getMatchingIndexingMap(&use).isPermutation() &&
           linalg::areElementwiseOpsFusable(&use);
  });
}

/// Gives each use of a value recomputedInEachUser a copy of its own, which then fuses into
/// that user.
bool cloneRecomputedProducers(Operation *root) {
  bool cloned = false;
  root->walk([&](linalg::GenericOp producer) {
    if (!recomputedInEachUser(producer))
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

/// Whether `consumer` is the only user of `producer`'s results: one use, or several results
/// all read by it as inputs (a backward's loop whose partial terms one sum adds up). Each
/// fusion copies the producer's body in for one of them; the pass then keeps one copy of each
/// op (the same inputs, the same ops), so the values are neither written nor computed twice.
/// (A result that is also the consumer's init would keep the producer alive beside the fused
/// loop: it would run twice.)
bool onlyReadBy(Operation *producer, Operation *consumer) {
  if (producer->hasOneUse())
    return true;
  auto loop = dyn_cast<linalg::GenericOp>(consumer);
  return loop && !producer->use_empty() &&
         llvm::all_of(producer->getUses(), [&](OpOperand &use) {
           return use.getOwner() == consumer && loop.isDpsInput(&use);
         });
}

/// Whether the producer of `fused`, when it has other users, can join its consumer as one more
/// result of the fused loop (upstream keeps such a "preserved" result): each element is then
/// computed once, and the consumer reads the producer's inputs instead of its result. Only
/// into a consumer over the same elements (all parallel, the operand read through a
/// permutation), so that nothing is recomputed or written twice; and only when every other
/// user comes after the consumer, which is where the fused loop is built.
bool joinsAsExtraResult(OpOperand *fused) {
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  if (!consumer || consumer.getNumReductionLoops() != 0 ||
      !consumer.getMatchingIndexingMap(fused).isPermutation())
    return false;
  // A value recomputed in each user is better copied into each (cloneRecomputedProducers).
  auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
  if (!producer || onlyReadBy(producer, consumer) || recomputedInEachUser(producer))
    return false;
  // The fusion replaces the fused value; another result of the producer that the consumer
  // also reads would become an input of the fused loop that the loop itself defines (a
  // select between two results of one loop, in a backward).
  if (llvm::any_of(consumer->getOperands(), [&](Value v) {
        return v != fused->get() && v.getDefiningOp() == producer.getOperation();
      }))
    return false;
  Block *block = consumer->getBlock();
  for (Operation *user : producer->getUsers()) {
    if (user == consumer)
      continue;
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (!inBlock || !consumer->isBeforeInBlock(inBlock))
      return false;
  }
  return true;
}

/// Fuses a producer with several users into an elementwise consumer, the producer's value one
/// more result of the fused loop (upstream's pattern, given such a producer, copies its body
/// into the consumer and keeps the producer: the work is done twice).
struct FuseIntoUserAsExtraResult : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (consumer->hasAttr(mlir::loom::kStridedContraction))
      return failure();
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      if (!linalg::areElementwiseOpsFusable(operand) || !joinsAsExtraResult(operand))
        continue;
      Operation *producer = operand->get().getDefiningOp();
      FailureOr<linalg::ElementwiseOpFusionResult> fusion =
          linalg::fuseElementwiseOps(rewriter, operand);
      if (failed(fusion))
        continue;
      // The producer's other users all come after the consumer, where the fused loop is.
      for (auto [original, replacement] : fusion->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      if (producer->use_empty()) // else still read, e.g. as the fused loop's init
        rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

struct FuseElementwisePass : mlir::loom::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      // A GEMM read in place stays one for the BLAS lowering (as a producer it never fuses:
      // it reduces).
      return producer && onlyReadBy(producer, fused->getOwner()) &&
             !fused->getOwner()->hasAttr(mlir::loom::kStridedContraction);
    });
    patterns.add<FuseIntoUserAsExtraResult>(&getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Fusion may make a value to recompute (iotas compared into a mask) out of several ops;
    // its copies then fuse in another round.
    for (int round = 0; round < 4; ++round) {
      if (failed(applyPatternsGreedily(getOperation(), frozen)))
        return signalPassFailure();
      if (!cloneRecomputedProducers(getOperation()))
        break;
    }
    // A loop fused with several results of one producer holds a copy of its body per result
    // (onlyReadBy): one is kept.
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance;
    getOperation()->walk([&](linalg::GenericOp loop) {
      eliminateCommonSubExpressions(rewriter, dominance, loop);
    });
  }
};
} // namespace
