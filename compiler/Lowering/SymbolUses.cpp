// How the functions of a module are named (see SymbolUses.h).
#include "compiler/Lowering/SymbolUses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

mlir::loom::SymbolUseCounts mlir::loom::countSymbolUses(ModuleOp module) {
  SymbolUseCounts counts;
  module.walk([&](SymbolUserOpInterface op) {
    op->getAttrDictionary().walk(
        [&](SymbolRefAttr ref) { ++counts.uses[ref.getRootReference()]; });
    if (auto call = dyn_cast<func::CallOp>(*op))
      ++counts.calls[call.getCallee()];
  });
  return counts;
}
