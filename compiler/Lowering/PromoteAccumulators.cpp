// The loom-promote-accumulators pass (see Passes.td): a loop that reads and writes the same
// element each iteration (a reduction's accumulator) carries it in a register instead.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

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
/// defined outside the loop, after one load of the same element and with no other access;
/// nothing else in the body writes memory, loops or calls out. Empty if the body is anything
/// else. (The body's ops are all direct, so its accesses to a buffer are in `body` itself.)
SmallVector<Accumulator> accumulatorsOf(scf::ForOp loop) {
  llvm::MapVector<Value, SmallVector<Operation *, 2>> accesses; // per buffer, in order
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      accesses[load.getMemRef()].push_back(load);
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      accesses[store.getMemRef()].push_back(store);
    else if (!isMemoryEffectFree(&op))
      return {}; // a nested loop, a call, a write we do not understand
  }
  SmallVector<Accumulator> found;
  for (auto &[buffer, ops] : accesses) {
    if (llvm::none_of(ops, [](Operation *op) { return isa<memref::StoreOp>(op); }))
      continue; // only read
    auto load = ops.size() == 2 ? dyn_cast<memref::LoadOp>(ops[0]) : memref::LoadOp();
    auto store = ops.size() == 2 ? dyn_cast<memref::StoreOp>(ops[1]) : memref::StoreOp();
    if (!load || !store || load.getIndices() != store.getIndices() ||
        !llvm::all_of(store.getIndices(),
                      [&](Value i) { return loop.isDefinedOutsideOfLoop(i); }))
      return {};
    found.push_back({load, store});
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
