// Verifier of loom.value_and_grad: its callee, operands, wrt list and result types.
#include "compiler/IR/LoomOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::loom;

LogicalResult ValueAndGradOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!callee)
    return emitOpError("callee @") << getCallee() << " is not a func.func in this module";
  FunctionType type = callee.getFunctionType();
  if (type.getInputs() != getArgs().getTypes())
    return emitOpError("operand types do not match the arguments of @") << getCallee();
  auto value = type.getNumResults() ? dyn_cast<RankedTensorType>(type.getResult(0)) : nullptr;
  if (!value || value.getRank() != 0 || !isa<FloatType>(value.getElementType()))
    return emitOpError("the first result of @")
           << getCallee() << " must be a rank-0 float tensor (the value differentiated)";
  SmallVector<Type> expected(type.getResults());
  for (auto [i, arg] : llvm::enumerate(getWrt())) {
    if (arg < 0 || arg >= static_cast<int64_t>(type.getNumInputs()))
      return emitOpError("wrt[") << i << "] = " << arg << " is not an argument of @"
                                 << getCallee();
    if (i > 0 && arg <= getWrt()[i - 1])
      return emitOpError("wrt must be strictly increasing");
    auto argType = cast<RankedTensorType>(type.getInput(arg));
    if (!isa<FloatType>(argType.getElementType()))
      return emitOpError("argument ") << arg << " of type " << argType
                                      << " cannot be differentiated (not a float tensor)";
    expected.push_back(argType);
  }
  if (TypeRange(getResultTypes()) != TypeRange(expected))
    return emitOpError("results must be the callee's results followed by the gradients' types");
  return success();
}
