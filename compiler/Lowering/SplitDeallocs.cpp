// The loom-split-deallocs pass (see Passes.td): a dealloc of many distinct allocations becomes
// one dealloc per allocation, in time linear in their number.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::loom {
#define GEN_PASS_DEF_SPLITDEALLOCS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
struct SplitDeallocsPass : mlir::loom::impl::SplitDeallocsBase<SplitDeallocsPass> {
  void runOnOperation() override {
    getOperation().walk([](bufferization::DeallocOp dealloc) {
      // With retained values the op also answers whether each is still owned; left alone.
      if (!dealloc.getRetained().empty() || dealloc.getMemrefs().size() < 2)
        return;
      // Buffers of distinct allocations never alias one another.
      llvm::SmallPtrSet<Operation *, 32> allocations;
      for (Value memref : dealloc.getMemrefs()) {
        auto alloc = memref.getDefiningOp<memref::AllocOp>();
        if (!alloc || !allocations.insert(alloc).second)
          return;
      }
      OpBuilder b(dealloc);
      for (auto [memref, condition] : llvm::zip(dealloc.getMemrefs(), dealloc.getConditions()))
        bufferization::DeallocOp::create(b, dealloc.getLoc(), ValueRange{memref},
                                         ValueRange{condition}, ValueRange{});
      dealloc.erase();
    });
  }
};
} // namespace
