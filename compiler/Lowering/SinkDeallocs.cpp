// The loom-sink-deallocs pass (see Passes.td): frees each temporary right after its last use
// instead of at the end of the function.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::loom {
#define GEN_PASS_DEF_SINKDEALLOCS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
/// The last op of `block` that uses `alloc`, a view of it, or anything computed from it (a
/// pointer extracted for a BLAS call, say), or null. Uses in nested regions count as uses by
/// their ancestor in `block`.
Operation *lastUse(Value alloc, Operation *dealloc, Block *block) {
  llvm::SetVector<Value> derived;
  derived.insert(alloc);
  Operation *last = nullptr;
  for (size_t i = 0; i < derived.size(); ++i) {
    for (Operation *user : derived[i].getUsers()) {
      if (user == dealloc)
        continue;
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        continue;
      // Values computed from the buffer, and results of the enclosing op (a loop may yield
      // them), carry it on.
      for (Operation *op = user; op; op = op == ancestor ? nullptr : op->getParentOp())
        for (Value result : op->getResults())
          derived.insert(result);
      if (!last || last->isBeforeInBlock(ancestor))
        last = ancestor;
    }
  }
  return last;
}

struct SinkDeallocsPass : mlir::loom::impl::SinkDeallocsBase<SinkDeallocsPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation()->walk([&](memref::DeallocOp op) { deallocs.push_back(op); });
    for (memref::DeallocOp dealloc : deallocs) {
      Value memref = dealloc.getMemref();
      if (!memref.getDefiningOp<memref::AllocOp>() ||
          memref.getParentBlock() != dealloc->getBlock())
        continue;
      Operation *last = lastUse(memref, dealloc, dealloc->getBlock());
      if (!last)
        last = memref.getDefiningOp();
      if (last->isBeforeInBlock(dealloc))
        dealloc->moveAfter(last);
    }
  }
};
} // namespace
