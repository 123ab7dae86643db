// Division of an LLVM-dialect module for the object emitter (see ModuleSplitter.h).
#include "compiler/Jit/ModuleSplitter.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

static bool hasPassthrough(LLVM::LLVMFuncOp fn, StringRef flag) {
  auto passthrough = fn.getPassthroughAttr();
  return passthrough && llvm::any_of(passthrough, [&](mlir::Attribute a) {
           auto name = dyn_cast<StringAttr>(a);
           return name && name.getValue() == flag;
         });
}

bool mlir::loom::isSequencer(LLVM::LLVMFuncOp fn) { return hasPassthrough(fn, "optnone"); }

bool mlir::loom::isKernel(LLVM::LLVMFuncOp fn) {
  return !fn.isExternal() && hasPassthrough(fn, "noinline") && !isSequencer(fn);
}

OwningOpRef<ModuleOp> mlir::loom::extractFunctions(ModuleOp module,
                                                   llvm::ArrayRef<LLVM::LLVMFuncOp> keep,
                                                   bool withExportedGlobals) {
  SymbolTable symbols(module);
  llvm::SetVector<Operation *> needed(keep.begin(), keep.end());
  // What the kept functions refer to, and what referred globals' initializers refer to.
  for (size_t i = 0; i < needed.size(); ++i) {
    Operation *op = needed[i];
    if (auto fn = dyn_cast<LLVM::LLVMFuncOp>(op); fn && !llvm::is_contained(keep, fn))
      continue; // only declared
    op->walk([&](Operation *inner) {
      for (NamedAttribute attr : inner->getAttrs())
        attr.getValue().walk([&](FlatSymbolRefAttr ref) {
          if (Operation *target = symbols.lookup(ref.getValue()))
            needed.insert(target);
        });
    });
  }
  if (withExportedGlobals)
    for (auto global : module.getOps<LLVM::GlobalOp>())
      if (global.getLinkage() == LLVM::Linkage::External)
        needed.insert(global);

  OpBuilder b(module.getContext());
  OwningOpRef<ModuleOp> part = ModuleOp::create(module.getLoc());
  part->getOperation()->setAttrs(module->getAttrDictionary());
  b.setInsertionPointToEnd(part->getBody());
  // In the module's order, so the part's text is the same whatever asked for it.
  for (Operation &op : module.getBody()->getOperations()) {
    if (!needed.contains(&op))
      continue;
    auto fn = dyn_cast<LLVM::LLVMFuncOp>(op);
    if (fn && !fn.isExternal() && !llvm::is_contained(keep, fn)) {
      // Declared here, defined in another part.
      auto declared = cast<LLVM::LLVMFuncOp>(b.cloneWithoutRegions(op));
      declared.setLinkage(LLVM::Linkage::External);
      continue;
    }
    auto global = dyn_cast<LLVM::GlobalOp>(op);
    if (global && global.getLinkage() == LLVM::Linkage::External && !withExportedGlobals) {
      auto declared = cast<LLVM::GlobalOp>(b.cloneWithoutRegions(op));
      declared.removeValueAttr();
      continue;
    }
    b.clone(op);
  }
  return part;
}

std::string mlir::loom::printForKey(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(false));
  return text;
}

bool mlir::loom::splittable(ModuleOp module) {
  for (Operation &op : module.getBody()->getOperations()) {
    if (isa<LLVM::LLVMFuncOp>(op))
      continue;
    auto global = dyn_cast<LLVM::GlobalOp>(op);
    if (!global || !global.getConstant())
      return false;
  }
  return true;
}

llvm::DenseMap<Operation *, int> mlir::loom::assignParts(ModuleOp module, int parts) {
  std::vector<std::pair<size_t, Operation *>> sized;
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    if (fn.isExternal())
      continue;
    size_t ops = 0;
    fn->walk([&](Operation *) { ++ops; });
    sized.emplace_back(ops, fn);
  }
  std::stable_sort(sized.begin(), sized.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });
  std::vector<size_t> load(parts, 0);
  llvm::DenseMap<Operation *, int> part;
  for (auto [ops, fn] : sized) {
    int lightest = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    part[fn] = lightest;
    load[lightest] += ops;
  }
  return part;
}
