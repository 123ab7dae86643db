// Registers the Loom ops and their inliner interface, and materializes folded constants as
// loom.constant.
#include "compiler/IR/LoomDialect.h"
#include "compiler/IR/LoomOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::loom;

#include "compiler/IR/LoomDialect.cpp.inc"
#include "compiler/IR/LoomEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "compiler/IR/LoomAttrs.cpp.inc"

namespace {
/// Every Loom op is pure and region-free, so any of them may be inlined anywhere (this is
/// what lets the generated gradient functions be inlined into the train step).
struct LoomInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final { return true; }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final { return true; }
};
} // namespace

void LoomDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/IR/LoomOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/IR/LoomAttrs.cpp.inc"
      >();
  addInterfaces<LoomInlinerInterface>();
}

Operation *LoomDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                            Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
