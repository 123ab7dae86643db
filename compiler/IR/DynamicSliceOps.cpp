// Verifiers of loom.dynamic_slice and loom.dynamic_update_slice (LoomDynamicSliceOps.td).
#include "compiler/IR/LoomOps.h"

using namespace mlir;
using namespace mlir::loom;

namespace {
/// The checks both ops share: one rank-0 start per dim, and a box (`what`, of type `box`) of
/// the operand's rank and element type that fits inside it.
LogicalResult verifyBox(Operation *op, RankedTensorType operand, RankedTensorType box,
                        ValueRange starts, StringRef what) {
  if (static_cast<int64_t>(starts.size()) != operand.getRank())
    return op->emitOpError("has ") << starts.size() << " start indices but the operand "
                                   << operand << " has rank " << operand.getRank();
  for (auto [i, start] : llvm::enumerate(starts))
    if (auto type = cast<RankedTensorType>(start.getType()); type.getRank() != 0)
      return op->emitOpError("start index ") << i << " must be a rank-0 tensor, not " << type;
  if (box.getRank() != operand.getRank() || box.getElementType() != operand.getElementType())
    return op->emitOpError() << what << " " << box << " must have the rank and element type of "
                             << "the operand " << operand;
  for (int64_t d = 0; d < operand.getRank(); ++d)
    if (box.getDimSize(d) > operand.getDimSize(d))
      return op->emitOpError() << what << " dim " << d << " has size " << box.getDimSize(d)
                               << ", more than the operand's " << operand.getDimSize(d);
  return success();
}
} // namespace

LogicalResult DynamicSliceOp::verify() {
  return verifyBox(*this, getOperand().getType(), getType(), getStarts(), "result");
}

LogicalResult DynamicUpdateSliceOp::verify() {
  if (getType() != getOperand().getType())
    return emitOpError("result type ") << getType() << " must be the operand's "
                                       << getOperand().getType();
  return verifyBox(*this, getOperand().getType(), getUpdate().getType(), getStarts(), "update");
}
