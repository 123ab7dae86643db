// The loom-promote-accumulators pass (see Passes.td): a loop that reads and writes the same
// element each iteration (a reduction's accumulator) carries it in a register instead.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::loom {
#define GEN_PASS_DEF_PROMOTEACCUMULATORS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// A load and a later store of the same element of one buffer, in one loop body.
struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
};

/// The accumulators of `loop`: each buffer its body stores to is stored once, at indices
/// defined outside the loop, after one load of the same element; nothing else in the body
/// writes memory or calls out. Empty if the body is anything else.
SmallVector<Accumulator> accumulatorsOf(scf::ForOp loop) {
  SmallVector<Accumulator> found;
  Block &body = *loop.getBody();
  for (Operation &op : body.without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      Value buffer = store.getMemRef();
      if (!llvm::all_of(store.getIndices(),
                        [&](Value i) { return loop.isDefinedOutsideOfLoop(i); }))
        return {};
      memref::LoadOp match;
      for (Operation &before : body) {
        if (&before == store.getOperation())
          break;
        if (auto load = dyn_cast<memref::LoadOp>(before);
            load && load.getMemRef() == buffer && load.getIndices() == store.getIndices())
          match = match ? memref::LoadOp() : load; // exactly one
      }
      if (!match)
        return {};
      // No other access to that buffer in the loop (another element would alias the register).
      for (Operation *user : buffer.getUsers())
        if (user != match && user != store && loop->isAncestor(user))
          return {};
      found.push_back({match, store});
      continue;
    }
    if (isa<memref::LoadOp>(op) || isMemoryEffectFree(&op))
      continue;
    return {}; // a nested loop, a call, a write we do not understand
  }
  return found;
}

struct PromoteAccumulatorsPass
    : mlir::loom::impl::PromoteAccumulatorsBase<PromoteAccumulatorsPass> {
  void runOnOperation() override {
    // Innermost loops first (post-order), so an outer loop sees its inner loop promoted.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      SmallVector<Accumulator> accumulators = accumulatorsOf(loop);
      if (accumulators.empty())
        continue;
      rewriter.setInsertionPoint(loop);
      SmallVector<Value> initial;
      for (Accumulator &a : accumulators)
        initial.push_back(memref::LoadOp::create(rewriter, a.load.getLoc(), a.load.getMemRef(),
                                                 a.load.getIndices()));
      auto promoted = cast<LoopLikeOpInterface>(loop.getOperation())
                          .replaceWithAdditionalYields(
                              rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
                              [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
                                SmallVector<Value> next;
                                for (auto [a, arg] : llvm::zip(accumulators, args)) {
                                  a.load.getResult().replaceAllUsesWith(arg);
                                  next.push_back(a.store.getValueToStore());
                                }
                                return next;
                              });
      if (failed(promoted))
        continue;
      auto results = promoted->getLoopResults()->take_back(accumulators.size());
      rewriter.setInsertionPointAfter(*promoted);
      // A sum may be reassociated (partial sums per vector lane): the rounding differs, the
      // result does not depend on threads or chunks.
      for (auto [a, arg] : llvm::zip(accumulators, promoted->getRegionIterArgs().take_back(
                                                       accumulators.size())))
        if (auto add = a.store.getValueToStore().getDefiningOp<arith::AddFOp>();
            add && (add.getLhs() == arg || add.getRhs() == arg))
          add.setFastmath(add.getFastmath() | arith::FastMathFlags::reassoc |
                          arith::FastMathFlags::nsz);
      for (auto [a, result] : llvm::zip(accumulators, results)) {
        memref::StoreOp::create(rewriter, a.store.getLoc(), result, a.store.getMemRef(),
                                a.store.getIndices());
        rewriter.eraseOp(a.store);
        rewriter.eraseOp(a.load);
      }
    }
  }
};

} // namespace
