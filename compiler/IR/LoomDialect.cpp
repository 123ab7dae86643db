// Registers the Loom ops and materializes folded constants as loom.constant.
#include "compiler/IR/LoomDialect.h"
#include "compiler/IR/LoomOps.h"

using namespace mlir;
using namespace mlir::loom;

#include "compiler/IR/LoomDialect.cpp.inc"
#include "compiler/IR/LoomEnums.cpp.inc"

void LoomDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/IR/LoomOps.cpp.inc"
      >();
}

Operation *LoomDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                            Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
