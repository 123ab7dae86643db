// Sizes that fit: the element count and byte size of every tensor a Loom op takes or makes
// must fit in int64, so that no verifier, pass or runtime computation on them wraps.
#include "compiler/IR/LoomOps.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;

std::optional<int64_t> mlir::loom::checkedElementCount(ShapedType type) {
  int64_t count = 1;
  for (int64_t d : type.getShape()) {
    if (ShapedType::isDynamic(d))
      return std::nullopt;
    std::optional<int64_t> next = llvm::checkedMul(count, d);
    if (!next)
      return std::nullopt;
    count = *next;
  }
  return count;
}

int64_t mlir::loom::tensorBytes(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  return type.getNumElements() * std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
}

LogicalResult mlir::loom::verifySizesFit(Operation *op) {
  auto check = [&](Value v, const std::string &what) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape())
      return success();
    std::optional<int64_t> count = checkedElementCount(type);
    unsigned bits = type.getElementType().isIntOrIndexOrFloat()
                        ? type.getElementType().getIntOrFloatBitWidth()
                        : 64;
    std::optional<int64_t> bytes =
        count ? llvm::checkedMul(*count, std::max<int64_t>(1, (bits + 7) / 8)) : std::nullopt;
    if (!bytes)
      return op->emitOpError() << what << " " << type
                               << " has more elements or bytes than fit in 64 bits";
    return success();
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(check(v, "operand " + std::to_string(i))))
      return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (failed(check(v, "result " + std::to_string(i))))
      return failure();
  return success();
}
