// The loom-round-emulated-floats pass (see Passes.td): each bf16/f16 result is rounded, also
// where upstream's emulation marks its conversions as free to fold away.
#include "compiler/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::loom {
#define GEN_PASS_DEF_ROUNDEMULATEDFLOATS
#include "compiler/Lowering/Passes.h.inc"
} // namespace mlir::loom

using namespace mlir;

namespace {
/// The 16-bit side of a widening or narrowing conversion.
Type narrowSide(Operation *op) {
  Type narrow = isa<arith::ExtFOp>(op) ? op->getOperand(0).getType() : op->getResult(0).getType();
  return getElementTypeOrSelf(narrow);
}

struct RoundEmulatedFloatsPass
    : mlir::loom::impl::RoundEmulatedFloatsBase<RoundEmulatedFloatsPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (!isa<arith::ExtFOp, arith::TruncFOp>(op) ||
          !isa<BFloat16Type, Float16Type>(narrowSide(op)))
        return;
      auto math = cast<arith::ArithFastMathInterface>(op);
      arith::FastMathFlagsAttr flags = math.getFastMathFlagsAttr();
      if (!flags || !arith::bitEnumContainsAll(flags.getValue(), arith::FastMathFlags::contract))
        return;
      arith::FastMathFlags kept = flags.getValue() & ~arith::FastMathFlags::contract;
      if (kept == arith::FastMathFlags::none)
        op->removeAttr(math.getFastMathAttrName());
      else
        op->setAttr(math.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(op->getContext(), kept));
    });
  }
};
} // namespace
