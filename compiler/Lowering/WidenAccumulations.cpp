// The loom-widen-accumulations pass: products, sums and scatter-adds of bf16/f16 tensors
// accumulate in f32 and round once, as GPUs' tensor cores do (see Passes.td).
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/ComputeInF32.h"
#include "compiler/Lowering/Passes.h"

namespace mlir::loom {
#define GEN_PASS_DEF_WIDENACCUMULATIONS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

struct WidenAccumulationsPass
    : mlir::loom::impl::WidenAccumulationsBase<WidenAccumulationsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> narrow;
    getOperation()->walk([&](Operation *op) {
      // A scatter-add sums every update of a row (an embedding's gradient: one per token).
      bool accumulates = isa<DotGeneralOp, ScatterAddOp>(op) ||
                         (isa<ReduceOp>(op) && cast<ReduceOp>(op).getKind() == ReduceKind::sum);
      if (accumulates && isNarrowFloat(op->getResult(0).getType()))
        narrow.push_back(op);
    });
    for (Operation *op : narrow)
      computeInF32(op);
  }
};

} // namespace
