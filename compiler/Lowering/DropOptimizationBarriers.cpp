// The loom-drop-optimization-barriers pass (see Passes.td): each barrier becomes its operand.
#include "compiler/Lowering/Passes.h"

#include "compiler/IR/LoomOps.h"

namespace mlir::loom {
#define GEN_PASS_DEF_DROPOPTIMIZATIONBARRIERS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
struct DropOptimizationBarriersPass
    : mlir::loom::impl::DropOptimizationBarriersBase<DropOptimizationBarriersPass> {
  void runOnOperation() override {
    getOperation()->walk([](mlir::loom::OptimizationBarrierOp op) {
      op.replaceAllUsesWith(op.getOperand());
      op.erase();
    });
  }
};
} // namespace
