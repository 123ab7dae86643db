// Result-type inference, verifier and fold of loom.pad (see LoomOps.td).
#include "compiler/IR/LoomOps.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::loom;

FailureOr<RankedTensorType>
PadOp::inferResultType(RankedTensorType operandType, RankedTensorType paddingType,
                       ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                       ArrayRef<int64_t> interior,
                       function_ref<InFlightDiagnostic()> emitError) {
  if (paddingType.getRank() != 0 ||
      paddingType.getElementType() != operandType.getElementType())
    return emitError() << "padding value " << paddingType << " must be a rank-0 tensor of "
                       << operandType.getElementType();
  int64_t rank = operandType.getRank();
  for (auto [name, list] : {std::pair{"low", low}, {"high", high}, {"interior", interior}}) {
    if (static_cast<int64_t>(list.size()) != rank)
      return emitError() << name << " has " << list.size() << " entries but the operand "
                         << operandType << " has rank " << rank;
    for (auto [i, v] : llvm::enumerate(list))
      if (v < 0)
        return emitError() << name << "[" << i << "] = " << v << " must be >= 0";
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = operandType.getDimSize(i);
    // low + high + size + (size - 1) * interior, none of it allowed to wrap.
    std::optional<int64_t> padded = llvm::checkedMul(std::max<int64_t>(size - 1, 0), interior[i]);
    for (int64_t term : {low[i], high[i], size})
      if (padded)
        padded = llvm::checkedAdd(*padded, term);
    if (!padded)
      return emitError() << "padding dim " << i << " of " << operandType << " (low " << low[i]
                         << ", high " << high[i] << ", interior " << interior[i]
                         << ") gives a size that does not fit in 64 bits";
    shape.push_back(*padded);
  }
  return RankedTensorType::get(shape, operandType.getElementType());
}

void PadOp::build(OpBuilder &builder, OperationState &state, Value operand, Value paddingValue,
                  ArrayRef<int64_t> low, ArrayRef<int64_t> high, ArrayRef<int64_t> interior) {
  auto operandType = cast<RankedTensorType>(operand.getType());
  auto type = inferResultType(operandType, cast<RankedTensorType>(paddingValue.getType()), low,
                              high, interior, [&] { return mlir::emitError(state.location); });
  build(builder, state, succeeded(type) ? Type(*type) : Type(operandType), operand,
        paddingValue, low, high, interior);
}

LogicalResult PadOp::verify() {
  auto inferred = inferResultType(getOperand().getType(), getPaddingValue().getType(), getLow(),
                                  getHigh(), getInterior(), [&] { return emitOpError(); });
  if (failed(inferred))
    return failure();
  if (*inferred != getType())
    return emitOpError("result type ")
           << getType() << " does not match the inferred type " << *inferred;
  return success();
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand(); // no padding anywhere
  return {};
}
