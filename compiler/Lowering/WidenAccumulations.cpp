// The loom-widen-accumulations pass: products and sums of bf16/f16 tensors accumulate in f32
// and round once, as GPUs' tensor cores do (see Passes.td).
#include "compiler/IR/LoomOps.h"
#include "compiler/Lowering/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::loom {
#define GEN_PASS_DEF_WIDENACCUMULATIONS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;
using namespace mlir::loom;

namespace {

bool isNarrowFloat(Type t) {
  Type element = getElementTypeOrSelf(t);
  return element.isBF16() || element.isF16();
}

RankedTensorType withElement(Type t, Type element) {
  return cast<RankedTensorType>(t).clone(element);
}

/// `op` (every float operand and result bf16/f16) computed in f32: its operands converted up,
/// a copy of it on f32, its results converted back down.
void widen(Operation *op) {
  OpBuilder b(op);
  Type f32 = b.getF32Type();
  IRMapping widened;
  for (Value operand : op->getOperands())
    if (isNarrowFloat(operand.getType()) && !widened.contains(operand))
      widened.map(operand, ConvertOp::create(b, op->getLoc(),
                                             withElement(operand.getType(), f32), operand));
  Operation *wide = b.clone(*op, widened);
  for (auto [narrow, result] : llvm::zip(op->getResults(), wide->getResults())) {
    Type type = narrow.getType();
    result.setType(withElement(type, f32));
    narrow.replaceAllUsesWith(ConvertOp::create(b, op->getLoc(), type, result).getResult());
  }
  op->erase();
}

struct WidenAccumulationsPass
    : mlir::loom::impl::WidenAccumulationsBase<WidenAccumulationsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> narrow;
    getOperation()->walk([&](Operation *op) {
      bool accumulates = isa<DotGeneralOp>(op) ||
                         (isa<ReduceOp>(op) && cast<ReduceOp>(op).getKind() == ReduceKind::sum);
      if (accumulates && isNarrowFloat(op->getResult(0).getType()))
        narrow.push_back(op);
    });
    for (Operation *op : narrow)
      widen(op);
  }
};

} // namespace
