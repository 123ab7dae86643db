// Computing a 16-bit op in f32 (see ComputeInF32.h).
#include "compiler/Lowering/ComputeInF32.h"

#include "compiler/IR/LoomOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace {
RankedTensorType withElement(Type t, Type element) {
  return cast<RankedTensorType>(t).clone(element);
}
} // namespace

bool mlir::loom::isNarrowFloat(Type t) {
  Type element = getElementTypeOrSelf(t);
  return element.isBF16() || element.isF16();
}

Operation *mlir::loom::computeInF32(Operation *op) {
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
    if (!isNarrowFloat(type)) {
      narrow.replaceAllUsesWith(result);
      continue;
    }
    result.setType(withElement(type, f32));
    narrow.replaceAllUsesWith(ConvertOp::create(b, op->getLoc(), type, result).getResult());
  }
  op->erase();
  return wide;
}
