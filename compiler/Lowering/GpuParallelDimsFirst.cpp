// The loom-gpu-parallel-dims-first pass (see Passes.td): a linalg.generic's parallel dims
// move in front of its reduction dims, so that they all become GPU threads.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::loom {
#define GEN_PASS_DEF_GPUPARALLELDIMSFIRST
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
struct GpuParallelDimsFirstPass
    : mlir::loom::impl::GpuParallelDimsFirstBase<GpuParallelDimsFirstPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      SmallVector<unsigned> order;
      for (unsigned d = 0; d < iterators.size(); ++d)
        if (linalg::isParallelIterator(iterators[d]))
          order.push_back(d);
      for (unsigned d = 0; d < iterators.size(); ++d)
        if (!linalg::isParallelIterator(iterators[d]))
          order.push_back(d);
      if (llvm::equal(order, llvm::seq<unsigned>(0, iterators.size())))
        continue;
      rewriter.setInsertionPoint(op);
      (void)linalg::interchangeGenericOp(rewriter, op, order);
    }
  }
};
} // namespace
