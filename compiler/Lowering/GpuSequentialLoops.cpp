// The loom-gpu-sequential-loops pass (see Passes.td): a host loop that reads buffer memory
// between its parallel loops (a row index) becomes sequential as a whole, so that it runs on
// the GPU instead of being a host loop around kernels that the host cannot steer. The
// fallback for what loom-gpu-atomic-scatter does not take.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUSEQUENTIALLOOPS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {

/// Whether `root` reads memory outside of its parallel loops.
bool readsOutsideParallelLoops(Operation *root) {
  return root
      ->walk([&](Operation *op) {
        if (isa<scf::ParallelOp>(op))
          return WalkResult::skip();
        auto effects = dyn_cast<MemoryEffectOpInterface>(op);
        if (effects && effects.hasEffect<MemoryEffects::Read>())
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Replaces `loop` by a nest of scf.for over the same bounds.
void makeSequential(scf::ParallelOp loop, IRRewriter &rewriter) {
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> ivs;
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
      [&](OpBuilder &, Location, ValueRange inner) { ivs.assign(inner.begin(), inner.end()); });
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator()); // scf.reduce without values
  Block *innermost = nest.loops.back().getBody();
  rewriter.inlineBlockBefore(body, innermost->getTerminator(), ivs);
  rewriter.eraseOp(loop);
}

/// Replaces `copy` by a loop nest of loads and stores (a kernel cannot call memrefCopy).
void copyByLoops(memref::CopyOp copy, IRRewriter &rewriter) {
  auto type = cast<MemRefType>(copy.getSource().getType());
  Location loc = copy.getLoc();
  rewriter.setInsertionPoint(copy);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    lbs.push_back(arith::ConstantIndexOp::create(rewriter, loc, 0));
    ubs.push_back(memref::DimOp::create(rewriter, loc, copy.getSource(), d));
    steps.push_back(arith::ConstantIndexOp::create(rewriter, loc, 1));
  }
  scf::buildLoopNest(rewriter, loc, lbs, ubs, steps,
                     [&](OpBuilder &b, Location l, ValueRange ivs) {
                       Value v = memref::LoadOp::create(b, l, copy.getSource(), ivs);
                       memref::StoreOp::create(b, l, v, copy.getTarget(), ivs);
                     });
  rewriter.eraseOp(copy);
}

/// A temporary of static shape allocated and freed in one iteration of `root`'s body serves
/// every iteration: allocated before `root` (a GPU allocation, not a kernel's malloc) and
/// freed after it.
void hoistTemporaries(Operation *root, IRRewriter &rewriter) {
  SmallVector<memref::AllocOp> allocs;
  root->walk([&](memref::AllocOp alloc) {
    if (alloc.getType().hasStaticShape())
      allocs.push_back(alloc);
  });
  for (memref::AllocOp alloc : allocs) {
    SmallVector<memref::DeallocOp> deallocs;
    for (Operation *user : alloc->getUsers())
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user))
        deallocs.push_back(dealloc);
    if (deallocs.size() != 1 || deallocs[0]->getBlock() != alloc->getBlock())
      continue;
    rewriter.moveOpBefore(alloc, root);
    rewriter.moveOpAfter(deallocs[0], root);
  }
}

struct GpuSequentialLoopsPass
    : mlir::loom::impl::GpuSequentialLoopsBase<GpuSequentialLoopsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (Region &region : getOperation()->getRegions())
      for (Block &block : region)
        for (Operation &op : block) {
          if (isa<scf::ParallelOp>(op) || op.getNumRegions() == 0 ||
              !readsOutsideParallelLoops(&op))
            continue;
          // Outermost first, one at a time: an inner loop moves with its parent's body.
          for (;;) {
            scf::ParallelOp first;
            op.walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
              first = loop;
              return WalkResult::interrupt();
            });
            if (!first)
              break;
            makeSequential(first, rewriter);
          }
          SmallVector<memref::CopyOp> copies;
          op.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
          for (memref::CopyOp copy : copies)
            copyByLoops(copy, rewriter);
          hoistTemporaries(&op, rewriter);
        }
  }
};

} // namespace
