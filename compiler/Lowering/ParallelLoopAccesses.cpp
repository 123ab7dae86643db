// The loom-mark-parallel-loops and loom-parallel-access-groups passes: an innermost
// scf.parallel reaches LLVM as a loop whose memory accesses are declared free of dependences
// between iterations (llvm.loop.parallel_accesses), which is what scf.parallel promises.
//
// Why: a kernel's buffers come from its argument struct, so LLVM cannot tell whether the
// result overlaps an input; its vectorizer then checked for an overlap at run time and kept
// a scalar copy of every loop. An in-place kernel (an input dying into the result: the same
// buffer, read and written at the same index in the same iteration, which parallel accesses
// allow) always failed the check and ran the scalar copy: the tiny GPT's residual add took 76
// us instead of 29. The scalar copy's constants also held registers across the vector loop.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::loom {
#define GEN_PASS_DEF_MARKPARALLELLOOPS
#define GEN_PASS_DEF_PARALLELACCESSGROUPS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
/// The discardable attribute that carries the annotation from scf.for to the loop's latch
/// (convert-scf-to-cf copies LLVM-dialect attributes onto the latch's branch).
constexpr llvm::StringLiteral kLoopAnnotation = "llvm.loop_annotation";

/// An scf.parallel that becomes a nest of scf.for (scf::parallelForToNestedFors), its innermost
/// annotated: no reductions and no loop inside (the annotation covers only the innermost
/// loop's accesses).
bool isMarkable(scf::ParallelOp loop) {
  if (loop.getNumResults() != 0)
    return false;
  WalkResult inner = loop.getBody()->walk([](Operation *op) {
    return isa<LoopLikeOpInterface>(op) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return !inner.wasInterrupted();
}

struct MarkParallelLoopsPass
    : mlir::loom::impl::MarkParallelLoopsBase<MarkParallelLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (isMarkable(loop))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : loops) {
      rewriter.setInsertionPoint(loop);
      FailureOr<scf::LoopNest> nest = scf::parallelForToNestedFors(rewriter, loop);
      if (failed(nest) || nest->loops.empty())
        continue;
      auto group = LLVM::AccessGroupAttr::get(&getContext());
      auto annotation = LLVM::LoopAnnotationAttr::get(
          &getContext(), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {group});
      nest->loops.back()->setAttr(kLoopAnnotation, annotation);
    }
  }
};

/// The blocks of the natural loop whose back edge runs from `latch` to `header`.
llvm::SetVector<Block *> loopBlocks(Block *header, Block *latch) {
  llvm::SetVector<Block *> blocks;
  blocks.insert(header);
  SmallVector<Block *> work{latch};
  while (!work.empty()) {
    Block *block = work.pop_back_val();
    if (!blocks.insert(block))
      continue;
    for (Block *pred : block->getPredecessors())
      work.push_back(pred);
  }
  return blocks;
}

struct ParallelAccessGroupsPass
    : mlir::loom::impl::ParallelAccessGroupsBase<ParallelAccessGroupsPass> {
  void runOnOperation() override {
    getOperation()->walk([&](LLVM::BrOp latch) {
      auto annotation = latch->getAttrOfType<LLVM::LoopAnnotationAttr>(kLoopAnnotation);
      if (!annotation)
        return;
      latch->removeAttr(kLoopAnnotation);
      latch.setLoopAnnotationAttr(annotation);
      ArrayRef<LLVM::AccessGroupAttr> groups = annotation.getParallelAccesses();
      if (groups.empty())
        return;
      for (Block *block : loopBlocks(latch.getDest(), latch->getBlock()))
        for (Operation &op : *block) {
          auto access = dyn_cast<LLVM::AccessGroupOpInterface>(op);
          if (!access)
            continue;
          SmallVector<Attribute> all;
          if (ArrayAttr existing = access.getAccessGroupsOrNull())
            llvm::append_range(all, existing);
          llvm::append_range(all, groups);
          access.setAccessGroups(ArrayAttr::get(&getContext(), all));
        }
    });
  }
};
} // namespace
